import { type StoreSealer, storeSealer } from '../crypto/seal.js';
import { type FleetAccess, type FleetBucket, fleetKey, type FleetStore, type FleetTake, MemoryFleetStore, StoreFailure } from '../core/store.js';

/** Longest the SDK waits for the shared store on one operation before coordinating in-process. */
export const FLEET_TIMEOUT_MS = 250;
/** While the shared store is down, how often one operation tries it again. */
export const FLEET_PROBE_MS = 1_000;

/** Where the link reports outages: the client's logger. */
export interface FleetLog {
  warn(message: string, details?: object): void;
  info(message: string, details?: object): void;
}

class FleetTimeout extends Error {
  override name = 'FleetTimeout';
}

/** An answer of the shared store that is not what the operation returns (a lock owner that is no string, a take without a wait). */
class FleetUnreadable extends Error {
  override name = 'FleetUnreadable';
}

/** A lock's answer as the SDK reads it: an owner (a non-empty string), none (undefined or null), or unreadable. */
function lockOwner(answer: unknown): string | undefined {
  if (answer === undefined || answer === null) return undefined;
  if (typeof answer === 'string' && answer !== '') return answer;
  throw new FleetUnreadable('unreadable answer to lock');
}

/** A value's answer as the SDK reads it: a string, none (undefined or null), or unreadable. */
function storedValue(answer: unknown): string | undefined {
  if (answer === undefined || answer === null) return undefined;
  if (typeof answer === 'string') return answer;
  throw new FleetUnreadable('unreadable answer to get');
}

/** A compare-and-set's answer as the strict operations read it: a boolean, or unreadable. */
function answerBoolean(answer: unknown): boolean {
  if (typeof answer !== 'boolean') throw new FleetUnreadable('unreadable answer to compareAndSet');
  return answer;
}

/** A take's answer as the SDK reads it: `granted` a boolean and `wait` a number of ms from 0 up, or unreadable. */
function takeAnswer(answer: unknown): FleetTake {
  const take = answer as Partial<FleetTake> | null | undefined;
  if (typeof take !== 'object' || take === null || typeof take.granted !== 'boolean' || typeof take.wait !== 'number' || !(take.wait >= 0)) {
    throw new FleetUnreadable('unreadable answer to take');
  }
  return { granted: take.granted, wait: take.wait };
}

/** Local locks carry this prefix, so `unlock` knows which store granted them. */
const LOCAL = 'local:';

/**
 * A client's view of its fleet store: every operation bounded to {@link FLEET_TIMEOUT_MS}, and
 * when the store fails or is slow, the same operation on an in-process store instead, so no call
 * fails or waits because of the shared store. One `warn` line per outage (not per call); while
 * down, one operation per {@link FLEET_PROBE_MS} tries the shared store again, and the first that
 * succeeds ends the outage (one `info` line). Keys are namespaced by client id. What must not
 * fall back (the customer refresh protocol's records and lock) uses the `strict*` operations,
 * which reject with `StoreFailure` instead. Values are sealed and opened with the client secret
 * (`seal`, `open`), and opened with `previousClientSecrets` too during a rotation.
 */
export class FleetLink implements FleetAccess {
  readonly #remote: FleetStore;
  readonly #local = new MemoryFleetStore();
  readonly #log: FleetLog;
  readonly #clientId: string;
  readonly #sealer: StoreSealer;
  #down = false;
  #nextProbe = 0;
  #outages = 0;
  /** Values leave the process. */
  readonly shared = true;

  constructor(remote: FleetStore, options: { clientId: string; clientSecret: string; previousClientSecrets?: readonly string[]; log: FleetLog }) {
    this.#remote = remote;
    this.#log = options.log;
    this.#clientId = options.clientId;
    this.#sealer = storeSealer(options.clientSecret, options.previousClientSecrets);
  }

  /** `value` sealed for the store key `key`. */
  seal(key: string, value: string): Promise<string> {
    return this.#sealer.seal(key, value);
  }

  /** What `seal` sealed for `key`, or undefined when `raw` is absent or does not open. */
  open(key: string, raw: string | undefined): Promise<string | undefined> {
    return this.#sealer.open(key, raw);
  }

  /** What `seal` sealed for `key`, undefined when absent; a value that is there but does not open rejects with `StoreFailure`. */
  async openStrict(key: string, raw: string | undefined): Promise<string | undefined> {
    if (raw === undefined) return undefined;
    const value = await this.#sealer.open(key, raw);
    if (value === undefined) throw new StoreFailure('a value in the shared store does not open with this client secret or its previousClientSecrets', true);
    return value;
  }

  /** A key of this client's namespace: `openbanking-ng:<clientId>:<parts joined by ':'>`. */
  key(...parts: string[]): string {
    return fleetKey(this.#clientId, parts);
  }

  /** True while operations go to the in-process store. */
  get degraded(): boolean {
    return this.#down;
  }

  /** How many outages began since the link was made. */
  get outages(): number {
    return this.#outages;
  }

  /**
   * One operation on the shared store, bounded to {@link FLEET_TIMEOUT_MS}. On failure: `local`'s
   * answer, or (strict, without `local`) the failure itself. `late` receives an answer that
   * arrived after the timeout (e.g. a lock to release).
   */
  async #run<T>(op: string, remote: (store: FleetStore) => Promise<T>, local: ((store: FleetStore) => Promise<T>) | undefined, late?: (value: T) => void): Promise<T> {
    if (this.#down && local) {
      if (Date.now() < this.#nextProbe) return local(this.#local);
      this.#nextProbe = Date.now() + FLEET_PROBE_MS; // this operation is the probe; the others stay local
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    try {
      const attempt = remote(this.#remote);
      attempt.then((value) => timedOut && late?.(value), () => undefined); // a late failure has nobody to tell
      const result = await Promise.race([
        attempt,
        new Promise<never>((_, reject) => {
          // setImmediate: an answer that arrived while this process was busy is read (I/O phase)
          // before the timeout counts, so a stalled event loop is not taken for a slow store.
          timer = setTimeout(() => afterIo(() => {
            timedOut = true;
            reject(new FleetTimeout(`no answer within ${FLEET_TIMEOUT_MS} ms`));
          }), FLEET_TIMEOUT_MS);
        }),
      ]);
      if (this.#down) {
        this.#down = false;
        this.#log.info('openbanking-ng fleet: the shared store answers again; coordination across processes resumed', { operation: op });
      }
      return result;
    } catch (error) {
      if (!this.#down) {
        this.#down = true;
        this.#outages++;
        this.#nextProbe = Date.now() + FLEET_PROBE_MS;
        this.#log.warn(
          `openbanking-ng fleet: the shared store failed (${describe(error)}); calls go on with coordination inside this process until it answers again`,
          { operation: op },
        );
      }
      if (!local) throw new StoreFailure(`the shared store did not confirm ${op} (${describe(error)})`);
      return local(this.#local);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  get(key: string): Promise<string | undefined> {
    return this.#run('get', async (s) => storedValue(await s.get(key)), (s) => s.get(key));
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    // Written to both: the in-process copy is what this process falls back on during an outage.
    void this.#local.set(key, value, ttlMs);
    return this.#run('set', (s) => s.set(key, value, ttlMs), () => Promise.resolve());
  }

  compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean> {
    return this.#run('compareAndSet', async (s) => {
      const stored = await s.compareAndSet(key, expected, value, ttlMs);
      if (stored) void this.#local.set(key, value, ttlMs);
      return stored;
    }, (s) => s.compareAndSet(key, expected, value, ttlMs));
  }

  compareAndDelete(key: string, expected: string): Promise<boolean> {
    void this.#local.compareAndDelete(key, expected);
    return this.#run('compareAndDelete', (s) => s.compareAndDelete(key, expected), () => Promise.resolve(true));
  }

  lock(key: string, ttlMs: number): Promise<string | undefined> {
    const local = async (s: FleetStore) => {
      const owner = await s.lock(key, ttlMs);
      return owner === undefined ? undefined : LOCAL + owner;
    };
    return this.#run('lock', async (s) => lockOwner(await s.lock(key, ttlMs)), local, (owner) => this.#release(key, owner));
  }

  /**
   * The lock `key` from the shared store only: rejects with `StoreFailure` when it cannot
   * say, an answer that is neither an owner nor none included (never taken for a granted lock).
   */
  strictLock(key: string, ttlMs: number): Promise<string | undefined> {
    return this.#run('lock', async (s) => lockOwner(await s.lock(key, ttlMs)), undefined, (owner) => this.#release(key, owner));
  }

  /** The value under `key` in the shared store only: rejects with `StoreFailure` when it cannot say (an unreadable answer included). */
  strictGet(key: string): Promise<string | undefined> {
    return this.#run('get', async (s) => storedValue(await s.get(key)), undefined);
  }

  /** Stores `value` in the shared store only: rejects with `StoreFailure` when it cannot confirm. */
  strictSet(key: string, value: string, ttlMs: number): Promise<void> {
    return this.#run('set', (s) => s.set(key, value, ttlMs), undefined);
  }

  /** Stores `value` only if `key` is absent, in the shared store only: rejects with `StoreFailure` when it cannot say. */
  strictCreate(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#run('compareAndSet', async (s) => answerBoolean(await s.compareAndSet(key, undefined, value, ttlMs)), undefined);
  }

  /** Deletes `key` if it holds `expected`, in the shared store only: rejects with `StoreFailure` when it cannot say. */
  strictDelete(key: string, expected: string): Promise<boolean> {
    return this.#run('compareAndDelete', async (s) => answerBoolean(await s.compareAndDelete(key, expected)), undefined);
  }

  /** A lock granted after its request timed out: nobody holds it, so it is released at once. */
  #release(key: string, owner: string | undefined): void {
    if (owner !== undefined) this.#remote.unlock(key, owner).catch(() => undefined);
  }

  async unlock(key: string, owner: string): Promise<void> {
    if (owner.startsWith(LOCAL)) return this.#local.unlock(key, owner.slice(LOCAL.length));
    // A lock the shared store granted: released there, or left to expire if it is down.
    return this.#run('unlock', (s) => s.unlock(key, owner), () => Promise.resolve());
  }

  take(key: string, bucket: FleetBucket): Promise<FleetTake> {
    // An answer that cannot be read is a failure of the store: the in-process bucket takes over.
    return this.#run('take', async (s) => takeAnswer(await s.take(key, bucket)), (s) => s.take(key, bucket));
  }

  /** A view for logs: whether the shared store is in use, never a key or a value. */
  toJSON(): Record<string, unknown> {
    return { degraded: this.#down, outages: this.#outages };
  }
}

/** The kind of failure, never its text (a store's message could quote a value). */
function describe(error: unknown): string {
  if (error instanceof FleetTimeout || error instanceof FleetUnreadable) return error.message;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && /^[A-Z_]{2,32}$/.test(code) ? `${error.name} ${code}` : error.name;
  }
  return typeof error;
}

/** Runs `fn` after the pending I/O callbacks (`setImmediate` where the runtime has it). */
function afterIo(fn: () => void): void {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (typeof immediate === 'function') immediate(fn);
  else setTimeout(fn, 0);
}
