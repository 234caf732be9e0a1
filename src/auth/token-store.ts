/**
 * An OAuth 2.0 token set. `expires_at` is in Unix seconds and is computed by the SDK from
 * `expires_in` when the token is received.
 * @group OAuth
 */
export interface TokenSet {
  /** The bearer token. */
  access_token: string;
  /** `Bearer`. */
  token_type: string;
  /** Lifetime in seconds as the server gave it. */
  expires_in: number;
  /** Expiry as Unix seconds. */
  expires_at: number;
  /** For the authorization-code flow: exchanges for a new set; rotates on every use. */
  refresh_token?: string;
  /** Granted scopes, space-separated. */
  scope?: string;
}

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
 * The default token store: a map in this process, entries expiring after their time to live.
 * @group OAuth
 */
export class MemoryTokenStore implements TokenStore {
  readonly #entries = new Map<string, { value: TokenSet; expiresAt: number }>();
  readonly #now: () => number;

  /** @param now - clock in milliseconds, for tests. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  get(key: string): Promise<TokenSet | undefined> {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) this.#entries.delete(key);
    return Promise.resolve(entry && entry.expiresAt > this.#now() ? entry.value : undefined);
  }

  set(key: string, value: TokenSet, ttlSeconds: number): Promise<void> {
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlSeconds * 1000 });
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.#entries.delete(key);
    return Promise.resolve();
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
