import { createServer, type IncomingMessage } from 'node:http';

// The confirmation page's own listener, for a server with no HTTP server of its own (stdio): an
// ephemeral port on 127.0.0.1, answering only requests that name it in `Host` (a DNS-rebound name
// is refused), unref'd so that it never keeps the process alive by itself.

/** A listener serving the page. */
export interface PageListener {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 8192;

async function bodyOf(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** Listens on `127.0.0.1:0` and hands every request to `handle`. */
export async function listenOnLoopback(handle: (request: Request) => Promise<Response>): Promise<PageListener> {
  let hosts: string[] = [];
  const http = createServer((req, res) => {
    void (async () => {
      if (!hosts.includes(String(req.headers.host ?? '').toLowerCase())) {
        res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        return void res.end('Misdirected request: this page answers at 127.0.0.1 only.\n');
      }
      const body = req.method === 'POST' ? await bodyOf(req) : undefined;
      if (req.method === 'POST' && body === undefined) {
        res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8' });
        return void res.end('Too large.\n');
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      const response = await handle(new Request(`http://${hosts[0]}${req.url ?? '/'}`, { method: req.method, headers, ...(body ? { body } : {}) }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(req.method === 'HEAD' ? undefined : Buffer.from(await response.arrayBuffer()));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  http.unref();
  const { port } = http.address() as { port: number };
  hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
