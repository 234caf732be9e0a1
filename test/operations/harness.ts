// A table-driven suite for typed operations: each case runs over the sandbox's HTTP server (happy
// path, bad input refused unsent, the scope, the token kind) and under msw (method, encoded path,
// headers on the wire). Namespace test files declare their cases and add what is particular.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CustomerSession, OPERATION_SCOPES, type OpenBanking, type OperationName, PermissionDeniedError, ValidationError } from '../../src/index.js';
import { startSandboxServer, type SandboxServer } from '../../src/testing.js';
import { clientFor } from '../sandbox/support.js';
import { BASE, http, HttpResponse, SECRET, testClient, tokenHandler, useMsw } from '../support/msw.js';

/** A client or a customer session: both carry every namespace. */
export type Target = OpenBanking | CustomerSession;

export interface OperationCase {
  name: OperationName;
  token: 'client' | 'customer' | 'both';
  /** A call the sandbox accepts. */
  call(t: Target): Promise<unknown>;
  /** What that call resolves to, checked. */
  check?(data: unknown): void;
  /** A call with bad input: must reject with ValidationError before anything is sent. */
  bad(t: Target): Promise<unknown>;
  /** The ValidationError issue path the bad call must name. */
  badPath: string;
  /** A call with path parameters that need encoding, for the msw test. */
  wire(t: Target): Promise<unknown>;
  /** The method and raw (encoded) path the wire call must send, under the base path. */
  method: string;
  path: string;
  /** `data` the msw handler answers with. */
  data: unknown;
}

const APP = { clientId: 'ops-app', clientSecret: 'ops-secret-ÆØ-1' };
const later = () => Math.floor(Date.now() / 1000) + 3600;
const ALL_SCOPES = [...new Set(Object.values(OPERATION_SCOPES).flat())];

/** The sandbox over real HTTP, a client, and customer sessions minted by the sandbox. */
export function useSandbox() {
  const env = {} as {
    server: SandboxServer;
    tokenScopes: string[];
    client(): OpenBanking;
    session(scopes?: readonly string[], ob?: OpenBanking): CustomerSession;
  };
  beforeAll(async () => {
    env.server = await startSandboxServer({ seed: 'operations', clients: [APP] });
    env.tokenScopes = [];
    env.client = () =>
      clientFor(env.server, APP, {
        fetch: async (input, init) => {
          const request = new Request(input, init);
          if (request.url.endsWith('/oauth2/token')) env.tokenScopes.push(new URLSearchParams(await request.clone().text()).get('scope') ?? '');
          return fetch(request);
        },
      }).ob;
    env.session = (scopes = ALL_SCOPES, ob = env.client()) => ob.forCustomer({ ...env.server.issueTokens({ clientId: APP.clientId, scope: scopes, kind: 'customer' }), expires_at: later() });
  });
  afterAll(() => env.server.close());
  return env;
}

/** Runs the table's cases over the sandbox and under msw. */
export function describeOperations(namespace: string, cases: readonly OperationCase[]) {
  describe(`${namespace} over the sandbox's HTTP server`, () => {
    const env = useSandbox();
    for (const c of cases) {
      const scopes = OPERATION_SCOPES[c.name];
      it(`${c.name}: resolves to typed data (${c.token} token, scope ${scopes.join(' ')})`, async () => {
        const target = c.token === 'client' ? env.client() : env.session(scopes);
        const data = await c.call(target);
        c.check?.(data);
      });

      it(`${c.name}: bad input rejects with ValidationError and sends nothing`, async () => {
        const ob = env.client();
        const target = c.token === 'customer' ? env.session(scopes, ob) : ob;
        const before = env.server.requests.count();
        const error = await c.bad(target).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues.map((i) => i.path)).toContain(c.badPath);
        expect(env.server.requests.count()).toBe(before);
      });

      if (c.token === 'client') {
        it(`${c.name}: asks the token endpoint for ${scopes.join(' ')}, also on a customer session`, async () => {
          env.tokenScopes.length = 0;
          const ob = env.client();
          await c.call(ob);
          await c.call(env.session([], ob)); // a customer token without any scope: the client token is used
          expect(env.tokenScopes).toEqual([scopes.join(' ')]);
        });
      } else {
        it(`${c.name}: a customer token without ${scopes.join(' ')} is refused before sending (scope_not_granted), and by the sandbox (403) when the set names no scope`, async () => {
          const others = ALL_SCOPES.filter((s) => !scopes.includes(s as never));
          const before = env.server.requests.count();
          await expect(c.call(env.session(others))).rejects.toMatchObject({ name: 'ValidationError', issues: [{ code: 'scope_not_granted' }] });
          expect(env.server.requests.count()).toBe(before);
          const { scope: _scope, ...unnamed } = env.session(others).tokens;
          await expect(c.call(env.client().forCustomer(unnamed))).rejects.toBeInstanceOf(PermissionDeniedError);
        });
      }
      if (c.token === 'customer') {
        it(`${c.name}: on the client it rejects with customer_token_required and sends nothing`, async () => {
          const ob = env.client();
          const before = env.server.requests.count();
          const error = await c.call(ob).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).issues[0]?.code).toBe('customer_token_required');
          expect(env.server.requests.count()).toBe(before);
        });
      }
      if (c.token === 'both') {
        it(`${c.name}: client credentials on ob, the customer's token on a session`, async () => {
          env.tokenScopes.length = 0;
          const ob = env.client();
          await c.call(env.session(scopes, ob));
          expect(env.tokenScopes).toEqual([]);
          await c.call(ob);
          expect(env.tokenScopes).toEqual([scopes.join(' ')]);
        });
      }
    }
  });

  describe(`${namespace} on the wire (msw)`, () => {
    const server = useMsw();
    for (const c of cases) {
      it(`${c.name}: ${c.method} ${c.path}, encoded, with the signed headers`, async () => {
        const seen: Array<{ method: string; url: string; headers: Headers; body: string }> = [];
        const tokens = { tokenRequests: [] };
        server.use(
          tokenHandler(tokens),
          http.all(`${BASE}/*`, async ({ request }) => {
            seen.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
            return HttpResponse.json({ status: '00', message: 'ok', data: c.data });
          }),
        );
        const { ob } = testClient();
        const target = c.token === 'client' ? ob : ob.forCustomer({ access_token: 'customer-at', token_type: 'Bearer', expires_in: 3600, expires_at: later() });
        await c.wire(target);
        expect(seen).toHaveLength(1);
        const [sent] = seen;
        expect(sent!.method).toBe(c.method);
        expect(sent!.url.slice(BASE.length).split('?')[0]).toBe(c.path);
        expect(sent!.headers.get('authorization')).toBe(c.token === 'client' ? 'Bearer token-1' : 'Bearer customer-at');
        const key = sent!.headers.get('idempotency-key')!;
        expect(key).toMatch(/^[0-9a-f-]{36}$/);
        expect(sent!.headers.get('signature')).toBe(createHash('sha256').update(`${SECRET};${key}`).digest('hex'));
        if (c.method !== 'GET') {
          expect(sent!.headers.get('content-type')).toMatch(/^application\/json/);
          expect(() => JSON.parse(sent!.body)).not.toThrow();
        }
      });
    }
  });
}

/** An msw answer with `data` for one path, and the client to call it: for the tolerance tests. */
export function answerWith(server: ReturnType<typeof useMsw>, data: unknown) {
  server.use(tokenHandler({ tokenRequests: [] }), http.all(`${BASE}/*`, () => HttpResponse.json({ status: 'success', message: 'ok', data })));
  const { ob } = testClient();
  return { ob, session: ob.forCustomer({ access_token: 'customer-at', token_type: 'Bearer', expires_in: 3600, expires_at: later() }) };
}
