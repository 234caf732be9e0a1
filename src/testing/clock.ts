/**
 * A clock that only moves when told to: give its `now` to the sandbox and to the client, and
 * its `sleep` to the client, and time-dependent behaviour (code expiry, token lifetime, rate
 * limits, device-code polling) runs in microseconds and the same way every time.
 *
 * @example
 * ```ts
 * import { createManualClock, createSandbox } from 'openbanking-ng/testing';
 * const clock = createManualClock();
 * const sandbox = createSandbox({ now: clock.now });
 * // ... obtain an authorization code ...
 * clock.advance(61_000); // the code has now expired
 * ```
 * @group Sandbox
 */
export interface ManualClock {
  /** The current time in milliseconds since the epoch. */
  now(): number;
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** Sets the clock to `ms` milliseconds since the epoch. */
  set(ms: number): void;
  /**
   * Advances the clock by `ms` and resolves at once: a drop-in for the client's `sleep` option,
   * so retries and waits take no wall-clock time. Rejects with the signal's reason if it has fired.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Creates a {@link ManualClock} starting at `start` (ms since the epoch; default
 * 2025-01-01T00:00:00Z).
 * @group Sandbox
 */
export function createManualClock(start: number = Date.UTC(2025, 0, 1)): ManualClock {
  if (!Number.isFinite(start)) throw new TypeError('createManualClock: start must be a finite number of milliseconds');
  let current = start;
  const step = (ms: number) => {
    if (!Number.isFinite(ms) || ms < 0) throw new TypeError('ManualClock: time only moves forward by a finite number of milliseconds');
    current += ms;
  };
  return {
    now: () => current,
    advance: step,
    set: (ms) => {
      if (!Number.isFinite(ms)) throw new TypeError('ManualClock.set: ms must be a finite number');
      current = ms;
    },
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      step(Math.max(0, ms));
      return Promise.resolve();
    },
  };
}
