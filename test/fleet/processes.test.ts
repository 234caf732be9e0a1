import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { aesGcmCipher } from '../../src/index.js';
import { type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { buildWorker, runWorkers, startRedis, startWorker, type TestRedis } from './support.js';
import type { WorkerTask } from './worker.js';

// Real processes (child processes running test/fleet/worker.ts) sharing a real redis-server
// started here, against the sandbox over HTTP in this process; once with each Redis client.
const SECRET = 'fleet-secret-0123456789abcdef';
const CARDS = '/openapi/v1/cards';
const TOKEN = '/oauth2/token';

describe.each(['redis', 'ioredis'] as const)('a fleet of processes on Redis (%s)', (clientKind) => {
  let redis: TestRedis;
  let server: SandboxServer;
  let prefix: string;
  let run = 0;

  beforeAll(async () => {
    [redis] = await Promise.all([startRedis(), buildWorker()]);
    server = await startSandboxServer({ clients: [{ clientId: 'fleet-app', clientSecret: SECRET }], cipher: aesGcmCipher(SECRET), seed: `fleet-${clientKind}` });
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    await redis?.stop();
  });
  beforeEach(() => {
    server.reset();
    prefix = `t${++run}-${clientKind}`; // a fresh namespace per test: nothing shared between tests
  });

  const task = (extra: Partial<WorkerTask>): WorkerTask => ({
    task: 'cards',
    client: clientKind,
    redisPort: redis.port,
    prefix,
    clientId: 'fleet-app',
    clientSecret: SECRET,
    baseUrl: server.baseUrl,
    authUrl: server.authUrl,
    ...extra,
  });

  it('8 processes starting together make exactly one client-credentials request per scope set', async () => {
    const runs = await runWorkers(8, () => task({ calls: 1, alsoList: true }));
    for (const r of runs) expect(r.result, r.stderr).toMatchObject({ errors: [] });
    expect(server.requests.count({ path: CARDS, method: 'POST' })).toBe(8);
    expect(server.requests.count({ path: CARDS, method: 'GET' })).toBe(8);
    // Two scope sets (cards.create, cards.list): two token requests for the whole fleet.
    expect(server.requests.count({ path: TOKEN, method: 'POST' }), JSON.stringify(runs.flatMap((r) => r.logs))).toBe(2);
  });

  it('8 processes with sessions for one customer id and an expired token: one refresh grant, no invalid_grant, onTokens once', async () => {
    const issued = server.issueTokens({ clientId: 'fleet-app', scope: ['customers.readonly'], kind: 'customer' });
    const tokens = { ...issued, expires_at: Math.floor(Date.now() / 1000) - 10 }; // expired for the SDK
    const runs = await runWorkers(8, () => task({ task: 'refresh', tokens, customerId: 'customer-42' }));
    for (const r of runs) expect(r.result, r.stderr).toMatchObject({ ok: true });
    const refreshes = server.requests.list({ path: '/oauth/token', method: 'POST' });
    expect(refreshes.map((r) => r.status)).toEqual([200]);
    expect(runs.reduce((sum, r) => sum + Number(r.result!.onTokens), 0)).toBe(1);
    expect(new Set(runs.map((r) => r.result!.accessToken)).size).toBe(1);
    expect(server.requests.count({ path: '/openapi/v1/customers', method: 'GET' })).toBe(8);
  });

  it('4 processes × 25 cards.create under the production limits: no 429, and each minute of the sandbox clock carries what the budget allows', { timeout: 60_000 }, async () => {
    // Accelerated clock (×30) shared by the sandbox and the workers: a budget minute lasts two real seconds.
    const factor = 30;
    const t0 = Date.now();
    const now = () => t0 + (Date.now() - t0) * factor;
    const limited = await startSandboxServer({ environment: 'production', rateLimits: true, now, clients: [{ clientId: 'fleet-app', clientSecret: SECRET }], cipher: aesGcmCipher(SECRET) });
    try {
      const runs = await runWorkers(4, () => ({ ...task({ calls: 25, clock: { t0, factor }, rateLimit: true, environment: 'production' }), baseUrl: limited.baseUrl, authUrl: limited.authUrl }));
      for (const r of runs) expect(r.result, r.stderr).toMatchObject({ errors: [] });
      const arrivals = limited.requests.list({ path: CARDS, method: 'POST' });
      expect(arrivals.filter((r) => r.status === 429), JSON.stringify(runs.flatMap((r) => r.logs.filter((l) => l.level === 'warn')))).toHaveLength(0);
      expect(arrivals).toHaveLength(100);
      // Arrival times on the sandbox's clock, from the first call the provider saw (where its budget starts).
      const at = arrivals.map((r) => r.at).sort((a, b) => a - b);
      const since = at.map((t) => t - at[0]!);
      const minutes = Math.ceil((since.at(-1)! + 1) / 60_000);
      const perMinute = Array.from({ length: minutes }, (_, k) => since.filter((t) => t >= k * 60_000 && t < (k + 1) * 60_000).length);
      console.log(`fleet under the production limits (${clientKind}): arrivals per minute of the sandbox clock ${perMinute.join(', ')}`);
      // The provider's budget: 20 at once, then 10 a minute. No stretch between two arrivals holds
      // more than that (so the last leaves at least 80 × 6 s after the first).
      for (let i = 0; i < at.length; i++) {
        for (let j = i + 1; j < at.length; j++) expect(j - i + 1, `arrivals ${i}..${j}`).toBeLessThanOrEqual(20 + Math.floor(((at[j]! - at[i]!) * 10) / 60_000));
      }
      // And the fleet spends it as it refills: by the end of each minute it has sent what its budget
      // (18 at once with two units in reserve, then one every 6 s) allowed, less at most one minute's worth.
      for (let k = 1; k <= minutes; k++) {
        const sent = perMinute.slice(0, k).reduce((a, b) => a + b, 0);
        expect(sent, `by minute ${k}: ${perMinute.join(', ')}`).toBeGreaterThanOrEqual(Math.min(100, 18 + 10 * k) - 10);
      }
    } finally {
      await limited.close();
    }
  });

  it('a retry from another process with the same idempotencyKey (AES-GCM) gets the replay, not IDEMPOTENCY_KEY_REUSED', async () => {
    // Process A: the sandbox stores the card, then the connection drops before the answer.
    server.faults.inject({ path: CARDS, method: 'POST', fault: { type: 'drop', when: 'after' } });
    const key = `fleet-retry-${clientKind}`;
    const a = await startWorker(task({ task: 'retry', idempotencyKey: key, maxRetries: 0 })).done;
    expect(a.result).toMatchObject({ ok: false, error: { name: 'ConnectionError' } });
    expect(server.cards()).toHaveLength(1);
    // Process B retries the same logical call: the same ciphertext, so the sandbox replays.
    const b = await startWorker(task({ task: 'retry', idempotencyKey: key })).done;
    expect(b.result, b.stderr).toMatchObject({ ok: true, cardId: server.cards()[0]!.card.card_id });
    expect(server.cards()).toHaveLength(1);
    expect(server.requests.list({ path: CARDS, method: 'POST' }).map((r) => r.status)).toEqual(['dropped', 201]);
  });

  it('a lock holder killed mid-fetch: its lock expires and another process takes over', async () => {
    // The first token request hangs; its process is killed while it holds the fleet's lock.
    const hang = server.faults.inject({ path: TOKEN, method: 'POST', fault: { type: 'delay', ms: 10_000 } });
    const holder = startWorker(task({ timeout: 1_500 }));
    // One connection for every look: the lock lives only while the holder's token request is
    // pending (its 1.5 s attempt timeout), so each look must be quick even on a busy machine.
    const { createClient } = await import('redis');
    const probe = await createClient({ url: redis.url }).connect();
    try {
      await holder.seen('started');
      // The holder's token request has reached the identity host, and hangs there: it holds the lock.
      await vi.waitFor(() => expect(hang.injected).toBe(1), { timeout: 10_000, interval: 10 });
      expect(await lockHeld(probe)).toBe(true);
      holder.process.kill('SIGKILL');
      await holder.done;
      const next = await startWorker(task({ timeout: 1_500 })).done;
      expect(next.result, next.stderr).toMatchObject({ errors: [] });
      expect(server.cards()).toHaveLength(1);
      expect(await lockHeld(probe)).toBe(false);
    } finally {
      await probe.quit();
    }
  });

  /** Whether a client-credentials lock of this test's namespace is held in Redis right now. */
  async function lockHeld(probe: { keys(pattern: string): Promise<string[]> }): Promise<boolean> {
    const keys = await probe.keys(`${prefix}:openbanking-ng:fleet-app:*:lock`);
    return keys.length > 0;
  }
});
