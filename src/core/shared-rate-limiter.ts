import { AbortError, RateLimitError } from '../errors/index.js';
import type { FleetAccess } from '../fleet/store.js';
import type { CallLimiter } from './config.js';
import { RateLimiter } from './rate-limiter.js';
import type { Sleep } from './retry-timing.js';

/**
 * The client-side token bucket kept in the fleet's store, so every process of the fleet spends
 * one budget: one atomic take per call reserves a unit and says when it may be spent. Same rules
 * as the in-process `RateLimiter`: first come, first served; a call whose turn is further than
 * `maxWait` away is refused at once with `RateLimitError`, without being sent.
 *
 * A tenth of the burst (at least one unit, while at least one is left to spend) is kept in
 * reserve: calls from several processes reach the provider with uneven delays (network, a busy
 * process), and a call that travels faster than the one before it would otherwise arrive ahead
 * of the provider's refill and earn a 429. At 10/min, burst 20, 18 leave at once and the reserve
 * absorbs 12 s of such jitter.
 */
export function reservedUnits(burst: number): number {
  return burst > 1 ? Math.min(burst - 1, Math.max(1, Math.floor(burst / 10))) : 0;
}

/** The fleet's shared token bucket; see {@link reservedUnits} for the reserve. */
export class SharedRateLimiter {
  readonly #key: string;
  readonly #link: FleetAccess;
  /** The budget is the fleet's. */
  readonly shared = true;

  constructor(
    link: FleetAccess,
    private readonly limit: { rate: number; burst: number; maxWait: number },
    private readonly now: () => number,
    private readonly sleep: Sleep,
  ) {
    this.#link = link;
    this.#key = link.key('rate');
  }

  /** Takes one unit of the fleet's budget, waiting for it if needed; resolves to the wait (ms). */
  async acquire(signal: AbortSignal | undefined, idempotencyKey: string): Promise<number> {
    const { rate, burst, maxWait } = this.limit;
    const take = await this.#link.take(this.#key, { rate, burst: burst - reservedUnits(burst), maxWait, now: this.now() });
    if (!take.granted) {
      throw new RateLimitError(
        {
          status: 429,
          body: undefined,
          rawBody: '',
          headers: new Headers(),
          idempotencyKey,
          message: `Client-side rate limit (shared by the fleet): the next slot is ${take.wait} ms away, more than the ${maxWait} ms this call may wait; nothing was sent`,
        },
        take.wait,
      );
    }
    // A broken or hostile store cannot park the call longer than the caller allows.
    const wait = take.wait > 0 ? Math.min(take.wait, maxWait) : 0;
    if (!(wait > 0)) return 0;
    // The reserved unit stays spent if the wait is aborted: the fleet's budget is never handed back,
    // which only makes the fleet more careful.
    try {
      await this.sleep(wait, signal);
    } catch (reason) {
      throw new AbortError('The request was aborted while waiting for rate-limit budget', { idempotencyKey, cause: reason instanceof Error ? new Error(reason.message) : undefined });
    }
    if (signal?.aborted) throw new AbortError('The request was aborted while waiting for rate-limit budget', { idempotencyKey });
    return wait;
  }
}

/** The limiter of the `rateLimit` option: the fleet's shared bucket with a fleet, else this process's. */
export function callLimiter(limit: { rate: number; burst: number; maxWait: number }, fleet: FleetAccess | undefined, now: () => number, sleep: Sleep): CallLimiter {
  return fleet ? new SharedRateLimiter(fleet, limit, now, sleep) : new RateLimiter(limit.rate, limit.burst, limit.maxWait, now, sleep);
}
