import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../src/core/rate-limiter.js';
import { AbortError, OpenBanking, RateLimitError, ValidationError } from '../src/index.js';
import { BASE, http, HttpResponse, type Recorded, testClient, tokenHandler, useMsw } from './support/msw.js';

const server = useMsw();

/** A fake clock whose sleep resolves when the test advances time past it. */
function fakeClock() {
  let now = 0;
  const timers: Array<{ at: number; resolve: () => void; reject: (e: unknown) => void }> = [];
  return {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        const timer = { at: now + ms, resolve, reject };
        timers.push(timer);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    async advance(ms: number) {
      now += ms;
      for (const t of timers.filter((t) => t.at <= now)) {
        timers.splice(timers.indexOf(t), 1);
        t.resolve();
      }
      await new Promise((r) => setImmediate(r));
    },
    pending: () => timers.length,
  };
}

describe('RateLimiter', () => {
  it('lets the burst leave at once, then one call every 60/rate seconds', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(10, 20, Infinity, clock.now, clock.sleep);
    const left: number[] = [];
    const calls = Array.from({ length: 25 }, (_, i) => limiter.acquire(undefined, `k${i}`).then(() => left.push(clock.now())));
    await new Promise((r) => setImmediate(r));
    expect(left).toHaveLength(20);
    expect(left.every((t) => t === 0)).toBe(true);
    for (let s = 1; s <= 5; s++) {
      await clock.advance(6_000);
      expect(left).toHaveLength(20 + s);
    }
    await Promise.all(calls);
    expect(left.slice(20)).toEqual([6_000, 12_000, 18_000, 24_000, 30_000]);
  });

  it('refuses at once, without waiting, when the slot is further than maxWait', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(10, 1, 5_000, clock.now, clock.sleep);
    await limiter.acquire(undefined, 'a');
    const error = await limiter.acquire(undefined, 'b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(6_000);
    expect((error as RateLimitError).idempotencyKey).toBe('b');
    expect((error as RateLimitError).message).toContain('nothing was sent');
    expect(clock.pending()).toBe(0);
    // the refused call gave its slot back
    expect(limiter.waitTime).toBe(6_000);
  });

  it('an aborted waiter gives its slot back and rejects with AbortError', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(60, 1, Infinity, clock.now, clock.sleep);
    await limiter.acquire(undefined, 'a');
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal, 'b');
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(limiter.waitTime).toBe(1_000);
  });
});

describe('the rateLimit option (DESIGN.md "rate limiter"), through the client', () => {
  /** cards.list answered at once; every API request and token request counted. */
  function serve() {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: string[] = [];
    server.use(
      tokenHandler(state),
      http.get(`${BASE}/cards`, ({ request }) => {
        seen.push(request.headers.get('idempotency-key') ?? '');
        return HttpResponse.json({ status: '00', message: 'ok', data: { cards: [] } });
      }),
    );
    return { state, seen };
  }
  // A clock that never moves: every wait the limiter asks for shows in `sleeps` as the bucket computes it.
  const frozen = () => Date.UTC(2030, 0, 1);

  it("true takes the environment's published limits: sandbox 200 at once then one every 600 ms, production 20 then one every 6 s", async () => {
    const { seen } = serve();
    const sandbox = testClient({ rateLimit: true, now: frozen });
    await Promise.all(Array.from({ length: 202 }, () => sandbox.ob.cards.list()));
    expect(seen).toHaveLength(202);
    expect(sandbox.sleeps).toEqual([600, 1_200]);

    const production = testClient({ rateLimit: true, environment: 'production', now: frozen });
    await Promise.all(Array.from({ length: 22 }, () => production.ob.cards.list()));
    expect(production.sleeps).toEqual([6_000, 12_000]);
  });

  it('counts API calls only: the token request of the first call spends nothing', async () => {
    const { state, seen } = serve();
    const { ob, sleeps } = testClient({ rateLimit: { rate: 60, burst: 1 }, now: frozen });
    await ob.cards.list();
    expect(state.tokenRequests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    await ob.cards.list();
    expect(sleeps).toEqual([1_000]);
    expect(seen).toHaveLength(2);
  });

  it('a call whose turn is further away than maxWait is refused at once with RateLimitError, nothing sent', async () => {
    const { seen } = serve();
    const { ob, sleeps } = testClient({ rateLimit: { rate: 60, burst: 1, maxWait: 999 }, now: frozen });
    await ob.cards.list();
    const error = await ob.cards.list({ idempotencyKey: 'over-budget' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(1_000);
    expect((error as RateLimitError).idempotencyKey).toBe('over-budget');
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('{ rate, burst } must both be given: a missing one is refused in the constructor, not taken as 1', () => {
    const base = { clientId: 'c', clientSecret: 's' };
    for (const rateLimit of [{}, { rate: 10 }, { burst: 20 }, { rate: 10, burst: 20, maxWait: -1 }]) {
      const error = (() => {
        try {
          new OpenBanking({ ...base, rateLimit } as never);
        } catch (e) {
          return e;
        }
      })();
      expect(error, JSON.stringify(rateLimit)).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.every((i) => i.path.startsWith('rateLimit.')), JSON.stringify(rateLimit)).toBe(true);
    }
    expect(() => new OpenBanking({ ...base, rateLimit: { rate: 10, burst: 20 } })).not.toThrow();
  });
});
