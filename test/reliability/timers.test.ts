import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultSleep } from '../../src/core/retry-timing.js';

afterEach(() => {
  vi.useRealTimers();
});

// A JavaScript timer holds at most 2^31 − 1 ms; asked for more, it fires after 1 ms. No fetch runs
// here, so fake timers are safe.
describe('defaultSleep and timers', () => {
  it('waits longer than one timer can hold in steps, instead of firing at once', async () => {
    vi.useFakeTimers();
    let done = false;
    const sleeping = defaultSleep(2 ** 31 + 1_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1 - 10);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1_001);
    await sleeping;
    expect(done).toBe(true);
  });

  it('sleeps for ever on Infinity until aborted, and a NaN is no wait at all', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const forever = defaultSleep(Infinity, controller.signal);
    await vi.advanceTimersByTimeAsync(2 ** 31 * 3);
    controller.abort(new Error('stop'));
    await expect(forever).rejects.toThrow('stop');
    const nan = defaultSleep(Number.NaN);
    await vi.advanceTimersByTimeAsync(0);
    await expect(nan).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
