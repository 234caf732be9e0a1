export { validCard } from '../support/cards.js';

export const CARDS = '/openapi/v1/cards';

/**
 * A fake clock for many concurrent callers: `sleep` registers a timer instead of waiting, and
 * {@link FakeScheduler.drive} moves time to the earliest timer only once every tracked call is
 * asleep, so each call wakes at exactly the time it asked for, whatever the I/O in between.
 */
export interface FakeScheduler {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Moves the clock forward by hand (between waves of calls). */
  advance(ms: number): void;
  /** Counts `promise` as a call in progress until it settles. */
  track<T>(promise: Promise<T>): Promise<T>;
  /** Runs timers until every tracked call has settled. */
  drive(): Promise<void>;
  /** Timers still pending. */
  pending(): number;
}

export function createScheduler(start: number = Date.UTC(2025, 0, 1)): FakeScheduler {
  let now = start;
  let active = 0;
  const timers: Array<{ at: number; resolve: () => void }> = [];
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const timer = { at: now + Math.max(0, ms), resolve };
        timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            const i = timers.indexOf(timer);
            if (i >= 0) timers.splice(i, 1);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    track(promise) {
      active++;
      const done = () => {
        active--;
      };
      promise.then(done, done);
      return promise;
    },
    async drive() {
      // Bounded: real I/O between timers takes a few thousand turns of the event loop at most.
      for (let spins = 0; active > 0; spins++) {
        if (spins > 5_000_000) throw new Error('FakeScheduler.drive: calls neither settle nor sleep');
        if (timers.length > 0 && timers.length >= active) {
          timers.sort((a, b) => a.at - b.at);
          const next = timers.shift()!;
          now = Math.max(now, next.at);
          next.resolve();
        }
        await tick();
      }
    },
    pending: () => timers.length,
  };
}

/** Prints a table of rows (objects with the same keys) as aligned text. */
export function table(rows: ReadonlyArray<Record<string, string | number>>): string {
  if (rows.length === 0) return '';
  const keys = Object.keys(rows[0]!);
  const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(keys), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map((r) => line(keys.map((k) => String(r[k]))))].join('\n');
}
