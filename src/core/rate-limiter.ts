import { AbortError } from '../errors/base.js';
import { RateLimitError } from '../errors/api.js';
import type { CallLimiter } from './http.js';
import type { Sleep } from './retry-timing.js';
import { type FleetBucket, type FleetStore, type FleetTake, MemoryFleetStore } from './store.js';

/**
 * The units of the burst a fleet keeps in reserve: a tenth (at least one, while at least one is
 * left to spend). Calls from several processes reach the provider with uneven delays (network, a
 * busy process), and a call that travels faster than the one before it would otherwise arrive
 * ahead of the provider's refill and earn a 429. At 10/min, burst 20, 18 leave at once and the
 * reserve absorbs 12 s of such jitter. A client alone keeps none.
 */
export function reservedUnits(burst: number): number {
  return burst > 1 ? Math.min(burst - 1, Math.max(1, Math.floor(burst / 10))) : 0;
}

/** Where a bucket lives: the client's own store by default, or a fleet's (every process spends one budget). */
export interface BucketPlace {
  store: FleetStore;
  key: string;
  /** The budget is a fleet's: a tenth of the burst is held back, and the wait events say so. */
  shared: boolean;
}

/**
 * The token bucket in front of the API, the one of the SDK: `burst` calls may leave at once, then
 * one more every `60 000 / rate` ms. One atomic take per call reserves a unit and says when it may
 * be spent, in the client's own store or in a fleet's; the call waits its turn (first come, first
 * served) instead of earning a 429, and a call whose turn is further away than `maxWait` is
 * refused at once with `RateLimitError`, without being sent. A call aborted while it waits hands
 * its unit back. Only API calls spend budget: token requests go to the identity host.
 */
export class RateLimiter implements CallLimiter {
  readonly #place: BucketPlace;
  readonly shared: boolean;

  constructor(
    readonly rate: number,
    readonly burst: number,
    readonly maxWait: number,
    private readonly now: () => number,
    private readonly sleep: Sleep,
    place?: BucketPlace,
  ) {
    this.#place = place ?? { store: new MemoryFleetStore(now), key: 'rate', shared: false };
    this.shared = this.#place.shared;
  }

  #bucket(units: 1 | -1, maxWait = this.maxWait): FleetBucket {
    const burst = this.#place.shared ? this.burst - reservedUnits(this.burst) : this.burst;
    return { rate: this.rate, burst, maxWait, now: this.now(), ...(units === -1 ? { units } : {}) };
  }

  /** Milliseconds until a call made now could leave (0 when budget is there): for a bucket in this process only, NaN for a fleet's. */
  get waitTime(): number {
    const { store, key } = this.#place;
    if (!(store instanceof MemoryFleetStore)) return Number.NaN;
    const take = store.takeNow(key, this.#bucket(1, 0));
    if (!take.granted) return take.wait;
    store.takeNow(key, this.#bucket(-1));
    return 0;
  }

  /** Takes one unit of budget, waiting for it if needed; resolves to the wait (ms). */
  async acquire(signal: AbortSignal | undefined, idempotencyKey: string): Promise<number> {
    const { store, key, shared } = this.#place;
    const take = await store.take(key, this.#bucket(1));
    if (!take.granted) {
      throw new RateLimitError(
        {
          status: 429,
          body: undefined,
          rawBody: '',
          headers: new Headers(),
          idempotencyKey,
          message: `Client-side rate limit${shared ? ' (shared by the fleet)' : ''}: the next slot is ${take.wait} ms away, more than the ${this.maxWait} ms this call may wait; nothing was sent`,
        },
        take.wait,
      );
    }
    // A broken or hostile store cannot park the call longer than the caller allows.
    const wait = take.wait > 0 ? Math.min(take.wait, this.maxWait) : 0;
    if (!(wait > 0)) return 0;
    const giveBack = () => void store.take(key, this.#bucket(-1)).catch(() => undefined);
    try {
      // Aborted while the take was answered: no sleep to be told.
      if (signal?.aborted) throw signal.reason;
      await this.sleep(wait, signal);
    } catch (reason) {
      giveBack();
      throw new AbortError('The request was aborted while waiting for rate-limit budget', { idempotencyKey, cause: reason instanceof Error ? new Error(reason.message) : undefined });
    }
    if (signal?.aborted) {
      giveBack();
      throw new AbortError('The request was aborted while waiting for rate-limit budget', { idempotencyKey });
    }
    return wait;
  }
}
