import type { ValidationIssue } from '../errors/base.js';
import type { BearerSource } from '../core/http.js';
import { pause } from '../core/store.js';

// The one token cache under every bearer source (client credentials, a customer session, with or
// without a fleet): the set in use while it is fresh, one pending refresh behind a provider
// function, and `invalidate` for a token the API refused. Also what a token set is, when it is due,
// and the one loop that waits for a refresh another holder runs.

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

/** A token set as the caller handed it over (`tokens.*` issues when it is bad), with `expires_at` from `expires_in`; undefined when it is no object. */
export function checkTokenSet(issues: ValidationIssue[], tokens: unknown, nowMs: number): TokenSet | undefined {
  const add = (path: string, message: string, code = 'invalid_type') => issues.push({ path, message, code });
  if (typeof tokens !== 'object' || tokens === null) {
    add('tokens', 'must be a token set { access_token, expires_at, refresh_token?, ... }');
    return undefined;
  }
  const t = tokens as Partial<Record<keyof TokenSet, unknown>>;
  if (typeof t.access_token !== 'string' || t.access_token === '') add('tokens.access_token', 'is required (a non-empty string)', 'missing');
  if (t.refresh_token !== undefined && (typeof t.refresh_token !== 'string' || t.refresh_token === '')) add('tokens.refresh_token', 'must be a non-empty string');
  const expiresIn = typeof t.expires_in === 'number' && Number.isFinite(t.expires_in) ? t.expires_in : undefined;
  let expiresAt = t.expires_at;
  if (expiresAt === undefined && expiresIn !== undefined) expiresAt = Math.floor(nowMs / 1000) + expiresIn;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) add('tokens.expires_at', 'is required (Unix seconds), or expires_in for a set received just now', 'missing');
  return { ...(t as TokenSet), expires_at: expiresAt as number, expires_in: expiresIn ?? (expiresAt as number) - Math.floor(nowMs / 1000) };
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

/** The scopes `tokens` carries, in the order given, or undefined when it has no `scope`. */
export function grantedScopes(tokens: TokenSet | undefined): string[] | undefined {
  const scope = tokens?.scope;
  return typeof scope === 'string' ? [...new Set(scope.split(/\s+/).filter((s) => s.length > 0))] : undefined;
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

const accessToken = (set: TokenSet): string => set.access_token;

/** What a {@link TokenCache} stands on: where its set is read, when it is sent as it is, and the refresh. */
export interface TokenProvider<Answer> {
  /** The set in use: a token store's (client credentials, shared with other clients) or a session's. */
  read(): TokenSet | undefined | Promise<TokenSet | undefined>;
  /** Whether `set` is sent as it is; otherwise it is refreshed first. */
  usable(set: TokenSet): boolean;
  /** What a refresh after `set` is known by among the caches that share refreshes; throws when nothing can refresh `set`. */
  key(set: TokenSet | undefined): string;
  /** The refresh: what follows `set` (`rejected`: the access token the API just refused). One call per key at a time. */
  provide(set: TokenSet | undefined, rejected: string | undefined): Promise<Answer>;
  /** What this cache makes of a refresh's answer (a session takes the new set); once per refresh, however many calls wait. */
  adopt(answer: Promise<Answer>, before: TokenSet | undefined): Promise<TokenSet>;
  /** Forgets `set` where `read` finds it, after the API refused it. */
  invalidate(set: TokenSet): Promise<void> | void;
}

/**
 * A bearer source's tokens: the set in use while it is usable, else one pending refresh that every
 * call waits for; after a 401, the refused set invalidated and a refresh. Caches given one map of
 * refreshes in flight make one provider call per key: the clients sharing a token store one grant
 * per scope set, the sessions of a client holding one refresh token one redemption of it.
 */
export class TokenCache<Answer = TokenSet> implements BearerSource {
  readonly #provider: TokenProvider<Answer>;
  readonly #inFlight: Map<string, Promise<Answer>>;
  #pending: Promise<TokenSet> | undefined;

  constructor(provider: TokenProvider<Answer>, inFlight: Map<string, Promise<Answer>> = new Map()) {
    this.#provider = provider;
    this.#inFlight = inFlight;
  }

  /** A refresh of this cache is pending: calls wait for it. */
  get refreshing(): boolean {
    return this.#pending !== undefined;
  }

  /** A usable access token: the set in use, or the pending refresh's. */
  async token(): Promise<string> {
    return this.#use(await this.#provider.read());
  }

  /** A token to use after the API refused `rejected`: the pending refresh's, another call's replacement, or a refresh. */
  async renew(rejected: string): Promise<string> {
    if (this.#pending !== undefined) return (await this.#pending).access_token;
    const set = await this.#provider.read();
    if (set !== undefined && set.access_token !== rejected) return this.#use(set);
    if (set !== undefined) await this.#provider.invalidate(set);
    return (await this.refresh(set, rejected)).access_token;
  }

  /** `set`'s access token while it is usable and nothing is pending, else the refresh's. */
  #use(set: TokenSet | undefined): string | Promise<string> {
    if (set !== undefined && this.#pending === undefined && this.#provider.usable(set)) return set.access_token;
    return this.refresh(set).then(accessToken);
  }

  /** The one pending refresh after `set`: joined, or started. */
  refresh(set: TokenSet | undefined, rejected?: string): Promise<TokenSet> {
    if (this.#pending !== undefined) return this.#pending;
    const pending: Promise<TokenSet> = this.#provider.adopt(this.next(set, rejected), set).finally(() => {
      if (this.#pending === pending) this.#pending = undefined;
    });
    this.#pending = pending;
    return pending;
  }

  /** The provider's answer after `set`: the call in flight for its key, or a new one. */
  next(set: TokenSet | undefined, rejected?: string): Promise<Answer> {
    const key = this.#provider.key(set);
    let answer = this.#inFlight.get(key);
    if (answer === undefined) {
      const started: Promise<Answer> = this.#provider.provide(set, rejected).finally(() => {
        if (this.#inFlight.get(key) === started) this.#inFlight.delete(key);
      });
      this.#inFlight.set(key, (answer = started));
    }
    return answer;
  }

  /** Stops waiting on the pending refresh: later calls start their own (a session given new tokens). */
  reset(): void {
    this.#pending = undefined;
  }
}

/**
 * Waits for a refresh another holder runs: `look` each round, 10, 20, … up to 100 ms apart (wall
 * clock), until it answers; once `patienceMs` have passed without an answer, `late` answers.
 */
export async function waitTurns<T>(look: () => Promise<T | undefined>, patienceMs: number, late: (waitedMs: number) => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let round = 0; ; round++) {
    const answer = await look();
    if (answer !== undefined) return answer;
    const waited = Date.now() - started;
    if (waited >= patienceMs) return late(waited);
    await pause(Math.min(100, 10 * (round + 1)));
  }
}
