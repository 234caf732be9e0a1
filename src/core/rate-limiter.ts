import { AbortError, RateLimitError } from '../errors/index.js';
import type { Sleep } from './retry-timing.js';

/**
 * A token bucket in front of the API: `burst` calls may leave at once, then one more every
 * `60 000 / rate` ms. A call waits its turn (first come, first served) instead of earning a 429;
 * a call whose turn is further away than `maxWait` is refused at once with `RateLimitError`,
 * without being sent. Only API calls spend budget: token requests go to the identity host.
 */
export class RateLimiter {
  #tokens: number;
  #updated: number;
  readonly #perMs: number;

  constructor(
    readonly rate: number,
    readonly burst: number,
    readonly maxWait: number,
    private readonly now: () => number,
    private readonly sleep: Sleep,
  ) {
    this.#tokens = burst;
    this.#updated = now();
    this.#perMs = rate / 60_000;
  }

  #refill(): void {
    const t = this.now();
    if (t > this.#updated) {
      this.#tokens = Math.min(this.burst, this.#tokens + (t - this.#updated) * this.#perMs);
      this.#updated = t;
    }
  }

  /** Milliseconds until a call made now could leave (0 when budget is there). */
  get waitTime(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) / this.#perMs);
  }

  /** Takes one unit of budget, waiting for it if needed; resolves to the wait (ms). */
  async acquire(signal: AbortSignal | undefined, idempotencyKey: string, maxWait: number = this.maxWait): Promise<number> {
    this.#refill();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return 0;
    const wait = Math.ceil(-this.#tokens / this.#perMs);
    if (wait > maxWait) {
      this.#tokens += 1;
      const error = new RateLimitError(
        {
          status: 429,
          body: undefined,
          rawBody: '',
          headers: new Headers(),
          idempotencyKey,
          message: `Client-side rate limit: the next slot is ${wait} ms away, more than the ${maxWait} ms this call may wait; nothing was sent`,
        },
        wait,
      );
      throw error;
    }
    try {
      await this.sleep(wait, signal);
    } catch (reason) {
      this.#tokens += 1;
      throw new AbortError('The request was aborted while waiting for rate-limit budget', { idempotencyKey, cause: reason instanceof Error ? new Error(reason.message) : undefined });
    }
    if (signal?.aborted) {
      this.#tokens += 1;
      throw new AbortError('The request was aborted while waiting for rate-limit budget', { idempotencyKey });
    }
    return wait;
  }
}
