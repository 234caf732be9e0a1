import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TokenSet } from '../../src/index.js';
import { type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { buildWorker, startRedis, startWorker, type TestRedis } from './support.js';
import type { WorkerTask } from './worker.js';

// A refresh token claimed in the store is redeemed once, whatever happens around the grant, each
// case with two (or three) real processes on a real redis-server and the sandbox over HTTP: a store
// write that fails after the grant, a stall longer than the lock's lease, a sealed value that does
// not open after a secret rotation, and an ending recorded on an old consent. Without the claim,
// each redeemed a refresh token twice or ended a valid consent.

const OLD_SECRET = 'review-secret-before-rotation-0123';
const NEW_SECRET = 'review-secret-after-rotation-4567';
const GRANTS = { path: '/oauth/token', method: 'POST' };

let redis: TestRedis;
let server: SandboxServer;
let prefix: string;
let run = 0;

beforeAll(async () => {
  [redis] = await Promise.all([startRedis(), buildWorker()]);
  server = await startSandboxServer({ clients: [{ clientId: 'review-app', clientSecret: OLD_SECRET }], seed: 'review' });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});
beforeEach(() => {
  server.reset();
  prefix = `review-${++run}`;
});

/** A process running `steps` on a session for `customer-9` (the lock lives 3 s: timeout 2 s). */
const processOf = (tokens: TokenSet, steps: WorkerTask['steps'], extra: Partial<WorkerTask> = {}) =>
  startWorker({
    task: 'steps',
    client: 'redis',
    redisPort: redis.port,
    prefix,
    clientId: 'review-app',
    clientSecret: OLD_SECRET,
    baseUrl: server.baseUrl,
    authUrl: server.authUrl,
    timeout: 2_000,
    tokens,
    customerId: 'customer-9',
    steps,
    ...extra,
  });

const customerTokens = (expired: boolean): TokenSet => {
  const issued = server.issueTokens({ clientId: 'review-app', scope: ['customers.readonly'], kind: 'customer' });
  return { ...issued, expires_at: Math.floor(Date.now() / 1000) + (expired ? -10 : 3600) };
};

/** Runs steps of `worker` until one succeeds (a process waiting for another may first reject with ConnectionError). */
async function untilOk(worker: ReturnType<typeof startWorker>, tries: number): Promise<Record<string, unknown>[]> {
  const results = [];
  for (let i = 0; i < tries; i++) {
    const result = await worker.step();
    results.push(result);
    if (result.ok) break;
  }
  return results;
}

const grantStatuses = () => server.requests.list(GRANTS).map((r) => r.status);

describe('a refresh token claimed in the store, across processes on a real redis-server: never redeemed twice, a renewed consent never ended', () => {
  it('1. a store write that fails after the grant (set fails three times): the claimer keeps its set and keeps trying; the other process never redeems the spent refresh token', { timeout: 60_000 }, async () => {
    const tokens = customerTokens(true);
    const a = processOf(tokens, [{}, {}], { setFailures: 3 });
    const b = processOf(tokens, [{}, {}, {}]);
    try {
      expect(await a.step()).toMatchObject({ ok: true });
      const seen = await untilOk(b, 3);
      expect(seen.at(-1), JSON.stringify(seen)).toMatchObject({ ok: true });
      for (const result of seen) expect(result).not.toMatchObject({ error: { name: 'ConsentEndedError' } });
      expect(await a.step()).toMatchObject({ ok: true });
      expect(grantStatuses()).toEqual([200]);
    } finally {
      a.process.kill();
      b.process.kill();
    }
  });

  it('2. a stall longer than the lock lease (3.5 s against 3 s) after the grant: the other process takes the lock but finds the refresh token claimed, and never redeems it', { timeout: 60_000 }, async () => {
    const tokens = customerTokens(true);
    const a = processOf(tokens, [{}, {}], { stallAfterRefreshMs: 3_500 });
    const b = processOf(tokens, [{}, {}, {}]);
    try {
      const first = a.step();
      first.catch(() => undefined); // awaited below, unless an expectation fails first
      // A's grant reached the identity host: A stalls now, holding a lock that expires before it wakes.
      await expect.poll(() => server.requests.count(GRANTS), { timeout: 10_000, interval: 20 }).toBe(1);
      const seen = await untilOk(b, 3);
      expect(seen.at(-1), JSON.stringify(seen)).toMatchObject({ ok: true });
      for (const result of seen) expect(result).not.toMatchObject({ error: { name: 'ConsentEndedError' } });
      expect(await first).toMatchObject({ ok: true });
      expect(await a.step()).toMatchObject({ ok: true });
      expect(grantStatuses()).toEqual([200]);
    } finally {
      a.process.kill();
      b.process.kill();
    }
  });

  it('3. a sealed value that does not open after a secret rotation fails closed (ConnectionError naming previousClientSecrets), and opens with previousClientSecrets: the spent refresh token is never replayed', { timeout: 60_000 }, async () => {
    const tokens = customerTokens(true);
    // Before the rotation: A redeems the refresh token; the store keeps the claim and the new set sealed under the old secret.
    const a = processOf(tokens, [{}]);
    expect(await a.step()).toMatchObject({ ok: true });
    // After it: processes with the new secret (the provider accepts both for a while) hold the tokens the app had saved before.
    const rotated = { clientSecret: NEW_SECRET, acceptedSecret: OLD_SECRET };
    const b = processOf(tokens, [{}], rotated);
    const c = processOf(tokens, [{}], { ...rotated, previousClientSecrets: [OLD_SECRET] });
    try {
      const closed = await b.step();
      expect(closed).toMatchObject({ ok: false, error: { name: 'ConnectionError' } });
      expect(String((closed.error as { message: string }).message)).toMatch(/does not open.*previousClientSecrets/);
      expect(await c.step()).toMatchObject({ ok: true });
      expect(grantStatuses()).toEqual([200]);
    } finally {
      b.process.kill();
      c.process.kill();
    }
  });

  it('4. an ending recorded by a process on the old consent does not end a process given the new one (setTokens)', { timeout: 60_000 }, async () => {
    const first = customerTokens(false);
    const second = customerTokens(false);
    const a = processOf(first, [{}, { setTokens: second }, {}]);
    const b = processOf(first, [{}, {}]);
    try {
      expect(await a.step()).toMatchObject({ ok: true });
      expect(await b.step()).toMatchObject({ ok: true });
      server.revokeConsent(first.refresh_token!);
      // A gets the customer's new consent; B, still on the old one, refreshes and is refused.
      expect(await a.step()).toMatchObject({ ok: true });
      const refused = await b.step();
      expect(refused).toMatchObject({ ok: false, error: { name: 'ConsentEndedError' } });
      // B recorded the ending: it names the old consent's refresh token, not A's.
      expect(await a.step()).toMatchObject({ ok: true });
      expect(refused).toMatchObject({ error: { reason: 'invalid_grant' } });
      expect(grantStatuses()).toEqual([400]);
    } finally {
      a.process.kill();
      b.process.kill();
    }
  });
});
