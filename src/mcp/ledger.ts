import { sha256 } from '../crypto/bytes.js';
import { type FleetStore, MemoryFleetStore, type OpenBanking } from '../index.js';
import { ToolRefusal } from './results.js';

// What the server remembers between calls: the amount sent per Lagos day, and the input each
// idempotency key was sent with. In the client's fleet store when it has one, so every server
// process of the fleet shares them; else in memory, per client (for money tools only when the
// operator said `ledger: 'memory'`: a restart starts the day again). Confirmations spent live here
// too, so that one is used once across the fleet.

/** Lagos keeps West Africa Time, UTC+1, with no daylight saving. */
const WAT_OFFSET_MS = 3_600_000;
/** Day totals outlive their day, so a late replay still finds nothing to recount. */
const DAY_TTL_MS = 2 * 86_400_000;
/** A spent confirmation is remembered past its own expiry. */
const CONFIRMATION_TTL_MS = 15 * 60_000;
/** How long a key's input is remembered: longer than any retry an agent makes. */
const KEY_TTL_MS = 7 * 86_400_000;
/** A store that takes longer refuses money movement rather than guessing the total. */
const STORE_TIMEOUT_MS = 2_000;
const CAS_TRIES = 20;

/** The calendar day in Lagos at `ms`, as `YYYY-MM-DD`. */
export function lagosDay(ms: number): string {
  return new Date(ms + WAT_OFFSET_MS).toISOString().slice(0, 10);
}

/** Major units to kobo, so that sums of naira and kobo add up exactly. */
export const toMinor = (amount: number): number => Math.round(amount * 100);

/** What the ledger refuses to guess: a store that fails, is slow or holds what it did not write. */
function unavailable(what: string): ToolRefusal {
  return new ToolRefusal('LimitUnavailable', `The fleet store did not answer ${what}, so the daily limit cannot be checked; nothing was sent. Try again when the store answers.`);
}

const memories = new WeakMap<OpenBanking, MemoryFleetStore>();

/** A key's record: the digest of the input it was sent with. */
export interface KeyRecord {
  input: string;
}

/** The day totals and the keys' records of one customer (or of the server, without a customer id). */
export class Ledger {
  readonly #store: FleetStore;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(ob: OpenBanking, now: () => number, memory: boolean) {
    let store = memory ? undefined : ob.fleet;
    if (store === undefined) {
      store = memories.get(ob) ?? new MemoryFleetStore();
      memories.set(ob, store as MemoryFleetStore);
    }
    this.#store = store;
    this.#prefix = `openbanking-ng:${ob.clientId}:mcp`;
    this.#now = now;
  }

  /** Today in Lagos. */
  today(): string {
    return lagosDay(this.#now());
  }

  /** The scope of a customer session `id` (hashed: a key never spells a customer's id), else the server's. */
  async scope(customerId: string | undefined): Promise<string> {
    return customerId === undefined ? 'server' : `customer-${(await sha256(customerId)).slice(0, 32)}`;
  }

  #dayKey(scope: string, day: string): string {
    return `${this.#prefix}:day:${day}:${scope}`;
  }

  async #keyKey(scope: string, key: string): Promise<string> {
    return `${this.#prefix}:key:${scope}:${await sha256(key)}`;
  }

  async #call<T>(what: string, run: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unavailable(what)), STORE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([run(), late]);
    } catch (error) {
      throw error instanceof ToolRefusal ? error : unavailable(what);
    } finally {
      clearTimeout(timer);
    }
  }

  async #read(key: string, what: string): Promise<{ raw: string | undefined; minor: number }> {
    const raw = await this.#call(what, () => this.#store.get(key));
    if (raw === undefined || raw === null) return { raw: undefined, minor: 0 };
    const minor = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(minor)) throw unavailable(`${what} (its value is not a total)`);
    return { raw, minor };
  }

  /** What was sent on `day` (kobo). */
  async spent(scope: string, day: string): Promise<number> {
    return (await this.#read(this.#dayKey(scope, day), 'for the day total')).minor;
  }

  /**
   * Adds `minor` to the day's total unless it would pass `limitMinor`: resolves to the total and
   * whether it was added. Atomic across the fleet (compare-and-set).
   */
  async reserve(scope: string, day: string, minor: number, limitMinor: number): Promise<{ total: number; added: boolean }> {
    const key = this.#dayKey(scope, day);
    for (let i = 0; i < CAS_TRIES; i++) {
      const { raw, minor: total } = await this.#read(key, 'for the day total');
      if (total + minor > limitMinor) return { total, added: false };
      if (await this.#call('to count the amount', () => this.#store.compareAndSet(key, raw, String(total + minor), DAY_TTL_MS))) return { total: total + minor, added: true };
    }
    throw unavailable('to count the amount (too many concurrent writers)');
  }

  /** Takes `minor` back off the day's total: what was reserved and never sent. */
  async release(scope: string, day: string, minor: number): Promise<void> {
    const key = this.#dayKey(scope, day);
    for (let i = 0; i < CAS_TRIES; i++) {
      const { raw, minor: total } = await this.#read(key, 'for the day total');
      if (await this.#call('to release the amount', () => this.#store.compareAndSet(key, raw, String(Math.max(0, total - minor)), DAY_TTL_MS))) return;
    }
  }

  /** The input digest an idempotency key was sent with, if it was. */
  async record(scope: string, idempotencyKey: string): Promise<KeyRecord | undefined> {
    const raw = await this.#call('for the idempotency key', async () => this.#store.get(await this.#keyKey(scope, idempotencyKey)));
    if (raw === undefined || raw === null) return undefined;
    try {
      const parsed = JSON.parse(raw) as KeyRecord;
      if (typeof parsed.input === 'string') return parsed;
    } catch {
      // unreadable: refused below
    }
    throw unavailable('for the idempotency key (its value is unreadable)');
  }

  /** Records the key before it is sent; false when another call recorded it first. */
  async claim(scope: string, idempotencyKey: string, record: KeyRecord): Promise<boolean> {
    const key = await this.#keyKey(scope, idempotencyKey);
    return this.#call('to record the idempotency key', () => this.#store.compareAndSet(key, undefined, JSON.stringify(record), KEY_TTL_MS));
  }

  /** Spends a confirmation's nonce: true the first time, false for every later use, in any process of the fleet. */
  async spendConfirmation(nonce: string): Promise<boolean> {
    const key = `${this.#prefix}:confirmation:${await sha256(nonce)}`;
    return this.#call('to spend the confirmation', () => this.#store.compareAndSet(key, undefined, 'spent', CONFIRMATION_TTL_MS));
  }

  /** Forgets a key whose call was never sent, so it may be used again. */
  async unclaim(scope: string, idempotencyKey: string, record: KeyRecord): Promise<void> {
    const key = await this.#keyKey(scope, idempotencyKey);
    await this.#call('to release the idempotency key', () => this.#store.compareAndDelete(key, JSON.stringify(record)));
  }
}

/** The digest of a tool call's input: the tool and its arguments, keys sorted, the idempotency key left out. */
export async function inputDigest(tool: string, args: Record<string, unknown>): Promise<string> {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  };
  const { idempotency_key: _key, ...rest } = args;
  return sha256(JSON.stringify([tool, canonical(rest)]));
}
