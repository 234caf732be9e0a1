import type { FleetParts } from '../fleet/handle.js';
import { exclusive, FleetLink, type FleetLog } from '../fleet/link.js';
import type { FleetStore } from '../fleet/store.js';
import { isFresh, type TokenSet, type TokenStore } from './token-store.js';

/**
 * How long a fleet keeps a customer's latest token set (it carries the rotated refresh token the
 * next refresh must use): 30 days after its last refresh.
 */
export const SHARED_CUSTOMER_TTL_MS = 30 * 24 * 60 * 60 * 1000;

function parse(raw: string | undefined): TokenSet | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as TokenSet;
    return typeof value?.access_token === 'string' && typeof value.expires_at === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** How long a process reuses a token it read from the fleet's store before reading the store again. */
export const FLEET_TOKEN_READ_CACHE_MS = 1_000;

/**
 * Client-credentials tokens kept in the fleet's store: every process reuses one token per scope
 * set. A token read from the store is reused in this process for up to
 * {@link FLEET_TOKEN_READ_CACHE_MS} while it is fresh (one store round trip a second instead of one
 * per call); a token due for renewal is always looked up in the store, so a token another process
 * just fetched is found, not fetched again.
 */
export class FleetTokenStore implements TokenStore {
  readonly #link: FleetLink;
  readonly #now: () => number;
  readonly #read = new Map<string, { raw: string; value: TokenSet; until: number }>();

  constructor(link: FleetLink, now: () => number) {
    this.#link = link;
    this.#now = now;
  }

  async get(key: string): Promise<TokenSet | undefined> {
    const cached = this.#read.get(key);
    if (cached && Date.now() < cached.until && isFresh(cached.value, this.#now())) return cached.value;
    const raw = await this.#link.get(key);
    const value = parse(raw);
    if (raw !== undefined && value !== undefined) this.#read.set(key, { raw, value, until: Date.now() + FLEET_TOKEN_READ_CACHE_MS });
    else this.#read.delete(key);
    return value;
  }

  async set(key: string, value: TokenSet, ttlSeconds: number): Promise<void> {
    const raw = JSON.stringify(value);
    this.#read.set(key, { raw, value, until: Date.now() + FLEET_TOKEN_READ_CACHE_MS });
    await this.#link.set(key, raw, Math.max(1, ttlSeconds) * 1000);
  }

  /** Deletes the token this process last saw, and only that one: a newer token another process stored stays. */
  async delete(key: string): Promise<void> {
    const seen = this.#read.get(key)?.raw;
    this.#read.delete(key);
    const raw = seen ?? (await this.#link.get(key));
    if (raw !== undefined) await this.#link.compareAndDelete(key, raw);
  }

  /** A view for logs: never a token. */
  toJSON(): Record<string, unknown> {
    return { type: 'FleetTokenStore' };
  }
}

/** One client-credentials grant per key across the fleet: the lock holder asks, the others read its token. */
export function fleetGrantGuard(link: FleetLink, lockTtlMs: number) {
  return <T>(key: string, read: () => Promise<T | undefined>, produce: () => Promise<T>): Promise<T> =>
    exclusive(link, `${key}:lock`, lockTtlMs, read, produce);
}

/** What a customer refresh across the fleet resolved to: the new set, and whether this process redeemed the refresh token. */
export interface SharedRefreshOutcome {
  tokens: TokenSet;
  refreshed: boolean;
}

/**
 * A customer's refresh across the fleet, for the sessions that share an `id`: a newer set another
 * process stored is adopted as is; otherwise one process at a time (under a lock that expires)
 * redeems the newest refresh token known and stores the new set for the others.
 */
export function sharedCustomerRefresh(link: FleetLink, id: string, lockTtlMs: number, now: () => number) {
  const key = link.key('customer', id);
  return async (current: TokenSet, grant: (refreshToken: string) => Promise<TokenSet>): Promise<SharedRefreshOutcome> => {
    const newer = async () => {
      const shared = parse(await link.get(key));
      return shared && shared.access_token !== current.access_token && isFresh(shared, now()) ? shared : undefined;
    };
    let refreshed = false;
    const tokens = await exclusive(link, `${key}:lock`, lockTtlMs, newer, async () => {
      // The stored set holds the latest rotation when another process refreshed after this one did.
      const shared = parse(await link.get(key));
      const latest = shared && shared.refresh_token !== undefined && shared.expires_at >= current.expires_at ? shared : current;
      const fresh = await grant(latest.refresh_token ?? current.refresh_token!);
      const kept = { ...fresh, refresh_token: fresh.refresh_token ?? latest.refresh_token };
      await link.set(key, JSON.stringify(kept), SHARED_CUSTOMER_TTL_MS);
      refreshed = true;
      return kept;
    });
    return { tokens, refreshed };
  };
}

/**
 * The coordination code of the `fleet` option over the user's store: the link (250 ms limit,
 * in-process fallback), shared tokens, locks and shared customer refreshes. Loaded with the
 * fleet's first use (`FleetHandle`).
 */
export function connectFleet(store: FleetStore, options: { clientId: string; log: FleetLog; now: () => number }): FleetParts {
  const link = new FleetLink(store, options);
  return {
    link,
    tokens: new FleetTokenStore(link, options.now),
    grantGuard: (lockTtlMs) => fleetGrantGuard(link, lockTtlMs),
    customerRefresh: (id, lockTtlMs) => sharedCustomerRefresh(link, id, lockTtlMs, options.now),
  };
}
