import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  OAuthError,
  OpenBanking,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  isResponseTooLargeError,
} from '../../src/index.js';
import { exposeGc, heapAfterGc } from '../support/gc.js';
import { validCard } from './support.js';

/*
 * A gateway and identity host that misbehave on purpose, over real HTTP on 127.0.0.1, and a second
 * server that records whatever reaches it: a redirect must send it nothing.
 */

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const MB = 1024 * 1024;
const recorded: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
const routes = new Map<string, Handler>();
const sockets = new Set<import('node:net').Socket>();
let hostile: { server: Server; url: string };
let recorder: { server: Server; url: string };
/** Bytes the hostile server managed to write of its last endless or huge body. */
let written = 0;

beforeAll(async () => {
  recorder = await listen((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"00","message":"ok","data":{"card_id":"x","card_status":"ACTIVE"}}');
    });
  });
  hostile = await listen((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const route = routes.get(`${req.method} ${req.url?.split('?')[0]}`);
      if (route) route(req, res, body);
      else res.writeHead(404).end();
    });
  });
  hostile.server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all([hostile, recorder].map(({ server }) => new Promise((resolve) => server.close(resolve))));
});

const tokenOk: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'tok-hostile', token_type: 'Bearer', expires_in: 3600, scope: 'cards.create' }));
};

function client(extra: Record<string, unknown> = {}) {
  return new OpenBanking({
    clientId: 'hostile-client',
    clientSecret: 'hostile-secret',
    baseUrl: `${hostile.url}/openapi/v1`,
    authUrl: hostile.url,
    logLevel: 'off',
    maxRetries: 0,
    retryDelay: 0, sleep: async () => undefined,
    ...extra,
  });
}

const redirectTo = (status: number, path: string): Handler => (_req, res) => {
  res.writeHead(status, { location: `${recorder.url}${path}`, 'content-type': 'application/json' }).end('{"status":"00","message":"moved","data":{"card_id":"from-redirect","card_status":"ACTIVE"}}');
};

/** Writes `total` bytes of a JSON-looking body in 64 KiB chunks, honouring backpressure, stopping when the client goes. */
function hugeBody(total: number, declareLength: boolean): Handler {
  return (_req, res) => {
    written = 0;
    res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(total) } : {}) });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on('close', () => res.destroy());
    pump();
  };
}

describe('a hostile server (DESIGN.md "redirects", "response size")', () => {
  it('every misbehaviour ends in a typed error, sends nothing to a redirect target, and leaves the heap within 5 MB', async () => {
    const gc = exposeGc();
    // The first round also loads what the SDK loads lazily (the HTTP layer, schemas, OAuth): the
    // growth is measured over the second.
    await hostileRound();
    const before = await heapAfterGc(gc);
    await hostileRound();
    const growth = (await heapAfterGc(gc)) - before;
    expect(growth).toBeLessThan(5 * MB);
  }, 60_000);
});

/** One pass over every misbehaviour, each checked. */
async function hostileRound(): Promise<void> {
  recorded.length = 0;
  // 1. An API call answered with 307 and 308: ApiError with the status; the Location gets nothing.
  routes.set('POST /oauth2/token', tokenOk);
  for (const status of [301, 302, 303, 307, 308]) {
    routes.set('POST /openapi/v1/cards', redirectTo(status, '/openapi/v1/cards'));
    const error = await client().cards.create(validCard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(status);
    expect((error as ApiError).message).toMatch(/never follows redirects/);
  }
  // 2. The token endpoint redirects: OAuthError with the status.
  routes.set('POST /oauth2/token', redirectTo(307, '/oauth2/token'));
  const tokenError = await client().cards.create(validCard()).catch((e: unknown) => e);
  expect(tokenError).toBeInstanceOf(OAuthError);
  expect((tokenError as OAuthError).status).toBe(307);
  routes.set('POST /oauth/token', redirectTo(308, '/oauth/token'));
  const refreshError = await client().auth.refresh('rt-1').catch((e: unknown) => e);
  expect(refreshError).toBeInstanceOf(OAuthError);
  expect((refreshError as OAuthError).status).toBe(308);
  // 3. Registration redirects: OAuthError with the status.
  routes.set('POST /dcr', redirectTo(307, '/dcr'));
  const registration = await OpenBanking.register({ authUrl: hostile.url, username: 'u', password: 'registration-password', app_name: 'A', redirect_url: 'https://app.example/cb' }).catch((e: unknown) => e);
  expect(registration).toBeInstanceOf(OAuthError);
  expect((registration as OAuthError).status).toBe(307);
  expect(recorded).toEqual([]);

  // 4. A 20 MiB answer, streamed without a length and declared with one: ResponseTooLargeError, reading stopped.
  routes.set('POST /oauth2/token', tokenOk);
  for (const declared of [false, true]) {
    routes.set('POST /openapi/v1/cards', hugeBody(20 * MB, declared));
    const error = await client().cards.create(validCard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(isResponseTooLargeError(error)).toBe(true);
    expect((error as ResponseTooLargeError).limit).toBe(10 * MB);
    expect((error as ResponseTooLargeError).idempotencyKey).toBeTypeOf('string');
    expect(written).toBeLessThan(20 * MB);
  }
  // The same for a token answer and a registration answer, with a small limit.
  routes.set('POST /oauth2/token', hugeBody(2 * MB, false));
  await expect(client({ maxResponseBytes: 64 * 1024 }).cards.create(validCard())).rejects.toBeInstanceOf(ResponseTooLargeError);
  routes.set('POST /dcr', hugeBody(2 * MB, false));
  await expect(
    OpenBanking.register({ authUrl: hostile.url, maxResponseBytes: 64 * 1024, username: 'u', password: 'p', app_name: 'A', redirect_url: 'https://app.example/cb' }),
  ).rejects.toBeInstanceOf(ResponseTooLargeError);
  routes.set('POST /oauth2/token', tokenOk);

  // 5. `__proto__` members: kept as plain data, never a prototype.
  const proto = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';
  routes.set('POST /openapi/v1/cards', (_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(`{"status":"01","message":"bad","data":${proto}}`));
  const protoError = (await client().cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
  expect(protoError).toBeInstanceOf(ApiError);
  expect(Object.getPrototypeOf(protoError.data)).toBe(Object.prototype);
  expect((protoError.data as { polluted?: string }).polluted).toBeUndefined();
  expect(Object.keys(protoError.data as object)).toContain('__proto__');
  routes.set('POST /openapi/v1/cards', (_req, res) =>
    res.writeHead(201, { 'content-type': 'application/json' }).end(`{"status":"00","message":"ok","data":{"card_id":"c1","card_status":"ACTIVE","card_address":${proto},"__proto__":{"polluted":"yes"}}}`),
  );
  const card = await client().cards.create(validCard());
  expect(Object.getPrototypeOf(card)).toBe(Object.prototype);
  expect((card as { polluted?: string }).polluted).toBeUndefined();
  expect(({} as { polluted?: string }).polluted).toBeUndefined();

  // 6. A body that never ends: the attempt timeout covers reading it.
  routes.set('POST /openapi/v1/cards', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"status":"00","data":{');
  });
  await expect(client({ timeout: 300 }).cards.create(validCard())).rejects.toBeInstanceOf(TimeoutError);

  // 7. HTML instead of JSON: a 2xx is a ResponseValidationError, a 5xx an ApiError with the text.
  routes.set('POST /openapi/v1/cards', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx</body></html>'));
  await expect(client().cards.create(validCard())).rejects.toBeInstanceOf(ResponseValidationError);
  routes.set('POST /openapi/v1/cards', (_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>'));
  const html = (await client().cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
  expect(html).toBeInstanceOf(ApiError);
  expect(html.rawBody).toBe('<html>Bad gateway</html>');

  // 8. A 200 carrying an error envelope: not taken for a card.
  routes.set('POST /openapi/v1/cards', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"01","message":"Transaction failed","data":null}'));
  await expect(client().cards.create(validCard())).rejects.toBeInstanceOf(ResponseValidationError);

  expect(recorded).toEqual([]);
}
