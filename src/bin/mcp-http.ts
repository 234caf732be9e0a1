import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  type McpServer,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ConfirmationPage } from '../mcp.js';

// Streamable HTTP for `openbanking-ng-mcp --http`: 2026-07-28 clients through the SDK's handler
// (a server per request over the shared state), 2025-era clients in sessions, so that money
// tools can ask them to confirm. The Host and Origin checks always apply; the bearer token
// whenever the command requires it (DESIGN "Agents", row "HTTP").

/** What `--http` listens with. */
export interface HttpOptions {
  host: string;
  port: number;
  /** `OB_MCP_TOKEN`: every request must carry it as `Authorization: Bearer …` (required off loopback). */
  token: string | undefined;
  /** At most this many 2025-era sessions at once (the longest idle is closed first). Default 100. */
  maxSessions?: number;
  /** A session idle this long (ms) is closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Clock in ms, for the sessions' idle time. Default `Date.now`. */
  now?: () => number;
  /** The confirmation page, served at `…/confirm/<token>` beside `/mcp`: no bearer token (a browser opens it), its own Origin check. */
  page?: ConfirmationPage;
  /** `--public-url`: its host is accepted in `Host` for the page too. */
  publicUrl?: string;
}

/** A Streamable HTTP endpoint being served. */
export interface HttpEndpoint {
  /** `http://host:port/mcp` */
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

/** 127.0.0.0/8, `::1` and `localhost`: where only this machine can connect. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Hostnames a request may name in `Host` and `Origin`: loopback names, and where a non-loopback bind is reached. */
function allowedHostnames(host: string): string[] {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  if (isLoopback(host)) return [...names];
  const bracket = (address: string) => (address.includes(':') ? `[${address}]` : address);
  names.add(hostname().toLowerCase());
  if (host !== '0.0.0.0' && host !== '::') names.add(bracket(host.replace(/^\[|\]$/g, '').toLowerCase()));
  for (const entries of Object.values(networkInterfaces())) for (const entry of entries ?? []) names.add(bracket(entry.address.toLowerCase()));
  return [...names];
}

/** The 2025-era sessions: capped, the longest idle closed first, and closed once idle too long. */
class Sessions {
  readonly #open = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; seen: number }>();
  readonly #max: number;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(max: number, idleMs: number, now: () => number) {
    this.#max = max;
    this.#idleMs = idleMs;
    this.#now = now;
  }

  get(id: string): WebStandardStreamableHTTPServerTransport | undefined {
    this.sweep();
    const session = this.#open.get(id);
    if (session) session.seen = this.#now();
    return session?.transport;
  }

  add(id: string, transport: WebStandardStreamableHTTPServerTransport): void {
    this.sweep();
    while (this.#open.size >= this.#max) {
      const [idle] = [...this.#open.entries()].sort((a, b) => a[1].seen - b[1].seen)[0]!;
      this.close(idle);
    }
    this.#open.set(id, { transport, seen: this.#now() });
  }

  close(id: string): void {
    const session = this.#open.get(id);
    this.#open.delete(id);
    void session?.transport.close().catch(() => undefined);
  }

  /** Closes every session idle for longer than the limit. */
  sweep(): void {
    const now = this.#now();
    for (const [id, session] of this.#open) if (now - session.seen > this.#idleMs) this.close(id);
  }

  all(): WebStandardStreamableHTTPServerTransport[] {
    return [...this.#open.values()].map((s) => s.transport);
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

function authorized(header: string | null, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

const jsonError = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), { status, headers: { 'content-type': 'application/json', ...headers } });

async function readBody(req: IncomingMessage): Promise<Buffer | 'too large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return 'too large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body === null) return void res.end();
  // SSE streams stay open: each chunk is written as it comes.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

/** Serves `factory` over Streamable HTTP at `/mcp`. */
export async function serveHttp(factory: () => McpServer, options: HttpOptions): Promise<HttpEndpoint> {
  const loopback = isLoopback(options.host);
  if (!loopback && options.token === undefined) throw new Error(`--host ${options.host} is not a loopback address: set OB_MCP_TOKEN, which every request must then carry as Authorization: Bearer`);
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const sessions = new Sessions(options.maxSessions ?? 100, options.sessionIdleMs ?? 30 * 60_000, options.now ?? Date.now);
  const hosts = allowedHostnames(options.host);
  const sweeper = setInterval(() => sessions.sweep(), 60_000);
  sweeper.unref();

  const legacy = async (request: Request): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) return sessions.get(id)?.handleRequest(request) ?? jsonError(404, 'Session not found');
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid): void => sessions.add(sid, transport),
      onsessionclosed: (sid) => sessions.close(sid),
    });
    const server = factory();
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) await server.close();
    return response;
  };

  const pageHosts = options.publicUrl ? [...hosts, new URL(options.publicUrl).hostname] : hosts;
  const answer = async (request: Request): Promise<Response> => {
    // The person's browser opens the confirmation page: the Host check applies, the page checks the Origin of a decision.
    if (options.page && new URL(request.url).pathname.includes('/confirm/')) return hostHeaderValidationResponse(request, pageHosts) ?? options.page.fetch(request);
    // DNS rebinding and foreign pages are refused whether or not a token is required.
    const refused = hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, hosts);
    if (refused) return refused;
    if (options.token !== undefined && !authorized(request.headers.get('authorization'), options.token)) {
      return jsonError(401, 'Unauthorized: send Authorization: Bearer with the OB_MCP_TOKEN of this server', { 'www-authenticate': 'Bearer' });
    }
    if (new URL(request.url).pathname !== '/mcp') return jsonError(404, 'Not found: the MCP endpoint is /mcp');
    return (await isLegacyRequest(request.clone())) ? legacy(request) : modern.fetch(request);
  };

  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE' ? undefined : await readBody(req);
      if (body === 'too large') return writeResponse(res, jsonError(413, 'Request body too large'));
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      const stop = new AbortController();
      res.once('close', () => stop.abort());
      const request = new Request(`http://${req.headers.host ?? options.host}${req.url ?? '/'}`, { method: req.method, headers, body: body && new Uint8Array(body), signal: stop.signal });
      await writeResponse(res, await answer(request));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const hostForUrl = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}/mcp`,
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([modern.close(), ...sessions.all().map((t) => t.close())]);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
