import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenBanking, plaintextCipher, RateLimitError } from '../../src/index.js';
import { startSandboxServer, type SandboxClient, type SandboxServer } from '../../src/testing.js';
import { CARDS, createScheduler, type FakeScheduler, validCard } from './support.js';

// The sandbox in production mode enforces the published limits (10/min, burst 20) on its clock;
// a client with `rateLimit: true` in production must fit under them without ever earning a 429.
describe('client-side rate limiter against the sandbox’s production limits, over real HTTP', () => {
  let server: SandboxServer;
  let clock: FakeScheduler;
  let app: SandboxClient;
  let currentClock: FakeScheduler;

  beforeAll(async () => {
    // The server reads whichever clock the current test installed.
    server = await startSandboxServer({ environment: 'production', rateLimits: true, seed: 'rate-limit', now: () => currentClock.now() });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    clock = currentClock = createScheduler();
    server.reset();
    app = server.registerClient();
  });

  const client = (rateLimit: ConstructorParameters<typeof OpenBanking>[0]['rateLimit'] = true) =>
    new OpenBanking({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      environment: 'production',
      baseUrl: server.baseUrl,
      authUrl: server.authUrl,
      cipher: plaintextCipher,
      rateLimit,
      logLevel: 'off',
      now: clock.now,
      sleep: clock.sleep,
    });

  const arrivals = () => server.requests.list({ path: CARDS, method: 'POST' });
  const offsets = () => arrivals().map((r) => r.at - arrivals()[0]!.at);

  it('40 calls one after another: zero 429s, 20 leave at once, then one every 6 s', async () => {
    const ob = client(true);
    const run = clock.track(
      (async () => {
        for (let i = 0; i < 40; i++) await ob.cards.create(validCard(), { idempotencyKey: `seq-${i}` });
      })(),
    );
    await clock.drive();
    await run;
    expect(arrivals().map((r) => r.status)).toEqual(Array(40).fill(201));
    expect(offsets()).toEqual([...Array(20).fill(0), ...Array.from({ length: 20 }, (_, i) => (i + 1) * 6_000)]);
    expect(server.cards()).toHaveLength(40);
    console.log(`rate limiter (sequential): 40 calls, 40 requests, 429s 0, last left at +${offsets().at(-1)! / 1000} s`);
  });

  it('40 calls at once with maxWait ∞: zero 429s, the same schedule', async () => {
    const ob = client({ rate: 10, burst: 20, maxWait: Infinity });
    const calls = Array.from({ length: 40 }, (_, i) => clock.track(ob.cards.create(validCard(), { idempotencyKey: `par-${i}` })));
    await clock.drive();
    await Promise.all(calls);
    expect(arrivals().filter((r) => r.status === 429)).toHaveLength(0);
    expect(offsets()).toEqual([...Array(20).fill(0), ...Array.from({ length: 20 }, (_, i) => (i + 1) * 6_000)]);
    expect(server.cards()).toHaveLength(40);
  });

  it('40 calls at once with the default maxWait (60 s): 30 sent, 10 refused at once with RateLimitError, nothing sent for them', async () => {
    const ob = client(true);
    const results = Array.from({ length: 40 }, (_, i) =>
      clock.track(ob.cards.create(validCard(), { idempotencyKey: `wait-${i}` })).then(
        () => 'ok' as const,
        (error: unknown) => error,
      ),
    );
    await clock.drive();
    const settled = await Promise.all(results);
    const refused = settled.filter((r): r is RateLimitError => r instanceof RateLimitError);
    expect(settled.filter((r) => r === 'ok')).toHaveLength(30);
    expect(refused).toHaveLength(10);
    const sentKeys = new Set(arrivals().map((r) => r.idempotencyKey));
    for (const error of refused) {
      expect(error.message).toContain('nothing was sent');
      expect(error.retryAfter).toBeGreaterThan(60_000);
      expect(sentKeys.has(error.idempotencyKey)).toBe(false);
    }
    expect(arrivals()).toHaveLength(30);
    expect(arrivals().filter((r) => r.status === 429)).toHaveLength(0);
    console.log(`rate limiter (maxWait 60 s): 40 calls, 30 sent, 10 refused without a request, 429s 0`);
  });

  it('without the client-side limiter the same burst earns 429s (the control)', async () => {
    const ob = client(false);
    const calls = Array.from({ length: 25 }, (_, i) => clock.track(ob.cards.create(validCard(), { idempotencyKey: `nolimit-${i}`, maxRetries: 0 }).catch((e: unknown) => e)));
    await clock.drive();
    const settled = await Promise.all(calls);
    expect(settled.filter((r) => r instanceof RateLimitError)).toHaveLength(5);
    expect(arrivals().filter((r) => r.status === 429)).toHaveLength(5);
  });
});
