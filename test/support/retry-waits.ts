import { vi } from 'vitest';
import type { OpenBanking } from '../../src/index.js';

let held = 0;

/**
 * Records the wait before every retry (the `retry` event's `delayMs`; a renewed token's retry has
 * none) into `waits`, and lets ky's timer for it run out at once: fake timers for that one wait.
 */
export function skipRetryWaits(ob: Pick<OpenBanking, 'on'>, waits: number[] = []): number[] {
  ob.on('retry', ({ reason, delayMs }) => {
    if (reason === 'unauthorized') return;
    waits.push(delayMs);
    const own = !vi.isFakeTimers();
    if (own && held++ === 0) vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // ky sets its timer once the retry is decided, within this turn of the event loop.
    setImmediate(() => {
      vi.advanceTimersByTime(delayMs);
      if (own && --held === 0) vi.useRealTimers();
    });
  });
  return waits;
}
