import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aesGcmCipher, ConnectionError, type FleetStore, MemoryFleetStore, OpenBanking, RateLimitError, type TokenSet } from '../../src/index.js';
import { redisFleet } from '../../src/redis.js';
import { createSandbox, type Sandbox } from '../../src/testing.js';
import { validCard } from '../support/cards.js';
import { startRedis, useRedis } from './support.js';

// What a fleet guarantees, against a real redis-server: customer refresh never fails open, values
// in Redis are sealed and planted ones ignored, customer ids cannot name other keys, and a store
// cannot park a call for longer than the limiter allows.

const SECRET = 'app-secret-for-the-fleet';
const card = () => validCard();

const shared = useRedis();
const connect = () => shared.connect();

/** A client of `sandbox` on a fleet (`store`), with a short timeout so that the lock lives 2 s. */
function fleetClient(sandbox: Sandbox, store: FleetStore, extra: Partial<ConstructorParameters<typeof OpenBanking>[0]> = {}) {
  return new OpenBanking({ clientId: 'app', clientSecret: SECRET, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, fleet: store, timeout: 1_000, logLevel: 'off', ...extra });
}

function newSandbox() {
  return createSandbox({ clients: [{ clientId: 'app', clientSecret: SECRET }] });
}

function expiredCustomerTokens(sandbox: Sandbox): TokenSet {
  const issued = sandbox.issueTokens({ clientId: 'app', scope: ['customers.readonly'], kind: 'customer' });
  return { ...issued, expires_at: Math.floor(Date.now() / 1000) - 10 };
}

/** `store` with its first `lock` answered after `ms` (the SET NX lands late, as on a slow Redis). */
function slowFirstLock(store: FleetStore, ms: number): FleetStore {
  let first = true;
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'lock') {
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return async (key: string, ttlMs: number) => {
        if (first) {
          first = false;
          await new Promise((resolve) => setTimeout(resolve, ms));
        }
        return target.lock(key, ttlMs);
      };
    },
  });
}

describe('fleet security (real redis-server)', () => {
  it('1. a slow Redis answer never makes a customer refresh fail open: one refresh grant, the late lock released', async () => {
    const sandbox = newSandbox();
    const prefix = 'slow-lock';
    const tokens = expiredCustomerTokens(sandbox);
    const a = fleetClient(sandbox, slowFirstLock(redisFleet(await connect(), { prefix }), 300)).forCustomer(tokens, { id: 'customer-42' });
    const b = fleetClient(sandbox, redisFleet(await connect(), { prefix })).forCustomer(tokens, { id: 'customer-42' });
    await Promise.all([a.customers.retrieve(), b.customers.retrieve()]);
    // Both sessions use the one rotated set; the refresh token was redeemed once.
    expect(sandbox.requests.list({ path: '/oauth/token' }).map((r) => r.status)).toEqual([200]);
    expect(a.tokens.access_token).toBe(b.tokens.access_token);
    expect(a.tokens.access_token).not.toBe(tokens.access_token);
    // The lock request that timed out landed later, and was released (or never taken): no lock is left.
    const probe = await connect();
    await expect.poll(() => probe.keys(`${prefix}:*:lock`)).toEqual([]);
  });

  it('1. Redis down: a customer refresh waits up to the lock TTL, then rejects with ConnectionError, sends no grant, keeps its tokens', async () => {
    const sandbox = newSandbox();
    const own = await startRedis();
    const c = createClient({ url: own.url, socket: { reconnectStrategy: () => 50 } });
    c.on('error', () => undefined);
    await c.connect();
    const ob = fleetClient(sandbox, redisFleet(c, { prefix: 'down' }));
    const tokens = expiredCustomerTokens(sandbox);
    const session = ob.forCustomer(tokens, { id: 'customer-7' });
    await own.stop();
    try {
      const error = await session.customers.retrieve().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(/shared store/);
      expect(sandbox.requests.count({ path: '/oauth/token' })).toBe(0);
      expect(session.tokens.refresh_token).toBe(tokens.refresh_token);
      // Client-credentials tokens still fall back: a card goes out while Redis is down.
      await ob.cards.create(card());
      expect(sandbox.cards()).toHaveLength(1);
      // Back again: the next call refreshes once and goes on.
      await own.start();
      await session.customers.retrieve();
      expect(sandbox.requests.list({ path: '/oauth/token' }).map((r) => r.status)).toEqual([200]);
    } finally {
      await c.quit().catch(() => undefined);
      await own.stop();
    }
  }, 20_000);

  it('1. a lock answer that cannot be read never makes a customer refresh fail open: ConnectionError after the lock TTL, no grant, tokens kept', async () => {
    // A node-redis client whose SET NX answers something that is neither OK nor nil, and stores
    // whose lock resolves to something that is not an owner string.
    const real = await connect();
    const garbled = { isOpen: true, sendCommand: (args: string[]) => (args[0] === 'SET' && args.includes('NX') ? Promise.resolve(1) : real.sendCommand(args)) };
    const unreadable = (answer: unknown) => {
      const store = new MemoryFleetStore();
      store.lock = () => Promise.resolve(answer as string);
      return store;
    };
    const stores: FleetStore[] = [redisFleet(garbled as never, { prefix: 'garbled-lock' }), ...[1, true, '', {}].map(unreadable)];
    await Promise.all(
      stores.map(async (store) => {
        const sandbox = newSandbox();
        const tokens = expiredCustomerTokens(sandbox);
        const session = fleetClient(sandbox, store, { timeout: 200 }).forCustomer(tokens, { id: 'customer-3' });
        const error = await session.customers.retrieve().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConnectionError);
        expect(sandbox.requests.count({ path: '/oauth/token' })).toBe(0);
        expect(session.tokens.refresh_token).toBe(tokens.refresh_token);
      }),
    );
  });

  it('1. a stored set that cannot be read never lets the lock holder redeem an older refresh token: ConnectionError, no second grant', async () => {
    const sandbox = newSandbox();
    const store = new MemoryFleetStore();
    const tokens = expiredCustomerTokens(sandbox);
    // A refreshes and stores the rotated set; B's reads of that set come back as something that is no string.
    const a = fleetClient(sandbox, store).forCustomer(tokens, { id: 'customer-8' });
    await a.customers.retrieve();
    const garbled = new Proxy(store, {
      get(target, name) {
        if (name === 'get') return (key: string) => (key.endsWith(':customer:customer-8') ? Promise.resolve(42 as never) : target.get(key));
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const b = fleetClient(sandbox, garbled, { timeout: 200 }).forCustomer(tokens, { id: 'customer-8' });
    const error = await b.customers.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(sandbox.requests.list({ path: '/oauth/token' }).map((r) => r.status)).toEqual([200]);
    expect(b.consent.state).toBe('active');
  });

  it('2. every value the SDK writes to Redis is sealed: GET of any SDK key shows no token, no JSON, no ciphertext', async () => {
    const sandbox = newSandbox();
    const prefix = 'sealed';
    const ob = fleetClient(sandbox, redisFleet(await connect(), { prefix }), { rateLimit: { rate: 6_000, burst: 100 } });
    const tokens = expiredCustomerTokens(sandbox);
    const session = ob.forCustomer(tokens, { id: 'customer-9' });
    await session.customers.retrieve();
    await ob.cards.create(card());
    const probe = await connect();
    const keys = (await probe.keys(`${prefix}:*`)).filter((k) => !k.endsWith(':rate'));
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) {
      const value = (await probe.get(key))!;
      expect(value).toMatch(/^v1\.[\w-]+$/);
      for (const secret of [session.tokens.access_token, session.tokens.refresh_token!, tokens.refresh_token!, 'access_token', 'refresh_token']) expect(value).not.toContain(secret);
    }
  });

  it('2. a token set planted by hand in Redis is ignored: no planted bearer is sent, no planted refresh token redeemed', async () => {
    const sandbox = newSandbox();
    const prefix = 'planted';
    const probe = await connect();
    const planted = (access: string, refresh?: string) =>
      JSON.stringify({ access_token: access, token_type: 'Bearer', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600, ...(refresh ? { refresh_token: refresh } : {}), scope: 'cards.create' });
    await probe.set(`${prefix}:openbanking-ng:app:cards.create`, planted('ATTACKER_TOKEN'), { PX: 60_000 });
    await probe.set(`${prefix}:openbanking-ng:app:customer:customer-5`, planted('ATTACKER_CUSTOMER', 'ATTACKER_REFRESH'), { PX: 60_000 });
    const seen: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      seen.push(request.headers.get('authorization') ?? '', await request.clone().text());
      return sandbox(request);
    };
    const ob = fleetClient(sandbox, redisFleet(probe, { prefix }), { fetch: recording });
    await ob.cards.create(card());
    const session = ob.forCustomer(expiredCustomerTokens(sandbox), { id: 'customer-5' });
    await session.customers.retrieve();
    expect(seen.join('\n')).not.toMatch(/ATTACKER/);
    expect(session.tokens.access_token).not.toMatch(/ATTACKER/);
    // Every API request was accepted at once: the planted token was never tried.
    expect(sandbox.requests.list({ path: /\/openapi\/v1\// }).map((r) => r.status)).toEqual([201, 200]);
  });

  it('4. customer ids are escaped in store keys: the session "alice:lock" cannot write onto customer alice\'s lock', async () => {
    const sandbox = newSandbox();
    const prefix = 'escaped';
    const ob = fleetClient(sandbox, redisFleet(await connect(), { prefix }));
    await ob.forCustomer(expiredCustomerTokens(sandbox), { id: 'alice:lock' }).customers.retrieve();
    const probe = await connect();
    expect(await probe.keys(`${prefix}:*customer*`)).toEqual([`${prefix}:openbanking-ng:app:customer:alice%3Alock`]);
    // Customer alice's refresh is not held up by the other session's set.
    const alice = ob.forCustomer(expiredCustomerTokens(sandbox), { id: 'alice' });
    await alice.customers.retrieve();
    expect(sandbox.requests.list({ path: '/oauth/token' }).map((r) => r.status)).toEqual([200, 200]);
  });
});

describe('caller-chosen parts of store keys (real redis-server)', () => {
  it('4. an idempotency key is escaped in the ciphertext key: "order-7:lock" cannot name a lock or another key', async () => {
    const sandbox = createSandbox({ clients: [{ clientId: 'app', clientSecret: SECRET }], cipher: aesGcmCipher(SECRET) });
    const prefix = 'escaped-key';
    const ob = fleetClient(sandbox, redisFleet(await connect(), { prefix }), { cipher: aesGcmCipher(SECRET) });
    await ob.cards.create(card(), { idempotencyKey: 'order-7:lock' });
    const probe = await connect();
    expect(await probe.keys(`${prefix}:*ciphertext*`)).toEqual([`${prefix}:openbanking-ng:app:ciphertext:order-7%3Alock:card_default_pin`]);
    // A retry with the key from a second client of the fleet re-sends the same bytes: the sandbox replays.
    const again = await fleetClient(sandbox, redisFleet(await connect(), { prefix }), { cipher: aesGcmCipher(SECRET) }).cards.create(card(), { idempotencyKey: 'order-7:lock' }).withResponse();
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(sandbox.cards()).toHaveLength(1);
  });
});

describe('a store asking for a wait', () => {
  it('8. a take answer that cannot be read: the call goes on with the in-process budget, one warn line, refusals are RateLimitError', async () => {
    for (const answer of [undefined, null, { granted: true, wait: 'soon' }, { granted: 1, wait: 0 }, { granted: false }, { granted: true, wait: -1 }]) {
      const sandbox = newSandbox();
      const store = new MemoryFleetStore();
      store.take = () => Promise.resolve(answer as never);
      const warns: string[] = [];
      const ob = fleetClient(sandbox, store, {
        rateLimit: { rate: 60, burst: 10, maxWait: 0 },
        now: () => 1_000,
        logger: { debug() {}, info() {}, warn: (message: string) => void warns.push(message), error() {} },
        logLevel: 'warn',
      });
      const results = await Promise.allSettled(Array.from({ length: 12 }, () => ob.cards.create(card())));
      // The in-process bucket: 10 units, one held back, no wait allowed: 9 leave, 3 are refused unsent.
      expect(results.filter((r) => r.status === 'fulfilled'), JSON.stringify(answer)).toHaveLength(9);
      for (const r of results.filter((r) => r.status === 'rejected')) {
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(RateLimitError);
        expect((r as PromiseRejectedResult).reason.retryAfter).toBeGreaterThan(0);
      }
      expect(sandbox.cards()).toHaveLength(9);
      expect(warns, JSON.stringify(answer)).toHaveLength(1);
      expect(warns[0]).toMatch(/shared store failed .*unreadable answer/);
    }
  });

  it('8. a wait the store asks for is capped at the limiter\'s maxWait', async () => {
    const sandbox = newSandbox();
    const hostile = new MemoryFleetStore();
    hostile.take = () => Promise.resolve({ granted: true, wait: 14 * 24 * 60 * 60 * 1000 });
    const waits: number[] = [];
    const ob = fleetClient(sandbox, hostile, { rateLimit: { rate: 60, burst: 10, maxWait: 5_000 }, sleep: async (ms: number) => void waits.push(ms) });
    await ob.cards.create(card());
    expect(waits).toEqual([5_000]);
    expect(sandbox.cards()).toHaveLength(1);
  });
});
