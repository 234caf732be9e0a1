import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TokenSet } from '../../src/index.js';
import { type SandboxFault, type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { buildWorker, startRedis, startWorker, type TestRedis } from './support.js';

// Refresh grants whose outcome the SDK cannot know, with two real processes on a real redis-server
// and the sandbox over HTTP: a refresh grant answered 502, answered 200 with a token type the SDK
// cannot use, or reset without an answer. Each may have rotated the refresh token at the provider;
// had the first process released its claim, the second would have sent the same refresh token
// again. The sandbox counts every grant per refresh token: each must be sent at most once.

const SECRET = 'unconfirmed-fleet-secret-0123456789';
const GRANTS = { path: '/oauth/token', method: 'POST' };

let redis: TestRedis;
let server: SandboxServer;
let prefix: string;
let run = 0;

beforeAll(async () => {
  [redis] = await Promise.all([startRedis(), buildWorker()]);
  server = await startSandboxServer({ clients: [{ clientId: 'unconfirmed-app', clientSecret: SECRET }], seed: 'unconfirmed' });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});
beforeEach(() => {
  server.reset();
  prefix = `unconfirmed-${++run}`;
});

/** A process running `steps` calls on a session for `customer-5`. */
const processOf = (tokens: TokenSet, steps: number) =>
  startWorker({
    task: 'steps',
    client: 'redis',
    redisPort: redis.port,
    prefix,
    clientId: 'unconfirmed-app',
    clientSecret: SECRET,
    baseUrl: server.baseUrl,
    authUrl: server.authUrl,
    timeout: 2_000,
    tokens,
    customerId: 'customer-5',
    steps: Array.from({ length: steps }, () => ({})),
  });

const faults: [string, SandboxFault][] = [
  ['answered 502', { type: 'status', status: 502 }],
  ['answered 200 with token_type MAC', { type: 'response', status: 200, body: { access_token: 'mac-access-0001', token_type: 'MAC', expires_in: 3600, refresh_token: 'mac-refresh-0001' } }],
  ['reset with no answer', { type: 'drop' }],
];

describe('a refresh grant whose outcome is unknown, across two processes on a real redis-server', () => {
  for (const [name, fault] of faults) {
    it(`the grant ${name}: both processes end the session (refresh_unconfirmed, onConsentEnded once each) and the refresh token is sent once across the fleet`, { timeout: 60_000 }, async () => {
      const tokens = { ...server.issueTokens({ clientId: 'unconfirmed-app', scope: ['customers.readonly'], kind: 'customer' }), expires_at: Math.floor(Date.now() / 1000) - 10 };
      server.faults.inject({ ...GRANTS, fault });
      const a = processOf(tokens, 2);
      const b = processOf(tokens, 2);
      try {
        // A first, then B, then each once more: every step after the first grant sends nothing.
        const steps = [await a.step(), await b.step(), await a.step(), await b.step()];
        expect(server.requests.refreshGrants(tokens.refresh_token!)).toBe(1);
        expect(server.requests.count(GRANTS)).toBe(1);
        for (const step of steps) expect(step).toMatchObject({ ok: false, error: { name: 'ConsentEndedError', reason: 'refresh_unconfirmed' } });
      } finally {
        a.process.kill();
        b.process.kill();
      }
      const [ranA, ranB] = await Promise.all([a.done, b.done]);
      expect(ranA.events.filter((e) => e.type === 'ended')).toEqual([{ type: 'ended', reason: 'refresh_unconfirmed' }]);
      expect(ranB.events.filter((e) => e.type === 'ended')).toEqual([{ type: 'ended', reason: 'refresh_unconfirmed' }]);
    });
  }
});
