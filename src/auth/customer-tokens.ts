import type { BearerSource } from '../core/attempts.js';
import { OAuthError, ValidationError, type ValidationIssue } from '../errors.js';
import { isFresh, type TokenSet, type TokenSetInput } from './token-store.js';

/**
 * Options of `ob.forCustomer`.
 * @group OAuth
 */
export interface CustomerSessionOptions {
  /**
   * Called (and awaited) with every new token set after a successful refresh, before the calls
   * waiting for it go on: persist it, since the identity host may have rotated the refresh
   * token and the old one may no longer work. If it throws, the session keeps the new set and
   * the waiting calls reject with that error.
   */
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  /**
   * Names the customer across a fleet (the client's `fleet` option): sessions with the same `id`
   * in any process redeem a rotating refresh token once, under a lock; the others read the new
   * set (and `onTokens` fires only in the process that refreshed). Without a fleet it has no effect.
   */
  id?: string;
}

/** What a customer's tokens need from their client. */
export interface CustomerTokensContext {
  /** The refresh grant (`ob.auth.refresh`). */
  refresh(refreshToken: string): Promise<TokenSet>;
  /** The client's clock in milliseconds. */
  now(): number;
  /** With a fleet and a session `id`: the refresh shared by every process (see `sharedCustomerRefresh`). */
  shared?: ((current: TokenSet, grant: (refreshToken: string) => Promise<TokenSet>) => Promise<{ tokens: TokenSet; refreshed: boolean }>) | undefined;
}

function checkTokens(tokens: unknown, options: unknown, nowMs: number): { tokens: TokenSet; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const add = (path: string, message: string, code = 'invalid_type') => issues.push({ path, message, code });
  if (typeof tokens !== 'object' || tokens === null) {
    add('tokens', 'must be a token set { access_token, expires_at, refresh_token?, ... }');
    return { tokens: tokens as TokenSet, issues };
  }
  const t = tokens as Partial<Record<keyof TokenSet, unknown>>;
  if (typeof t.access_token !== 'string' || t.access_token === '') add('tokens.access_token', 'is required (a non-empty string)', 'missing');
  if (t.refresh_token !== undefined && (typeof t.refresh_token !== 'string' || t.refresh_token === '')) add('tokens.refresh_token', 'must be a non-empty string');
  const expiresIn = typeof t.expires_in === 'number' && Number.isFinite(t.expires_in) ? t.expires_in : undefined;
  let expiresAt = t.expires_at;
  if (expiresAt === undefined && expiresIn !== undefined) expiresAt = Math.floor(nowMs / 1000) + expiresIn;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) add('tokens.expires_at', 'is required (Unix seconds), or expires_in for a set received just now', 'missing');
  if (options !== undefined) {
    if (typeof options !== 'object' || options === null) add('options', 'must be an object { onTokens, id }');
    else if ((options as CustomerSessionOptions).onTokens !== undefined && typeof (options as CustomerSessionOptions).onTokens !== 'function') {
      add('options.onTokens', 'must be a function');
    }
    const id = (options as CustomerSessionOptions | null)?.id;
    if (id !== undefined && (typeof id !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(id))) add('options.id', 'must be 1 to 200 visible ASCII characters (no spaces)', 'invalid_format');
  }
  const set = { ...(t as TokenSet), expires_at: expiresAt as number, expires_in: expiresIn ?? (expiresAt as number) - Math.floor(nowMs / 1000) };
  return { tokens: set, issues };
}

/** Each waiting call gets its own error object (the pipeline stamps the call's idempotency key on it). */
function perCall(error: unknown): unknown {
  if (error instanceof OAuthError) {
    return new OAuthError(error.error, error.errorDescription, { ...(error.status !== undefined ? { status: error.status } : {}), cause: error });
  }
  return error;
}

/**
 * A customer's token set and its refresh: the bearer source of a customer session. See
 * `CustomerSession` for the rules (refresh ahead of expiry, one refresh for concurrent calls,
 * never a replayed refresh grant).
 */
export class CustomerTokens {
  #tokens!: TokenSet;
  #invalid: ValidationError | undefined;
  #failure: OAuthError | undefined;
  #flight: Promise<TokenSet> | undefined;
  /** Bumped whenever the caller replaces the tokens, so a late refresh answer cannot overwrite them. */
  #generation = 0;
  readonly #onTokens: CustomerSessionOptions['onTokens'];
  readonly #ctx: CustomerTokensContext;
  /** The token source API calls use. */
  readonly bearer: BearerSource = {
    token: () => this.#accessToken().catch((error: unknown) => Promise.reject(perCall(error))),
    renew: (rejected) => this.#renew(rejected).catch((error: unknown) => Promise.reject(perCall(error))),
  };

  constructor(ctx: CustomerTokensContext, tokens: TokenSetInput, options?: CustomerSessionOptions) {
    this.#ctx = ctx;
    this.#onTokens = typeof options?.onTokens === 'function' ? options.onTokens : undefined;
    this.#replace(tokens, options);
  }

  /** The current token set (a copy): the one given, or the latest refreshed one. */
  get tokens(): TokenSet {
    return { ...this.#tokens };
  }

  /**
   * Replaces the session's tokens, e.g. with a set another process refreshed and stored. Ends a
   * failed state, and wins over a refresh still in flight (its late answer is dropped).
   * Bad tokens make every later call reject with `ValidationError`.
   */
  setTokens(tokens: TokenSetInput): void {
    this.#replace(tokens, undefined);
  }

  /**
   * Refreshes now (sharing a refresh already in flight) and resolves to the new set; `onTokens`
   * is called as for an automatic refresh.
   */
  async refresh(): Promise<TokenSet> {
    this.#assertUsable();
    return { ...(await this.#refresh()) };
  }

  /** A view for logs: expiry and scope, never a token. */
  toJSON(): Record<string, unknown> {
    const t = this.#tokens ?? {};
    return { expires_at: t.expires_at, scope: t.scope, refreshable: typeof t.refresh_token === 'string' };
  }

  #replace(tokens: TokenSetInput, options: CustomerSessionOptions | undefined): void {
    const checked = checkTokens(tokens, options, this.#ctx.now());
    this.#tokens = checked.tokens;
    this.#invalid = checked.issues.length > 0 ? new ValidationError('Invalid customer tokens', checked.issues) : undefined;
    this.#failure = undefined;
    this.#flight = undefined;
    this.#generation++;
  }

  #assertUsable(): void {
    if (this.#invalid) throw this.#invalid;
    if (this.#failure) throw this.#failure;
  }

  async #accessToken(): Promise<string> {
    this.#assertUsable();
    const tokens = this.#tokens;
    const now = this.#ctx.now();
    if (isFresh(tokens, now)) return tokens.access_token;
    if (this.#flight === undefined && tokens.refresh_token === undefined && tokens.expires_at > now / 1000) {
      return tokens.access_token; // inside the margin but still valid, and nothing to refresh with
    }
    return (await this.#refresh()).access_token;
  }

  async #renew(rejected: string): Promise<string> {
    this.#assertUsable();
    // Another call already replaced the refused token: use the new one.
    if (this.#flight === undefined && this.#tokens.access_token !== rejected) return this.#accessToken();
    return (await this.#refresh()).access_token;
  }

  #refresh(): Promise<TokenSet> {
    if (this.#flight) return this.#flight;
    const refreshToken = this.#tokens.refresh_token;
    if (refreshToken === undefined) {
      return Promise.reject(
        new OAuthError('no_refresh_token', 'the customer access token has expired or was refused, and the session has no refresh token: run the authorization again'),
      );
    }
    const generation = this.#generation;
    const flight = (async () => {
      let fresh: TokenSet;
      let refreshed = true;
      try {
        const shared = this.#ctx.shared;
        if (shared) ({ tokens: fresh, refreshed } = await shared(this.#tokens, (token) => this.#ctx.refresh(token)));
        else fresh = await this.#ctx.refresh(refreshToken);
      } catch (error) {
        // The identity host refused the grant: never replay it (a rotated refresh token would
        // only turn into invalid_grant). Network failures are not sticky.
        if (generation === this.#generation && error instanceof OAuthError) this.#failure = error;
        throw error;
      }
      if (generation !== this.#generation) return this.#tokens; // the caller gave newer tokens meanwhile
      this.#tokens = fresh;
      if (this.#onTokens && refreshed) await this.#onTokens({ ...fresh });
      return fresh;
    })().finally(() => {
      if (this.#flight === flight) this.#flight = undefined;
    });
    this.#flight = flight;
    return flight;
  }
}
