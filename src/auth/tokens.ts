import type { BearerSource } from '../core/http.js';
import { scopeList } from '../core/config.js';
import { type FleetAccess, MemoryFleetStore, pause } from '../core/store.js';
import { ValidationError, type ValidationIssue } from '../errors/index.js';
import type { GrantContext, TokenSet } from './grants.js';
import { requestGrant } from './grants.js';

export type { TokenSet } from './grants.js';

// Token sets, where they are kept, when one is due, a customer's tokens as the caller hands them
// over, and the lifecycle of a client-credentials token: one source per scope set, one request in
// flight per token, one grant per scope set across a fleet.

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

/**
 * Seconds before expiry at which a token stops being used: min(30 s, 10 % of its lifetime), and
 * at least 1 s.
 */
export function refreshMargin(lifetimeSeconds: number): number {
  return Math.max(1, Math.min(30, lifetimeSeconds * 0.1));
}

/** True while the token has more than its refresh margin left. */
export function isFresh(token: TokenSet, nowMs: number = Date.now()): boolean {
  const lifetime = token.expires_in > 0 ? token.expires_in : token.expires_at - nowMs / 1000;
  return token.expires_at - nowMs / 1000 > refreshMargin(lifetime);
}

/**
 * A token set as you hand it to the SDK: one you stored (with `expires_at`), or one just received
 * from a token endpoint (with only `expires_in`, from which the SDK computes `expires_at`).
 * @group OAuth
 */
export type TokenSetInput = Omit<TokenSet, 'expires_at' | 'expires_in'> &
  (
    | {
        /** Expiry as Unix seconds, as the SDK stored it. */
        expires_at: number;
        /** Lifetime in seconds as the server gave it. */
        expires_in?: number;
      }
    | {
        /** Lifetime in seconds, counted from now. */
        expires_in: number;
        /** Expiry as Unix seconds, when known. */
        expires_at?: number;
      }
  );

/**
 * A customer's tokens and session options as the caller handed them over, normalised (`expires_at`
 * from `expires_in`), and the `ValidationError` every call of the session rejects with when they
 * are bad. The session remembers the tokens, to mask them.
 */
export function checkCustomerTokens(tokens: unknown, options: unknown, nowMs: number): { tokens: TokenSet; invalid: ValidationError | undefined } {
  const issues: ValidationIssue[] = [];
  const add = (path: string, message: string, code = 'invalid_type') => issues.push({ path, message, code });
  if (typeof tokens !== 'object' || tokens === null) {
    add('tokens', 'must be a token set { access_token, expires_at, refresh_token?, ... }');
    return { tokens: tokens as TokenSet, invalid: new ValidationError('Invalid customer tokens', issues) };
  }
  const t = tokens as Partial<Record<keyof TokenSet, unknown>>;
  if (typeof t.access_token !== 'string' || t.access_token === '') add('tokens.access_token', 'is required (a non-empty string)', 'missing');
  if (t.refresh_token !== undefined && (typeof t.refresh_token !== 'string' || t.refresh_token === '')) add('tokens.refresh_token', 'must be a non-empty string');
  const expiresIn = typeof t.expires_in === 'number' && Number.isFinite(t.expires_in) ? t.expires_in : undefined;
  let expiresAt = t.expires_at;
  if (expiresAt === undefined && expiresIn !== undefined) expiresAt = Math.floor(nowMs / 1000) + expiresIn;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) add('tokens.expires_at', 'is required (Unix seconds), or expires_in for a set received just now', 'missing');
  if (options !== undefined) {
    const o = options as { onTokens?: unknown; onConsentEnded?: unknown; id?: unknown } | null;
    if (typeof options !== 'object' || o === null) add('options', 'must be an object { onTokens, onConsentEnded, id }');
    else {
      if (o.onTokens !== undefined && typeof o.onTokens !== 'function') add('options.onTokens', 'must be a function');
      if (o.onConsentEnded !== undefined && typeof o.onConsentEnded !== 'function') add('options.onConsentEnded', 'must be a function');
      if (o.id !== undefined && (typeof o.id !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(o.id))) add('options.id', 'must be 1 to 200 visible ASCII characters (no spaces)', 'invalid_format');
    }
  }
  const set = { ...(t as TokenSet), expires_at: expiresAt as number, expires_in: expiresIn ?? (expiresAt as number) - Math.floor(nowMs / 1000) };
  return { tokens: set, invalid: issues.length > 0 ? new ValidationError('Invalid customer tokens', issues) : undefined };
}

/** Runs `produce` unless `read` finds the value, one holder at a time across a fleet. */
export type GrantGuard = <T>(key: string, read: () => Promise<T | undefined>, produce: () => Promise<T>) => Promise<T>;

/** In-process single flight, keyed by store and key: clients sharing a store share one request. */
const inFlight = new WeakMap<TokenStore, Map<string, Promise<TokenSet>>>();

/** The store key of a client-credentials token: `openbanking-ng:<clientId>:<sorted scopes>`. */
export function tokenKey(clientId: string, scopes: readonly string[]): string {
  return `openbanking-ng:${clientId}:${scopeList(scopes).join(' ')}`;
}

/** Requests one client-credentials token set (POST `{auth_url}/oauth2/token`, `client_secret_post`). */
async function requestToken(ctx: GrantContext, _tokenPath: string, scopes: readonly string[]): Promise<TokenSet> {
  return requestGrant(ctx, { kind: 'client_credentials', scope: scopeList(scopes).join(' ') });
}

const accessToken = (token: TokenSet): string => token.access_token;

/**
 * Client-credentials tokens of one client. {@link source} is the client's one cache of token
 * sources: one per scope set, built once, used by API calls, `ob.request` and the client calls of
 * customer sessions alike (a 401 renewal backs off per source). A token is cached in the token
 * store until shortly before expiry, fetched by one request for any number of concurrent callers
 * (and clients sharing the store), and dropped when the API refuses it.
 */
export class ClientCredentialsTokens {
  // Private fields, never own properties: the grant context holds the client secret.
  readonly #ctx: GrantContext;
  readonly #tokenPath: string;
  readonly #store: TokenStore;
  readonly #guard: GrantGuard | undefined;
  readonly #sources = new Map<string, BearerSource>();
  readonly #byList = new WeakMap<readonly string[], BearerSource>();
  readonly #keys = new WeakMap<readonly string[], string>();

  /** @param guard - with a fleet: makes one grant per key across every process (see `fleetGrantGuard`). */
  constructor(ctx: GrantContext, tokenPath: string, store: TokenStore, guard?: GrantGuard) {
    this.#ctx = ctx;
    this.#tokenPath = tokenPath;
    this.#store = store;
    this.#guard = guard;
  }

  /** The token source for `scopes`, the same object for the same scope set. */
  source(scopes: readonly string[]): BearerSource {
    // An operation's scope list is one array for the client's life: found again without sorting it.
    let source = this.#byList.get(scopes);
    if (source !== undefined) return source;
    const list = scopeList(scopes);
    const key = list.join(' ');
    source = this.#sources.get(key);
    if (source === undefined) {
      source = { token: () => this.get(list).then(accessToken), renew: (rejected) => this.renew(list, rejected).then(accessToken) };
      this.#sources.set(key, source);
    }
    this.#byList.set(scopes, source);
    return source;
  }

  /** A usable access token for `scopes`, from the store or from one shared grant. */
  async get(scopes: readonly string[]): Promise<TokenSet> {
    let key = this.#keys.get(scopes);
    if (key === undefined) this.#keys.set(scopes, (key = tokenKey(this.#ctx.clientId, scopes)));
    const cached = await this.#store.get(key);
    if (cached && isFresh(cached, this.#ctx.now())) return cached;
    return this.#fetchOnce(key, scopes);
  }

  /** Drops `rejected` (if it is still the stored token) and gets a new one in a single flight. */
  async renew(scopes: readonly string[], rejected: string): Promise<TokenSet> {
    const key = tokenKey(this.#ctx.clientId, scopes);
    const flight = inFlight.get(this.#store)?.get(key);
    if (flight) return flight;
    const cached = await this.#store.get(key);
    if (cached && cached.access_token !== rejected && isFresh(cached, this.#ctx.now())) return cached;
    if (cached) await this.#store.delete(key);
    return this.#fetchOnce(key, scopes, rejected);
  }

  #fetchOnce(key: string, scopes: readonly string[], rejected?: string): Promise<TokenSet> {
    let flights = inFlight.get(this.#store);
    if (!flights) inFlight.set(this.#store, (flights = new Map()));
    const existing = flights.get(key);
    if (existing) return existing;
    const map = flights;
    // Look once more before asking: with a store that answers slowly (Redis, another process), a
    // token may have landed since this caller's first read missed, and a second grant is waste.
    const recheck = async () => {
      const stored = await this.#store.get(key);
      return stored && stored.access_token !== rejected && isFresh(stored, this.#ctx.now()) ? stored : undefined;
    };
    const grant = async () => {
      const token = await requestToken(this.#ctx, this.#tokenPath, scopes);
      await this.#store.set(key, token, token.expires_in);
      return token;
    };
    const flight = (this.#guard ? this.#guard(key, recheck, grant) : recheck().then((stored) => stored ?? grant())).finally(() => {
      if (map.get(key) === flight) map.delete(key);
    });
    map.set(key, flight);
    return flight;
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

/** A token set as the SDK wrote it to a store, or undefined when `raw` is not one. */
export function parseTokenSet(raw: string | undefined): TokenSet | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as TokenSet;
    return typeof value?.access_token === 'string' && typeof value.expires_at === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One client-credentials grant per key across the fleet: the holder of the lock `<key>:lock` reads
 * once more under it (another may just have stored a token), then asks; the others poll the store
 * until the token appears or the lock is free again (a holder that died loses it after
 * `lockTtlMs`). Bounded: past twice the lock's lifetime, a waiter asks by itself rather than wait
 * longer. The lock falls back in-process when the store fails: a duplicate costs one token request.
 */
export function fleetGrantGuard(fleet: FleetAccess, lockTtlMs: number): GrantGuard {
  return async <T>(key: string, read: () => Promise<T | undefined>, produce: () => Promise<T>): Promise<T> => {
    const lock = `${key}:lock`;
    const deadline = Date.now() + 2 * lockTtlMs + 1_000;
    for (let round = 0; ; round++) {
      const owner = await fleet.lock(lock, lockTtlMs);
      if (owner !== undefined) {
        try {
          return (await read()) ?? (await produce());
        } finally {
          void fleet.unlock(lock, owner).catch(() => undefined);
        }
      }
      await pause(Math.min(100, 10 * (round + 1)));
      const ready = await read();
      if (ready !== undefined) return ready;
      if (Date.now() > deadline) return produce();
    }
  };
}
