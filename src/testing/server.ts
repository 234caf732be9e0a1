import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SandboxOptions } from './options.js';
import { attachControls, createSandbox, type Sandbox, type SandboxControls, sandboxCore } from './sandbox.js';

/**
 * Options of {@link startSandboxServer}: the sandbox's options (its URLs come from the server's
 * address) plus where to listen.
 * @group Sandbox
 */
export interface SandboxServerOptions extends Omit<SandboxOptions, 'baseUrl' | 'authUrl'> {
  /** TCP port on 127.0.0.1. Default 0: a free port chosen by the system. */
  port?: number;
}

/**
 * A sandbox served over real HTTP on 127.0.0.1, with its controls. The identity routes are at
 * `authUrl` (= `url`) and the API at `baseUrl` (= `url` + `/openapi/v1`).
 * @group Sandbox
 */
export interface SandboxServer extends SandboxControls {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port the server listens on. */
  readonly port: number;
  /** The same sandbox as an in-process fetch handler (shares its state with the server). */
  readonly handler: Sandbox;
  /** Stops listening and closes every open connection. Resolves once the server is closed. */
  close(): Promise<void>;
}

/** Largest request body the server reads (1 MiB); larger ones get 413. */
const MAX_BODY = 1 << 20;

async function readBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | 'too_large'> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY) return 'too_large';
    chunks.push(chunk);
  }
  const body = new Uint8Array(new ArrayBuffer(size));
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function writeHead(res: ServerResponse, response: Response, length: number): void {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['content-length'] = String(length);
  res.writeHead(response.status, headers);
}

/**
 * Starts the sandbox on 127.0.0.1 (never on another interface). Requests whose `Host` is not
 * `127.0.0.1:<port>` or `localhost:<port>` get 421 (a defence against DNS rebinding). A `drop` fault destroys the
 * socket without an answer, and `truncate` sends the headers and half the body before destroying
 * it, so clients see real connection failures.
 *
 * @example
 * ```ts
 * import { OpenBanking } from 'openbanking-ng';
 * import { startSandboxServer } from 'openbanking-ng/testing';
 *
 * const server = await startSandboxServer();
 * const app = server.registerClient();
 * const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: server.baseUrl, authUrl: server.authUrl });
 * // ...
 * await server.close();
 * ```
 * @group Sandbox
 */
export async function startSandboxServer(options: SandboxServerOptions = {}): Promise<SandboxServer> {
  const { port = 0, ...sandboxOptions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError('startSandboxServer: port must be an integer from 0 to 65535');
  for (const key of ['baseUrl', 'authUrl']) {
    if (key in sandboxOptions) throw new TypeError(`startSandboxServer: ${key} comes from the server's address and cannot be given`);
  }
  // Loaded here so that the rest of openbanking-ng/testing stays usable where node:http is not.
  const { createServer } = await import('node:http');
  const sockets = new Set<Socket>();
  let sandbox: Sandbox | undefined;

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const core = sandboxCore(sandbox)!;
    // DNS rebinding: a web page whose host name resolves to 127.0.0.1 reaches this port with its
    // own name in Host. Only the server's own names are served.
    if (!ownHosts.has((req.headers.host ?? '').toLowerCase())) {
      res.writeHead(421, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ status: '03', error_code: 'MISDIRECTED_REQUEST', message: 'This sandbox only answers requests addressed to 127.0.0.1 or localhost on its port', data: {} }));
      return;
    }
    const body = await readBody(req);
    if (body === 'too_large') {
      res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ status: '01', error_code: 'PAYLOAD_TOO_LARGE', message: 'The body is larger than 1 MiB', data: {} }));
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const request = new Request(new URL(req.url ?? '/', address), {
      method,
      headers: toHeaders(req),
      ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
    });
    const outcome = await core.handle(request);
    if (outcome.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    const bytes = new Uint8Array(await outcome.response.arrayBuffer());
    if (req.socket.destroyed) return;
    if (outcome.kind === 'truncate') {
      writeHead(res, outcome.response, Math.max(bytes.byteLength, 2));
      res.write(bytes.subarray(0, Math.floor(bytes.byteLength / 2)), () => req.socket.destroy());
      return;
    }
    writeHead(res, outcome.response, bytes.byteLength);
    res.end(method === 'HEAD' ? undefined : bytes);
  };

  const server: Server = createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ status: '05', message: 'Internal error in the sandbox', data: {} }));
      } else req.socket.destroy();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const info = server.address();
  const actualPort = typeof info === 'object' && info !== null ? info.port : port;
  const address = `http://127.0.0.1:${actualPort}`;
  const ownHosts = new Set([`127.0.0.1:${actualPort}`, `localhost:${actualPort}`]);
  try {
    sandbox = createSandbox({ ...sandboxOptions, authUrl: address, baseUrl: `${address}/openapi/v1` });
  } catch (error) {
    server.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  const result = {
    url: address,
    port: actualPort,
    handler: sandbox,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
  return attachControls(result, sandboxCore(sandbox)!.controls);
}
