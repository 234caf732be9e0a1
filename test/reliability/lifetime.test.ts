import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, ConnectionError, ConsentEndedError, OAuthError, OpenBanking, OpenBankingError, type ClientOptions } from '../../src/index.js';
import { createManualClock, createSandbox, startSandboxServer, type Sandbox } from '../../src/testing.js';
import { CARDS, validCard } from './support.js';

const TOKEN = '/oauth2/token';

// Every rejection that nobody handled, anywhere in this file.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** A client on the sandbox's fetch handler; `gate` holds token requests until released. */
function setup(options: { sandbox?: Parameters<typeof createSandbox>[0]; client?: Partial<ClientOptions> } = {}) {
  const sandbox = createSandbox({ seed: 'lifetime', clients: [{ clientId: 'life-app', clientSecret: 'life-secret' }], ...options.sandbox });
  let release: () => void = () => undefined;
  let gate: Promise<void> | undefined;
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (gate && url.endsWith(TOKEN)) await gate;
    return sandbox(input as Request, init);
  };
  const ob = new OpenBanking({
    clientId: 'life-app',
    clientSecret: 'life-secret',
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    fetch: fetcher as typeof fetch,
    logLevel: 'off',
    retryDelay: 0, sleep: async () => undefined,
    ...options.client,
  });
  return {
    sandbox,
    ob,
    /** Holds the next token requests until `open()` is called. */
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    open() {
      gate = undefined;
      release();
    },
  };
}

const tokenRequests = (sandbox: Sandbox) => sandbox.requests.count({ path: TOKEN, method: 'POST' });
const apiRequests = (sandbox: Sandbox) => sandbox.requests.count({ path: CARDS, method: 'POST' });
const settle = <T>(promise: Promise<T>) => promise.then((value) => ({ value }), (error: unknown) => ({ error }));

describe('tokens under concurrency', () => {
  it('token expiry during a burst: the cache renews ahead of expiry, one token request per renewal, no 401', async () => {
    const clock = createManualClock();
    const lifetime = 60; // seconds; renewed when less than min(30 s, 10 %) = 6 s remain
    const sandbox = createSandbox({ seed: 'burst', now: clock.now, tokenLifetime: lifetime, clients: [{ clientId: 'burst-app', clientSecret: 'burst-secret' }] });
    const ob = new OpenBanking({
      clientId: 'burst-app',
      clientSecret: 'burst-secret',
      baseUrl: sandbox.baseUrl,
      authUrl: sandbox.authUrl,
      logLevel: 'off',
      now: clock.now,
      sleep: clock.sleep,
      // Time moves 200 ms with every API request, while 25 calls are in flight.
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        if ((input instanceof Request ? input.url : String(input)).endsWith('/cards')) clock.advance(200);
        return sandbox(input as Request, init);
      }) as typeof fetch,
    });
    const calls = 1_500;
    let next = 0;
    const results: unknown[] = [];
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (next < calls) {
          next++;
          results.push(await ob.cards.create(validCard()).catch((e: unknown) => e));
        }
      }),
    );
    const tokenTimes = sandbox.requests.list({ path: TOKEN }).map((r) => r.at);
    const gaps = tokenTimes.slice(1).map((t, i) => t - tokenTimes[i]!);
    console.log(`token expiry mid-burst: ${calls} calls over ${(calls * 0.2).toFixed(0)} s of clock, tokens of ${lifetime} s → ${tokenTimes.length} token requests, gaps ${gaps.map((g) => `${g / 1000} s`).join(', ')}, 401s ${sandbox.requests.list(CARDS).filter((r) => r.status === 401).length}`);
    expect(results.filter((r) => r instanceof Error)).toEqual([]);
    expect(sandbox.requests.list(CARDS).filter((r) => r.status !== 201)).toEqual([]);
    expect(apiRequests(sandbox)).toBe(calls);
    // One renewal every (lifetime − margin) of clock: 300 s / 54 s → 6 token requests, never two at once.
    expect(tokenTimes.length).toBe(Math.ceil((calls * 200) / ((lifetime - 6) * 1000)));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual((lifetime - 6) * 1000);
  });

  it('a token request that fails while 20 calls wait: all 20 reject typed, each with its own key; the next call tries again', async () => {
    for (const fault of [{ type: 'status', status: 503 }, { type: 'drop' }, { type: 'response', status: 401, body: { error: 'invalid_client' } }] as const) {
      const t = setup();
      t.sandbox.faults.inject({ path: TOKEN, fault });
      t.hold();
      const keys = Array.from({ length: 20 }, (_, i) => `wait-${fault.type}-${i}`);
      const pending = keys.map((idempotencyKey) => settle(t.ob.cards.create(validCard(), { idempotencyKey })));
      t.open();
      const results = await Promise.all(pending);
      expect(tokenRequests(t.sandbox)).toBe(1);
      expect(apiRequests(t.sandbox)).toBe(0);
      const errors = results.map((r) => (r as { error: OpenBankingError }).error);
      const expected = fault.type === 'drop' ? ConnectionError : OAuthError;
      for (const [i, error] of errors.entries()) {
        expect(error).toBeInstanceOf(expected);
        expect(error.idempotencyKey).toBe(keys[i]);
      }
      await expect(t.ob.cards.create(validCard())).resolves.toMatchObject({ card_id: expect.stringMatching(/^card_/) });
      expect(tokenRequests(t.sandbox)).toBe(2);
    }
  });

  it('aborting one of 20 calls that share a token request rejects only that one', async () => {
    const t = setup();
    t.hold();
    const controller = new AbortController();
    const calls = Array.from({ length: 20 }, (_, i) => settle(t.ob.cards.create(validCard(), { idempotencyKey: `share-${i}`, ...(i === 7 ? { signal: controller.signal } : {}) })));
    controller.abort();
    t.open();
    const results = await Promise.all(calls);
    const aborted = results[7] as { error: AbortError };
    expect(aborted.error).toBeInstanceOf(AbortError);
    expect(aborted.error.idempotencyKey).toBe('share-7');
    expect(results.filter((r) => 'value' in r)).toHaveLength(19);
    expect(tokenRequests(t.sandbox)).toBe(1);
    expect(apiRequests(t.sandbox)).toBe(19);
    expect(t.sandbox.requests.list(CARDS).some((r) => r.idempotencyKey === 'share-7')).toBe(false);
  });

  it('a customer session whose refresh fails rejects every waiting call with its own error and key', async () => {
    const t = setup();
    const tokens = t.sandbox.issueTokens({ clientId: 'life-app', scope: ['cards.create'], expiresIn: 1 });
    t.sandbox.faults.inject({ path: '/oauth/token', fault: { type: 'drop' } });
    const customer = t.ob.forCustomer({ ...tokens, expires_at: Math.floor(Date.now() / 1000) - 1 });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => settle(customer.request({ method: 'POST', path: '/cards', body: validCard() }, { idempotencyKey: `cust-${i}` }))),
    );
    const errors = results.map((r) => (r as { error: OpenBankingError }).error);
    expect(t.sandbox.requests.count('/oauth/token')).toBe(1);
    for (const [i, error] of errors.entries()) {
      // The connection dropped after the grant was sent: the token may be spent, the session ends.
      expect(error).toBeInstanceOf(ConsentEndedError);
      expect((error as ConsentEndedError).reason).toBe('refresh_unconfirmed');
      expect(error.idempotencyKey).toBe(`cust-${i}`);
    }
  });
});

describe('lifetime', () => {
  it('no timers, sockets or servers left once the calls settle and the sandbox server closes', async () => {
    const count = () => {
      const out: Record<string, number> = {};
      for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
      return out;
    };
    const before = count();
    const server = await startSandboxServer({ seed: 'handles' });
    const app = server.registerClient();
    const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: server.baseUrl, authUrl: server.authUrl, logLevel: 'off', retryDelay: 0, sleep: async () => undefined });
    server.faults.inject({ path: CARDS, times: 20, probability: 0.5, fault: [{ type: 'status', status: 503 }, { type: 'drop' }, { type: 'truncate' }] });
    const controller = new AbortController();
    const pending = [
      ...Array.from({ length: 40 }, () => settle(ob.cards.create(validCard()))),
      settle(ob.cards.create(validCard(), { signal: controller.signal, timeout: 5_000 })),
      settle(ob.cards.create({ ...validCard(), card_status: 'NOPE' } as never)),
    ];
    controller.abort();
    const results = await Promise.all(pending);
    expect(results.filter((r) => 'error' in r && !(r.error instanceof OpenBankingError))).toEqual([]);
    expect((results[40] as { error: unknown }).error).toBeInstanceOf(AbortError);
    await server.close();
    // Sockets close on the next turns of the event loop; bounded wait, no timers of our own.
    let after = count();
    for (let i = 0; i < 200 && (after.TCPSocketWrap ?? 0) > (before.TCPSocketWrap ?? 0); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      after = count();
    }
    console.log(`active resources before ${JSON.stringify(before)}, after close ${JSON.stringify(after)}`);
    // The kinds the SDK and the sandbox could leave behind (the test runner keeps pipes of its own).
    for (const kind of ['Timeout', 'Immediate', 'TCPServerWrap', 'TCPSocketWrap', 'TCPWRAP', 'GetAddrInfoReqWrap']) {
      expect(after[kind] ?? 0, kind).toBeLessThanOrEqual(before[kind] ?? 0);
    }
  });
});
