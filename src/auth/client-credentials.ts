import type { GrantContext } from './grant-context.js';
import { scopeList } from '../core/scopes.js';
import { isFresh, type TokenSet, type TokenStore } from './token-store.js';

/** Runs `produce` unless `read` finds the value, one holder at a time across a fleet. */
export type GrantGuard = <T>(key: string, read: () => Promise<T | undefined>, produce: () => Promise<T>) => Promise<T>;

/** In-process single flight, keyed by store and key: clients sharing a store share one request. */
const inFlight = new WeakMap<TokenStore, Map<string, Promise<TokenSet>>>();

/** The store key of a client-credentials token: `openbanking-ng:<clientId>:<sorted scopes>`. */
export function tokenKey(clientId: string, scopes: readonly string[]): string {
  return `openbanking-ng:${clientId}:${scopeList(scopes).join(' ')}`;
}

/** Requests one client-credentials token set (POST `{auth_url}/oauth2/token`, `client_secret_post`). */
export async function requestClientCredentials(ctx: GrantContext, tokenPath: string, scopes: readonly string[], signal?: AbortSignal): Promise<TokenSet> {
  // oauth4webapi and ky load with the first grant, not with the package.
  const { requestClientCredentials: grant } = await import('./grants.js');
  return grant(ctx, tokenPath, scopeList(scopes).join(' '), signal);
}

/**
 * Client-credentials tokens for one client: cached in the token store until shortly before
 * expiry, one request for any number of concurrent callers, dropped when the API refuses them.
 */
export class ClientCredentialsTokens {
  // Private fields, never own properties: the grant context holds the client secret.
  readonly #ctx: GrantContext;
  readonly #tokenPath: string;
  readonly #store: TokenStore;
  readonly #guard: GrantGuard | undefined;

  /** @param guard - with a fleet: makes one grant per key across every process (see `fleetGrantGuard`). */
  constructor(ctx: GrantContext, tokenPath: string, store: TokenStore, guard?: GrantGuard) {
    this.#ctx = ctx;
    this.#tokenPath = tokenPath;
    this.#store = store;
    this.#guard = guard;
  }

  /** A usable access token for `scopes`, from the store or from one shared grant. */
  async get(scopes: readonly string[]): Promise<TokenSet> {
    const key = tokenKey(this.#ctx.clientId, scopes);
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
      const token = await requestClientCredentials(this.#ctx, this.#tokenPath, scopes);
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
