// The store every coordination of a client goes through: the `FleetStore` interface a fleet
// implements, the one in-memory store with expiry (a client's own, or a fleet of one process),
// and the view of a store the token lifecycle and the rate budget work with (`FleetAccess`).

/**
 * What the SDK needs from state shared by every process of a fleet: values with a time to live,
 * a compare-and-set, a lock that expires, and an atomic token-bucket take. `redisFleet` (from
 * `openbanking-ng/redis`) is one implementation, {@link MemoryFleetStore} another; write your own
 * for another store (see `docs/scaling.md`).
 *
 * Keys are built by the SDK (`openbanking-ng:…`); an implementation may prefix them. Values are
 * strings (JSON the SDK wrote). Every method may reject or be slow: the SDK bounds each call to
 * 250 ms and carries on with in-process coordination when the store fails, so an implementation
 * needs no timeouts or fallbacks of its own.
 * @group Fleets
 */
export interface FleetStore {
  /** The value under `key`, or undefined when absent or expired. Any other answer than a string or none counts as a failure of the store. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` under `key` for `ttlMs` milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Stores `value` for `ttlMs` only if the current value is `expected` (undefined: only if the key
   * is absent). Resolves to true when it stored. Atomic.
   */
  compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean>;
  /** Deletes `key` only if it holds `expected`. Atomic. */
  compareAndDelete(key: string, expected: string): Promise<boolean>;
  /**
   * Takes the lock `key` for `ttlMs` if nobody holds it: resolves to an owner string (not empty) to
   * release it with, or undefined when another holder has it. The lock expires by itself after
   * `ttlMs`, so a holder that died cannot keep it. Any other answer counts as a failure of the store.
   */
  lock(key: string, ttlMs: number): Promise<string | undefined>;
  /** Releases the lock `key` if `owner` still holds it. */
  unlock(key: string, owner: string): Promise<void>;
  /**
   * Takes one unit from the token bucket `key` (`burst` units, refilled at `rate` per minute),
   * atomically. The unit is reserved, and `wait` says in how many ms it may be spent (0: at once),
   * unless that is more than `maxWait`: then nothing is taken, `granted` is false and `wait` says
   * how long the call would have waited. With `units: -1` it hands one unit back instead (a call
   * aborted while it waited for its turn). Any other answer counts as a failure of the store.
   */
  take(key: string, bucket: FleetBucket): Promise<FleetTake>;
}

/**
 * A token bucket as {@link FleetStore.take} applies it.
 * @group Fleets
 */
export interface FleetBucket {
  /** Units per minute refilled into the bucket. */
  rate: number;
  /** Bucket size. */
  burst: number;
  /** Longest wait (ms) a take may reserve; beyond it the take is refused. May be `Infinity`. */
  maxWait: number;
  /** The caller's clock (ms since the epoch): every process of a fleet must read the same time. */
  now: number;
  /**
   * 1 (the default) takes a unit; -1 hands one back, always granted with no wait (the bucket
   * never holds more than `burst`). A store that ignores it takes a unit instead, which only
   * makes the budget more careful.
   */
  units?: 1 | -1;
}

/**
 * The answer of {@link FleetStore.take}.
 * @group Fleets
 */
export interface FleetTake {
  /** True when a unit was reserved. */
  granted: boolean;
  /** Milliseconds until the reserved unit may be spent (or, refused, until one would be). */
  wait: number;
}

/**
 * One token-bucket step over a bucket's saved state, the same arithmetic as the Redis script:
 * refill from `updated` to `now`, reserve one unit (the count may go below zero: the callers
 * queued behind) unless the wait exceeds `maxWait`; or, with `units: -1`, hand one back.
 */
export function bucketStep(
  state: { tokens: number; updated: number } | undefined,
  b: FleetBucket,
): { state: { tokens: number; updated: number }; take: FleetTake } {
  const perMs = b.rate / 60_000;
  let tokens = state?.tokens ?? b.burst;
  let updated = state?.updated ?? b.now;
  if (b.now > updated) {
    tokens = Math.min(b.burst, tokens + (b.now - updated) * perMs);
    updated = b.now;
  }
  if (b.units === -1) return { state: { tokens: Math.min(b.burst, tokens + 1), updated }, take: { granted: true, wait: 0 } };
  tokens -= 1;
  if (tokens >= 0) return { state: { tokens, updated }, take: { granted: true, wait: 0 } };
  const wait = Math.ceil(-tokens / perMs);
  if (wait > b.maxWait) return { state: { tokens: tokens + 1, updated }, take: { granted: false, wait } };
  return { state: { tokens, updated }, take: { granted: true, wait } };
}

/**
 * A key of a client's namespace in the store: `openbanking-ng:<clientId>:<parts joined by ':'>`.
 * Use {@link keyPart} for a part the SDK did not choose.
 */
export function fleetKey(clientId: string, parts: readonly string[]): string {
  return ['openbanking-ng', clientId, ...parts].join(':');
}

/** A key part the SDK did not choose (a customer `id`), escaped so that it cannot name another key (`a:lock` → `a%3Alock`). */
export function keyPart(value: string): string {
  return value.replace(/[%:*?[\]\\{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * A store operation that must not fall back and could not be confirmed: the store failed, was
 * slow, answered something unreadable, or holds a value that does not open (`unopened`).
 */
export class StoreFailure extends Error {
  override name = 'StoreFailure';
  constructor(
    message: string,
    /** Present but sealed under a key this client does not have (another secret, altered, moved). */
    readonly unopened = false,
  ) {
    super(message);
  }
}

/**
 * The store as a client's layers use it: its key namespace, the store's operations (they fall
 * back in-process when a shared store fails), the strict ones (they reject with
 * {@link StoreFailure} instead: what decides whether a refresh token may be redeemed), and
 * sealed values.
 */
export interface FleetAccess extends FleetStore {
  /** True for a fleet the caller gave (values leave the process); false for the client's own memory. */
  readonly shared: boolean;
  /** `openbanking-ng:<clientId>:<parts…>`: the key of this client's entry. */
  key(...parts: string[]): string;
  /** `value` sealed (AES-GCM, a key derived from the client secret) for the store key `key`. */
  seal(key: string, value: string): Promise<string>;
  /** What `seal` sealed for `key`, or undefined when `raw` is absent or does not open: a miss, never trusted as found. */
  open(key: string, raw: string | undefined): Promise<string | undefined>;
  /** What `seal` sealed for `key`, undefined when absent; rejects with {@link StoreFailure} (`unopened`) when present but it does not open. */
  openStrict(key: string, raw: string | undefined): Promise<string | undefined>;
  /** The value under `key`; rejects with {@link StoreFailure} when the store cannot say. */
  strictGet(key: string): Promise<string | undefined>;
  /** Stores `value`; rejects with {@link StoreFailure} when the store cannot confirm it. */
  strictSet(key: string, value: string, ttlMs: number): Promise<void>;
  /** Stores `value` only if `key` is absent (true when it did); rejects with {@link StoreFailure} when the store cannot say. */
  strictCreate(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Deletes `key` only if it holds `expected`; rejects with {@link StoreFailure} when the store cannot say. */
  strictDelete(key: string, expected: string): Promise<boolean>;
  /** The lock `key`, or undefined when held; rejects with {@link StoreFailure} when the store cannot say. */
  strictLock(key: string, ttlMs: number): Promise<string | undefined>;
}

/** How many writes between two sweeps of expired entries (keys never read again must not pile up). */
const SWEEP_EVERY = 512;

/**
 * The in-memory {@link FleetStore}: coordination among the clients of one process that share it
 * (the SDK's behaviour without a fleet, made explicit). Also what every client keeps for itself
 * (its token-set cache, its rate budget, its customers' records) and what the SDK falls back to
 * while a shared store is down. The one store with expiry of the SDK.
 * @group Fleets
 */
export class MemoryFleetStore implements FleetStore {
  readonly #values = new Map<string, { value: string; expiresAt: number }>();
  readonly #buckets = new Map<string, { tokens: number; updated: number }>();
  readonly #now: () => number;
  #owners = 0;
  #writes = 0;

  /** @param now - clock in milliseconds for the time to live of values and locks. Default `Date.now`. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #read(key: string): string | undefined {
    const entry = this.#values.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#values.delete(key);
      return undefined;
    }
    return entry.value;
  }

  #write(key: string, value: string, ttlMs: number): void {
    this.#values.set(key, { value, expiresAt: this.#now() + ttlMs });
    if (++this.#writes % SWEEP_EVERY === 0) {
      const now = this.#now();
      for (const [k, entry] of this.#values) if (entry.expiresAt <= now) this.#values.delete(k);
    }
  }

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.#read(key));
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#write(key, value, ttlMs);
    return Promise.resolve();
  }

  compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean> {
    if (this.#read(key) !== expected) return Promise.resolve(false);
    this.#write(key, value, ttlMs);
    return Promise.resolve(true);
  }

  compareAndDelete(key: string, expected: string): Promise<boolean> {
    if (this.#read(key) !== expected) return Promise.resolve(false);
    this.#values.delete(key);
    return Promise.resolve(true);
  }

  /** Deletes `key` whatever it holds. */
  delete(key: string): Promise<void> {
    this.#values.delete(key);
    return Promise.resolve();
  }

  lock(key: string, ttlMs: number): Promise<string | undefined> {
    if (this.#read(key) !== undefined) return Promise.resolve(undefined);
    const owner = `memory-${++this.#owners}`;
    this.#write(key, owner, ttlMs);
    return Promise.resolve(owner);
  }

  async unlock(key: string, owner: string): Promise<void> {
    await this.compareAndDelete(key, owner);
  }

  take(key: string, bucket: FleetBucket): Promise<FleetTake> {
    return Promise.resolve(this.takeNow(key, bucket));
  }

  /** {@link take} without a promise: the in-process rate budget reads its bucket at once. */
  takeNow(key: string, bucket: FleetBucket): FleetTake {
    const step = bucketStep(this.#buckets.get(key), bucket);
    this.#buckets.set(key, step.state);
    return step.take;
  }

  /** A view for logs: how many keys are held, never their values. */
  toJSON(): Record<string, unknown> {
    return { type: 'MemoryFleetStore', keys: this.#values.size, buckets: this.#buckets.size };
  }
}

/**
 * A client's own store as {@link FleetAccess}: nothing leaves the process, so values are kept as
 * written (no sealing) and every operation is strict and lenient at once.
 */
export function localAccess(clientId: string, store: MemoryFleetStore): FleetAccess {
  return {
    shared: false,
    key: (...parts) => fleetKey(clientId, parts),
    get: (key) => store.get(key),
    set: (key, value, ttlMs) => store.set(key, value, ttlMs),
    compareAndSet: (key, expected, value, ttlMs) => store.compareAndSet(key, expected, value, ttlMs),
    compareAndDelete: (key, expected) => store.compareAndDelete(key, expected),
    lock: (key, ttlMs) => store.lock(key, ttlMs),
    unlock: (key, owner) => store.unlock(key, owner),
    take: (key, bucket) => store.take(key, bucket),
    seal: (_key, value) => Promise.resolve(value),
    open: (_key, raw) => Promise.resolve(raw),
    openStrict: (_key, raw) => Promise.resolve(raw),
    strictGet: (key) => store.get(key),
    strictSet: (key, value, ttlMs) => store.set(key, value, ttlMs),
    strictCreate: (key, value, ttlMs) => store.compareAndSet(key, undefined, value, ttlMs),
    strictDelete: (key, expected) => store.compareAndDelete(key, expected),
    strictLock: (key, ttlMs) => store.lock(key, ttlMs),
  };
}

/** Waits `ms` of wall-clock time (locks and polls follow real time, whatever clock the client reads). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
