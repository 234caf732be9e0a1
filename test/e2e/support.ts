// Helpers for the end-to-end tests against the sandbox over real HTTP on 127.0.0.1: a recording
// pass-through proxy (the raw bytes that cross the wire), a recording fetch for the client, and
// a browser-like submit of the sandbox's consent form.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** One exchange the proxy relayed, bytes as they crossed the wire (decoded as UTF-8). */
export interface Relayed {
  method: string;
  /** Path and query, e.g. `/openapi/v1/cards`. */
  path: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  /** 0 when the connection was lost before an answer (the proxy then drops the client's too). */
  status: number;
  responseBody: string;
}

/** A pass-through HTTP proxy on 127.0.0.1 in front of `target`; it keeps every exchange. */
export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`: point the client's `authUrl` here and `baseUrl` at `url + '/openapi/v1'`. */
  url: string;
  relayed: Relayed[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade', 'proxy-connection', 'te', 'trailer']);

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts a proxy that relays every request to `target` (an origin, e.g. the sandbox server's `url`). */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const relayed: Relayed[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue;
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const method = req.method ?? 'GET';
      const entry: Relayed = { method, path: req.url ?? '/', requestHeaders: headers, requestBody: body.toString('utf8'), status: 0, responseBody: '' };
      relayed.push(entry);
      const answer = await fetch(new URL(req.url ?? '/', target), {
        method,
        headers,
        redirect: 'manual',
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: new Uint8Array(body) }),
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      entry.status = answer.status;
      entry.responseBody = bytes.toString('utf8');
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
      });
      res.writeHead(answer.status, { ...out, 'content-length': String(bytes.byteLength) });
      res.end(bytes);
    })().catch(() => req.socket.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    relayed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** One call the client made through {@link recordingFetch}, with the answer's body. */
export interface Fetched {
  method: string;
  url: string;
  /** The request's body (empty for GET). */
  requestBody: string;
  status: number;
  body: string;
}

/** The global fetch, keeping each answer (for the client's `fetch` option). */
export function recordingFetch(): { fetch: typeof fetch; calls: Fetched[] } {
  const calls: Fetched[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const requestBody = await request.clone().text();
    const response = await fetch(request);
    calls.push({ method: request.method, url: request.url, requestBody, status: response.status, body: await response.clone().text() });
    return response;
  };
  return { fetch: wrapped, calls };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z_:][\w:.-]*)="([^"]*)"/g)) out[m[1]!.toLowerCase()] = unescape(m[2]!);
  return out;
}

/**
 * Does what a browser does when the customer clicks the button with `buttonId` on an HTML page:
 * finds the button's form, sends its hidden fields and the button's own name/value to the form's
 * action (resolved against `pageUrl`) as `application/x-www-form-urlencoded`, and returns the
 * answer without following a redirect.
 */
export async function clickFormButton(pageUrl: string, html: string, buttonId: string): Promise<Response> {
  for (const form of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const inner = form[2]!;
    const button = [...inner.matchAll(/<button\b[^>]*>/gi)].map((m) => attributes(m[0])).find((a) => a.id === buttonId);
    if (!button) continue;
    const formAttrs = attributes(`<form ${form[1]}>`);
    const fields = new URLSearchParams();
    for (const input of inner.matchAll(/<input\b[^>]*>/gi)) {
      const a = attributes(input[0]);
      if (a.name !== undefined && a.type === 'hidden') fields.append(a.name, a.value ?? '');
    }
    if (button.name !== undefined) fields.append(button.name, button.value ?? '');
    const action = new URL(formAttrs.action ?? '', pageUrl);
    const method = (formAttrs.method ?? 'get').toUpperCase();
    if (method === 'GET') {
      action.search = fields.toString();
      return fetch(action, { redirect: 'manual' });
    }
    return fetch(action, { method, redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
  }
  throw new Error(`no form with a button #${buttonId} on the page`);
}
