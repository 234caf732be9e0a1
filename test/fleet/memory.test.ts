import { describe, expect, it } from 'vitest';
import { MemoryFleetStore, OpenBanking } from '../../src/index.js';
import { createSandbox } from '../../src/testing.js';
import { validCard } from '../support/cards.js';

// The in-memory FleetStore: clients of one process that share it act as one client, the same
// contract redisFleet gives processes. Sandbox in process; counts taken at the sandbox.
const card = (i: number) => validCard({ card_holder_name: `Ada ${i}` });

function setup() {
  const sandbox = createSandbox({ clients: [{ clientId: 'app', clientSecret: 'app-secret' }] });
  const fleet = new MemoryFleetStore();
  const client = (extra: Partial<ConstructorParameters<typeof OpenBanking>[0]> = {}) =>
    new OpenBanking({ clientId: 'app', clientSecret: 'app-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, fleet, logLevel: 'off', ...extra });
  return { sandbox, fleet, client };
}

/** The lock `key` is free: taking it succeeds (and it is handed back at once). */
async function expectUnlocked(fleet: MemoryFleetStore, key: string): Promise<void> {
  const owner = await fleet.lock(key, 1_000);
  expect(owner).toBeDefined();
  await fleet.unlock(key, owner!);
}

describe('MemoryFleetStore shared by several clients', () => {
  it('five clients, 20 calls at once: one client-credentials request', async () => {
    const { sandbox, client } = setup();
    const clients = Array.from({ length: 5 }, () => client());
    await Promise.all(clients.flatMap((ob, c) => Array.from({ length: 4 }, (_, i) => ob.cards.create(card(c * 4 + i)))));
    expect(sandbox.cards()).toHaveLength(20);
    expect(sandbox.requests.count({ path: '/oauth2/token' })).toBe(1);
  });

  it('sessions for one customer id in three clients, token expired: one refresh grant, onTokens once, all use the new set', async () => {
    const { sandbox, client } = setup();
    const issued = sandbox.issueTokens({ clientId: 'app', scope: ['customers.readonly'], kind: 'customer' });
    const expired = { ...issued, expires_at: Math.floor(Date.now() / 1000) - 10 };
    let onTokens = 0;
    const sessions = Array.from({ length: 3 }, () => client().forCustomer(expired, { id: 'customer-42', onTokens: () => void onTokens++ }));
    await Promise.all(sessions.map((s) => s.customers.retrieve()));
    expect(sandbox.requests.list({ path: '/oauth/token' }).map((r) => r.status)).toEqual([200]);
    expect(onTokens).toBe(1);
    expect(new Set(sessions.map((s) => s.tokens.access_token)).size).toBe(1);
    expect(sessions[0]!.tokens.access_token).not.toBe(issued.access_token);
  });

  it('sessions for one customer id started one after another, each once the one before released the lock: one refresh grant', async () => {
    const { sandbox, fleet, client } = setup();
    const lockKey = 'openbanking-ng:app:customer:customer-7:lock';
    const taken: string[] = [];
    const lock = fleet.lock.bind(fleet);
    fleet.lock = async (key, ttlMs) => {
      const owner = await lock(key, ttlMs);
      if (owner !== undefined) taken.push(key);
      return owner;
    };
    const issued = sandbox.issueTokens({ clientId: 'app', scope: ['customers.readonly'], kind: 'customer' });
    const expired = { ...issued, expires_at: Math.floor(Date.now() / 1000) - 10 };
    let onTokens = 0;
    const sessions = [];
    for (let i = 0; i < 3; i++) {
      // Each session starts from the same expired set, after the previous one refreshed and unlocked:
      // only the look at the store under the lock can tell it that the refresh is done.
      await expectUnlocked(fleet, lockKey);
      const session = client().forCustomer(expired, { id: 'customer-7', onTokens: () => void onTokens++ });
      await session.customers.retrieve();
      sessions.push(session);
    }
    // Each session took the free lock itself (none waited on another's): 3 by the sessions, 3 by the checks.
    expect(taken.filter((key) => key === lockKey)).toHaveLength(6);
    expect(sandbox.requests.list({ path: '/oauth/token' }).map((r) => r.status)).toEqual([200]);
    expect(onTokens).toBe(1);
    expect(new Set(sessions.map((s) => s.tokens.access_token))).toEqual(new Set([sessions[0]!.tokens.access_token]));
    expect(sessions[0]!.tokens.access_token).not.toBe(issued.access_token);
    expect(sandbox.requests.count({ path: '/openapi/v1/customers', method: 'GET' })).toBe(3);
  });

  it('a client whose first look missed the token another client then stored and unlocked: the look under the lock finds it, no second grant', async () => {
    const { sandbox, fleet, client } = setup();
    await client().cards.create(card(0));
    expect(sandbox.requests.count({ path: '/oauth2/token' })).toBe(1);
    await expectUnlocked(fleet, 'openbanking-ng:app:cards.create:lock');
    // The second client's first read of the token was answered before the first client stored it
    // (as from a Redis that answers late): a miss, though the token is there by the time it locks.
    const reads: string[] = [];
    let missed = false;
    const late = new Proxy(fleet, {
      get(target, name) {
        if (name === 'get') {
          return async (key: string) => {
            reads.push(key);
            if (!missed && key.endsWith(':cards.create')) {
              missed = true;
              return undefined;
            }
            return target.get(key);
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    await client({ fleet: late }).cards.create(card(1));
    expect(missed).toBe(true);
    // Read again under the lock: the stored token is used, not a second grant.
    expect(sandbox.requests.count({ path: '/oauth2/token' })).toBe(1);
    expect(reads.filter((key) => key.endsWith(':cards.create')).length).toBeGreaterThanOrEqual(2);
    expect(sandbox.cards()).toHaveLength(2);
  });

  it('one budget: two clients with rateLimit share one bucket (a tenth of the burst held back)', async () => {
    const { sandbox, client } = setup();
    const waits: number[] = [];
    const sleep = (ms: number) => (waits.push(ms), Promise.resolve());
    const limit = { rate: 60, burst: 10, maxWait: 0 };
    const [a, b] = [client({ rateLimit: limit, sleep, now: () => 1_000 }), client({ rateLimit: limit, sleep, now: () => 1_000 })];
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).cards.create(card(i))));
    // 10 in the bucket, 1 held back: 9 leave, the rest are refused before sending (maxWait 0).
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(9);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.name)).toEqual(Array(3).fill('RateLimitError'));
    expect(sandbox.cards()).toHaveLength(9);
    expect(waits).toEqual([]);
  });
});
