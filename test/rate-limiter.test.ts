import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../src/core/rate-limiter.js';
import { AbortError, RateLimitError } from '../src/index.js';

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
