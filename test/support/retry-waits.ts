import { vi } from 'vitest';
import type { OpenBanking } from '../../src/index.js';

let held = 0;
let ours = false;

/**
 * Records the wait before every retry (the `retry` event's `delayMs`; a renewed token's retry has
 * none) into `waits`, and lets ky's timer for it run out at once: fake timers for that one wait.
 * For calls one at a time; many concurrent calls over real I/O want `retryDelay: 0` instead.
 */
export function skipRetryWaits(ob: Pick<OpenBanking, 'on'>, waits: number[] = []): number[] {
  ob.on('retry', ({ reason, delayMs }) => {
    if (reason === 'unauthorized') return;
    waits.push(delayMs);
    if (delayMs <= 0) return;
    if (!vi.isFakeTimers()) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      ours = true;
    }
    if (ours) held++;
    // ky sets its timer once the retry is decided, within this turn of the event loop.
    setImmediate(() => {
      if (vi.isFakeTimers()) vi.advanceTimersByTime(delayMs);
      if (ours && --held === 0) {
        vi.useRealTimers();
        ours = false;
      }
    });
  });
  return waits;
}
