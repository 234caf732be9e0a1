import { OPERATION_SCOPES, scopeList } from '../core/scopes.js';
import { type FleetAccess, MemoryFleetStore } from '../core/store.js';
import { type GrantContext, requestGrant } from './grants.js';
import { isFresh, parseTokenSet, TokenCache, type TokenSet, waitTurns } from './token-cache.js';

// Client-credentials tokens: where they are kept (the token store, the fleet's), and a token cache
// per scope set over the store, one grant per scope set among the clients sharing the store and,
// with a fleet, across its processes.

/**
 * Where client-credentials tokens are cached. Share one store (e.g. backed by Redis) between
 * client instances or processes so they reuse one token. Keys are built by the SDK as
 * `openbanking-ng:<clientId>:<sorted scopes>`.
 * @group OAuth
 */
export interface TokenStore {
  /** The stored token set, or undefined. */
  get(key: string): Promise<TokenSet | undefined>;
  /** Stores a token set for `ttlSeconds`. */
  set(key: string, value: TokenSet, ttlSeconds: number): Promise<void>;
  /** Forgets a token set (e.g. after the API refused it). */
  delete(key: string): Promise<void>;
}

/**
 * The default token store: a map in this process, entries expiring after their time to live (a
 * view of the SDK's one in-memory store, `MemoryFleetStore`).
 * @group OAuth
 */
export class MemoryTokenStore implements TokenStore {
  readonly #store: MemoryFleetStore;

  /**
   * @param now - clock in milliseconds, for tests.
   * @param store - @internal the store it keeps its entries in (a client's own).
   */
  constructor(now: () => number = Date.now, store: MemoryFleetStore = new MemoryFleetStore(now)) {
    this.#store = store;
  }

  async get(key: string): Promise<TokenSet | undefined> {
    const raw = await this.#store.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as TokenSet);
  }

  set(key: string, value: TokenSet, ttlSeconds: number): Promise<void> {
    return this.#store.set(key, JSON.stringify(value), ttlSeconds * 1000);
  }

  delete(key: string): Promise<void> {
    return this.#store.delete(key);
  }
}

/** Runs `produce` unless `read` finds the value, one holder at a time across a fleet. */
export type GrantGuard = <T>(key: string, read: () => Promise<T | undefined>, produce: () => Promise<T>) => Promise<T>;

/** The operations' own scope lists already in the form `scopeList` gives (frozen, so they stay so): used as they are. */
const NORMAL_LISTS: WeakSet<readonly string[]> = new WeakSet(Object.values(OPERATION_SCOPES).filter((scopes) => scopes.join(' ') === scopeList(scopes).join(' ')));

/** Grants in flight per token store, by key: clients sharing a store share one request. */
const inFlight = new WeakMap<TokenStore, Map<string, Promise<TokenSet>>>();

/** The store key of a client-credentials token: `openbanking-ng:<clientId>:<sorted scopes>` (`scopes` as `scopeList` gives them). */
function tokenKey(clientId: string, scopes: readonly string[]): string {
  return `openbanking-ng:${clientId}:${scopes.join(' ')}`;
}

/**
 * Client-credentials tokens of one client. {@link source} is the client's one cache of token
 * sources: a {@link TokenCache} per scope set, built once, used by API calls, `ob.request` and the
 * client calls of customer sessions alike (a 401 renewal backs off per source). A token is kept in
 * the token store until shortly before expiry, fetched by one request for any number of concurrent
 * callers (and clients sharing the store), and dropped when the API refuses it.
 */
export class ClientCredentialsTokens {
  // Private fields, never own properties: the grant context holds the client secret.
  readonly #ctx: GrantContext;
  readonly #store: TokenStore;
  readonly #guard: GrantGuard | undefined;
  readonly #sources = new Map<string, TokenCache>();
  readonly #byList = new WeakMap<readonly string[], TokenCache>();

  /** @param guard - with a fleet: makes one grant per key across every process (see `fleetGrantGuard`). */
  constructor(ctx: GrantContext, store: TokenStore, guard?: GrantGuard) {
    this.#ctx = ctx;
    this.#store = store;
    this.#guard = guard;
  }

  /** The token source for `scopes`, the same object for the same scope set. */
  source(scopes: readonly string[]): TokenCache {
    // An operation's scope list is one array for the client's life: found again without sorting it.
    let source = this.#byList.get(scopes);
    if (source !== undefined) return source;
    const list = NORMAL_LISTS.has(scopes) ? scopes : scopeList(scopes);
    const name = list.join(' ');
    source = this.#sources.get(name);
    if (source === undefined) this.#sources.set(name, (source = this.#cache(list)));
    this.#byList.set(scopes, source);
    return source;
  }

  #cache(scopes: readonly string[]): TokenCache {
    const ctx = this.#ctx;
    const store = this.#store;
    const key = tokenKey(ctx.clientId, scopes);
    let flights = inFlight.get(store);
    if (flights === undefined) inFlight.set(store, (flights = new Map()));
    return new TokenCache(
      {
        read: () => store.get(key),
        usable: (set) => isFresh(set, ctx.now()),
        key: () => key,
        provide: (_set, rejected) => {
          // Look once more before asking: with a store that answers slowly (Redis, another process), a
          // token may have landed since this caller's first read missed, and a second grant is waste.
          const recheck = async () => {
            const stored = await store.get(key);
            return stored && stored.access_token !== rejected && isFresh(stored, ctx.now()) ? stored : undefined;
          };
          const grant = async () => {
            const token = await requestGrant(ctx, { kind: 'client_credentials', scope: scopes.join(' ') });
            await store.set(key, token, token.expires_in);
            return token;
          };
          return this.#guard ? this.#guard(key, recheck, grant) : recheck().then((stored) => stored ?? grant());
        },
        adopt: (answer) => answer,
        invalidate: () => store.delete(key),
      },
      flights,
    );
  }
}

/** How long a process reuses a token it read from the fleet's store before reading the store again. */
export const FLEET_TOKEN_READ_CACHE_MS = 1_000;

/**
 * Client-credentials tokens kept in the fleet's store (sealed): every process reuses one token per
 * scope set. A token read from the store is reused in this process for up to
 * {@link FLEET_TOKEN_READ_CACHE_MS} while it is fresh (one store round trip a second instead of one
 * per call); a token due for renewal is always looked up in the store, so a token another process
 * just fetched is found, not fetched again. A value that does not open is a miss (asked for anew).
 */
export class FleetTokenStore implements TokenStore {
  readonly #fleet: FleetAccess;
  readonly #now: () => number;
  readonly #read = new Map<string, { raw: string; value: TokenSet; until: number }>();

  constructor(fleet: FleetAccess, now: () => number) {
    this.#fleet = fleet;
    this.#now = now;
  }

  async get(key: string): Promise<TokenSet | undefined> {
    const cached = this.#read.get(key);
    if (cached && Date.now() < cached.until && isFresh(cached.value, this.#now())) return cached.value;
    const raw = await this.#fleet.get(key);
    const value = parseTokenSet(await this.#fleet.open(key, raw));
    if (raw !== undefined && value !== undefined) this.#read.set(key, { raw, value, until: Date.now() + FLEET_TOKEN_READ_CACHE_MS });
    else this.#read.delete(key);
    return value;
  }

  async set(key: string, value: TokenSet, ttlSeconds: number): Promise<void> {
    const raw = await this.#fleet.seal(key, JSON.stringify(value));
    this.#read.set(key, { raw, value, until: Date.now() + FLEET_TOKEN_READ_CACHE_MS });
    await this.#fleet.set(key, raw, Math.max(1, ttlSeconds) * 1000);
  }

  /** Deletes the token this process last saw, and only that one: a newer token another process stored stays. */
  async delete(key: string): Promise<void> {
    const seen = this.#read.get(key)?.raw;
    this.#read.delete(key);
    const raw = seen ?? (await this.#fleet.get(key));
    if (raw !== undefined) await this.#fleet.compareAndDelete(key, raw);
  }

  /** A view for logs: never a token. */
  toJSON(): Record<string, unknown> {
    return { type: 'FleetTokenStore' };
  }
}

/**
 * One client-credentials grant per key across the fleet: the holder of the lock `<key>:lock` reads
 * once more under it (another may just have stored a token), then asks; the others look in the
 * store until the token appears or the lock is free again (a holder that died loses it after
 * `lockTtlMs`). Bounded: past twice the lock's lifetime, a waiter asks by itself rather than wait
 * longer. The lock falls back in-process when the store fails: a duplicate costs one token request.
 */
export function fleetGrantGuard(fleet: FleetAccess, lockTtlMs: number): GrantGuard {
  return <T>(key: string, read: () => Promise<T | undefined>, produce: () => Promise<T>): Promise<T> => {
    const lock = `${key}:lock`;
    const turn = async (): Promise<T | undefined> => {
      const owner = await fleet.lock(lock, lockTtlMs);
      if (owner === undefined) return read();
      try {
        return (await read()) ?? (await produce());
      } finally {
        void fleet.unlock(lock, owner).catch(() => undefined);
      }
    };
    return waitTurns(turn, 2 * lockTtlMs + 1_000, produce);
  };
}
