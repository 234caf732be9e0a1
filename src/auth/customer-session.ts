import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import type { BearerSource } from '../core/http.js';
import type { RequestParams } from '../core/operation.js';
import { ConsentEndedError, OAuthError, ValidationError, type ValidationIssue } from '../errors/base.js';
import { sessionMemory } from '../errors/secret-memory.js';
import { Namespaces } from '../resources/namespaces.js';
import type { OperationRunner } from '../core/call.js';
import { type CustomerRefresh, endedElsewhere, type Refreshed } from './customer-refresh.js';
import { checkTokenSet, grantedScopes, isFresh, TokenCache, type TokenSet, type TokenSetInput } from './token-cache.js';

// A customer session: its tokens as the caller hands them over, its one state, and its token cache
// (one refresh in flight). The refresh itself (claim, wait, take-up across a fleet) is
// customer-refresh.ts.

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
   * Names the customer: sessions with the same `id` (across a fleet with the client's `fleet`
   * option, else within the client) redeem a rotating refresh token once; the others take up the
   * new set (and `onTokens` fires only in the client that refreshed), and an ended consent ends
   * them too.
   */
  id?: string;
  /**
   * Called once when the customer's consent ends: a refresh answered `invalid_grant` (revoked,
   * expired, a rotated refresh token replayed), here or, with a fleet, in another process holding
   * a session with the same `id` and the same refresh token; or a refresh never confirmed
   * (`error.reason === 'refresh_unconfirmed'`). Every call of the session then rejects with the
   * `ConsentEndedError` it receives, without a request, until `setTokens`. Store that the customer
   * must consent again, for `error.scopes`. Not awaited; what it throws is ignored.
   */
  onConsentEnded?: (error: ConsentEndedError) => void | Promise<void>;
}

/**
 * `session.consent`: where the customer's consent stands, as this session knows it.
 * @group OAuth
 */
export interface CustomerConsent {
  /** `'active'` until the consent ends (a refresh answered `invalid_grant`, here or in another process, or never confirmed); then `'ended'` until `setTokens`. */
  state: 'active' | 'ended';
  /** The scopes the token set carries (its `scope`), or undefined when the provider sent none. */
  scopes: string[] | undefined;
  /** When the current access token expires (Unix seconds). */
  accessExpiresAt: number;
}

/**
 * A customer's tokens and session options as the caller handed them over, normalised (`expires_at`
 * from `expires_in`), and the `ValidationError` every call of the session rejects with when they
 * are bad.
 */
function checkCustomerTokens(tokens: unknown, options: unknown, nowMs: number): { tokens: TokenSet; invalid: ValidationError | undefined } {
  const issues: ValidationIssue[] = [];
  const set = checkTokenSet(issues, tokens, nowMs);
  const add = (path: string, message: string, code = 'invalid_type') => issues.push({ path, message, code });
  if (set !== undefined && options !== undefined) {
    const o = options as { onTokens?: unknown; onConsentEnded?: unknown; id?: unknown } | null;
    if (typeof options !== 'object' || o === null) add('options', 'must be an object { onTokens, onConsentEnded, id }');
    else {
      if (o.onTokens !== undefined && typeof o.onTokens !== 'function') add('options.onTokens', 'must be a function');
      if (o.onConsentEnded !== undefined && typeof o.onConsentEnded !== 'function') add('options.onConsentEnded', 'must be a function');
      if (o.id !== undefined && (typeof o.id !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(o.id))) add('options.id', 'must be 1 to 200 visible ASCII characters (no spaces)', 'invalid_format');
    }
  }
  return { tokens: set ?? (tokens as TokenSet), invalid: issues.length > 0 ? new ValidationError('Invalid customer tokens', issues) : undefined };
}

/**
 * Where a session stands. `active`: its tokens are used (refreshed when due, every call waiting for
 * the one refresh in flight); `ended`: the consent ended, every call rejects unsent until
 * `setTokens`; `refused`: the tokens given were bad, or the identity host refused the refresh
 * otherwise (never retried), until `setTokens`.
 */
type SessionState = { name: 'active' } | { name: 'ended'; error: ConsentEndedError } | { name: 'refused'; error: OAuthError | ValidationError };

/** How many sets taken up from other clients a refresh follows before the one it gets is fresh. */
const TAKE_UP_ROUNDS = 3;

/**
 * The tokens of one customer session and their lifecycle: the bearer source its calls use.
 * @internal
 */
export class SessionTokens {
  // Private fields, never own properties: they hold the tokens.
  readonly #now: () => number;
  readonly #id: string | undefined;
  readonly #claims: CustomerRefresh;
  readonly #onTokens: CustomerSessionOptions['onTokens'];
  readonly #onConsentEnded: CustomerSessionOptions['onConsentEnded'];
  readonly #cache: TokenCache<Refreshed>;
  #tokens: TokenSet;
  /** Masks this session's tokens in any text for as long as the session lives, whatever else the process remembers. */
  readonly #secrets = sessionMemory();
  #state: SessionState;
  /** Bumped whenever the caller replaces the tokens: a late refresh or ending cannot touch the new ones. */
  #generation = 0;

  /** The token source API calls use: a fresh token at once, anything else through the state and the cache. */
  readonly bearer: BearerSource = {
    token: () =>
      this.#state.name === 'active' && this.#id === undefined && !this.#cache.refreshing && isFresh(this.#tokens, this.#now())
        ? Promise.resolve(this.#tokens.access_token)
        : perCall(() => this.#cache.token()),
    renew: (rejected) => perCall(() => (this.#assertUsable(), this.#cache.renew(rejected))),
  };

  /** @param refreshes - the client's refreshes in flight, by refresh token: its sessions holding one refresh token make one. */
  constructor(claims: CustomerRefresh, refreshes: Map<string, Promise<Refreshed>>, now: () => number, tokens: TokenSetInput, options?: CustomerSessionOptions) {
    this.#claims = claims;
    this.#now = now;
    this.#id = typeof options?.id === 'string' ? options.id : undefined;
    this.#onTokens = typeof options?.onTokens === 'function' ? options.onTokens : undefined;
    this.#onConsentEnded = typeof options?.onConsentEnded === 'function' ? options.onConsentEnded : undefined;
    const checked = checkCustomerTokens(tokens, options, now());
    this.#tokens = this.#held(checked.tokens);
    this.#state = checked.invalid ? { name: 'refused', error: checked.invalid } : { name: 'active' };
    this.#cache = new TokenCache<Refreshed>(
      {
        // Every call passes the session's state first (and, with an id, the endings of the fleet).
        read: () => this.#gate().then(() => this.#tokens),
        // Inside the margin but still valid, and nothing to refresh with: used until it expires.
        usable: (set) => isFresh(set, now()) || (set.refresh_token === undefined && set.expires_at > now() / 1000),
        key: (set) => set?.refresh_token ?? noRefreshToken(),
        provide: (set) => claims.next(set!, this.#id),
        adopt: (answer, before) => this.#adopt(answer, before!, this.#generation),
        invalidate: () => undefined,
      },
      refreshes,
    );
  }

  /** The current token set (a copy). */
  get tokens(): TokenSet {
    return { ...this.#tokens };
  }

  /** Where the customer's consent stands. */
  get consent(): CustomerConsent {
    return { state: this.#state.name === 'ended' ? 'ended' : 'active', scopes: grantedScopes(this.#tokens), accessExpiresAt: this.#tokens?.expires_at };
  }

  /** New tokens from the caller: the state starts again (`active`, or `refused` when they are bad). */
  setTokens(tokens: TokenSetInput): void {
    const checked = checkCustomerTokens(tokens, undefined, this.#now());
    this.#tokens = this.#held(checked.tokens);
    this.#state = checked.invalid ? { name: 'refused', error: checked.invalid } : { name: 'active' };
    this.#cache.reset();
    this.#generation++;
  }

  /** Refreshes now (sharing a refresh in flight); resolves to a copy of the new set. */
  async refresh(): Promise<TokenSet> {
    return { ...(await perCall(() => (this.#assertUsable(), this.#cache.refresh(this.#tokens)))) };
  }

  /**
   * `inner` (a client-credentials token source) behind the session's state: once the consent has
   * ended (here or, for a session with an id, elsewhere) or the tokens given were bad, the calls the
   * session sends with client credentials reject unsent too.
   */
  gate(inner: BearerSource): BearerSource {
    return {
      source: inner.source ?? inner,
      token: (signal) => (this.#state.name === 'active' && this.#id === undefined ? inner.token(signal) : this.#gate().then(() => inner.token(signal))),
      renew: (rejected, signal) => inner.renew(rejected, signal),
    };
  }

  /** A view for logs: expiry and scope, never a token. */
  toJSON(): Record<string, unknown> {
    const t = this.#tokens ?? {};
    return { expires_at: t.expires_at, scope: t.scope, refreshable: typeof t.refresh_token === 'string' };
  }

  /** Rejects when the session cannot call: bad tokens, an ended consent, or (with an id) an ending recorded for its refresh token. */
  async #gate(): Promise<void> {
    this.#assertUsable();
    if (this.#id === undefined) return;
    const generation = this.#generation;
    const tokens = this.#tokens;
    const ending = await this.#claims.ending(this.#id);
    if (ending === undefined || generation !== this.#generation || !(await this.#claims.ends(ending, tokens))) return;
    if (generation !== this.#generation) return; // new tokens arrived meanwhile
    throw this.#end(endedElsewhere(grantedScopes(tokens) ?? ending.scopes, ending.reason));
  }

  #held(tokens: TokenSet): TokenSet {
    for (const token of [tokens?.access_token, tokens?.refresh_token]) this.#secrets.remember('token', token);
    return tokens;
  }

  #assertUsable(): void {
    const state = this.#state;
    if (state.name === 'ended' || state.name === 'refused') throw state.error;
  }

  /** This session's side of a refresh: the set that follows `before` taken (or the failure's state), once however many calls wait. */
  async #adopt(answer: Promise<Refreshed>, before: TokenSet, generation: number): Promise<TokenSet> {
    let fresh: TokenSet;
    let redeemed: boolean;
    try {
      ({ tokens: fresh, redeemed } = await answer);
      // A set taken up from another client may be due already: follow it to a fresh one.
      for (let round = 1; round < TAKE_UP_ROUNDS && !redeemed && !isFresh(fresh, this.#now()); round++) {
        ({ tokens: fresh, redeemed } = await this.#cache.next(fresh));
      }
    } catch (error) {
      if (generation !== this.#generation) throw error; // replaced meanwhile: the new tokens' state stands
      if (error instanceof ConsentEndedError) throw this.#end(error);
      // Refused otherwise: never replayed (a rotated refresh token would only turn into invalid_grant).
      if (error instanceof OAuthError) this.#state = { name: 'refused', error };
      throw error;
    }
    // The caller replaced the tokens meanwhile: the rotated set still wins unless the caller's is
    // newer (it expires no sooner and does not carry the refresh token just spent), or the spent
    // refresh token would be sent again next time.
    const current = this.#tokens;
    const bad = this.#state.name === 'refused' && this.#state.error instanceof ValidationError;
    if (generation !== this.#generation && !bad && current.refresh_token !== before.refresh_token && current.expires_at >= fresh.expires_at) return current;
    // An answer without `scope` grants what was granted before (RFC 6749 §5.1).
    if (fresh.scope === undefined && before.scope !== undefined) fresh = { ...fresh, scope: before.scope };
    this.#tokens = this.#held(fresh);
    this.#state = { name: 'active' };
    if (this.#onTokens && redeemed) await this.#onTokens({ ...fresh });
    return fresh;
  }

  /** Ends the consent (once: the first ending wins) and tells the app. */
  #end(error: ConsentEndedError): ConsentEndedError {
    if (this.#state.name === 'ended') return this.#state.error;
    this.#state = { name: 'ended', error };
    try {
      void Promise.resolve(this.#onConsentEnded?.(error)).catch(() => undefined);
    } catch {
      // the app's handler failed: the session is ended all the same, and its calls are unchanged
    }
    return error;
  }
}

/** A set without a refresh token has nothing to refresh by. */
function noRefreshToken(): never {
  throw new OAuthError('no_refresh_token', 'the customer access token has expired or was refused, and the session has no refresh token: run the authorization again');
}

/** Runs `step`; each waiting call gets its own error object (the pipeline stamps the call's idempotency key on it). */
async function perCall<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ConsentEndedError) {
      throw new ConsentEndedError(error.errorDescription, error.scopes, { ...(error.status !== undefined ? { status: error.status } : {}), cause: error, reason: error.reason });
    }
    if (error instanceof OAuthError) throw new OAuthError(error.error, error.errorDescription, { ...(error.status !== undefined ? { status: error.status } : {}), cause: error });
    throw error;
  }
}

/** What a session needs from the client that made it. */
export interface SessionLink {
  runner: OperationRunner;
  tokens: SessionTokens;
  /** Sends `request` parameters through the client's pipeline with the given bearer source. */
  send<Data>(params: RequestParams, options: RequestOptions | undefined, bearer: BearerSource): APIPromise<Data>;
  /** The client-credentials token source for `params.scope` (`request` with `customer: false`), behind the session's state. */
  clientBearer(params: RequestParams): BearerSource;
  /** The `id` option of `forCustomer`. */
  id?: string | undefined;
}

/**
 * A customer's view of the client, from `ob.forCustomer(tokens, { onTokens })`: every namespace
 * (`session.accounts.list()`, `session.customers.retrieve()`, …) and `request()`, with the
 * customer's access token where the operation acts on the customer's resources, and client
 * credentials where it does not (e.g. `accounts.create`).
 *
 * - The access token is refreshed ahead of expiry (when less than min(30 s, 10 % of its
 *   lifetime) remains), and after a 401 (one refresh, one more attempt).
 * - Any number of concurrent calls share **one** refresh request; `onTokens` is awaited with
 *   the new set before they go on. A rotated refresh token replaces the old one; when the server
 *   does not rotate, the old one is kept.
 * - A refresh answered `invalid_grant` ends the customer's consent: `onConsentEnded` fires once,
 *   and every waiting and later call rejects with `ConsentEndedError` (its `scopes` are what to
 *   ask the customer for again) without a request, the ones sent with client credentials too,
 *   until {@link CustomerSession.setTokens}. Sessions with the same `id` holding that refresh
 *   token end too, without a refresh request. A refresh sent with no answer saying how it ended
 *   (a timeout, a reset, a lost or cut answer, a 5xx, an unreadable 200), or whose claimer stopped,
 *   ends it the same way with `reason: 'refresh_unconfirmed'`: the token may be spent, never sent
 *   again. A 429 or any other OAuth refusal rejects with `OAuthError`, never retried either. A
 *   refresh whose connection was refused, or whose host name did not resolve, before the request
 *   was written (`ConnectionError`) rejects the waiting calls; the next call tries once more.
 * - A typed operation whose scopes (after `operationScopes`) the token set's `scope` does not
 *   grant rejects before sending with `ValidationError` (`scope_not_granted`); a set without
 *   `scope` is not checked.
 * - Without a refresh token the session uses the access token until it expires, then rejects
 *   with `OAuthError('no_refresh_token')`.
 *
 * Bad tokens or options do not throw here: every call of the session rejects with the
 * `ValidationError`.
 *
 * The session's calls emit their events on the client that made it (`ob.on`, `instrument(ob)`).
 *
 * @example
 * ```ts
 * import { OpenBanking, type TokenSet } from 'openbanking-ng';
 * declare const ob: OpenBanking;
 * declare const db: { loadTokens(id: string): Promise<TokenSet>; saveTokens(id: string, t: TokenSet): Promise<void> };
 * const customer = ob.forCustomer(await db.loadTokens('user-1'), {
 *   onTokens: (tokens) => db.saveTokens('user-1', tokens),
 * });
 * const { accounts } = await customer.accounts.list();
 * ```
 * @group OAuth
 */
export class CustomerSession extends Namespaces {
  readonly #link: SessionLink;

  /** @internal Use `ob.forCustomer(tokens, options)`. */
  constructor(link: SessionLink) {
    super(link.runner);
    this.#link = link;
  }

  /** The `id` given to `ob.forCustomer` (the customer's key in a fleet), or undefined. */
  get id(): string | undefined {
    return this.#link.id;
  }

  /** The current token set (a copy): the one given, or the latest refreshed one. */
  get tokens(): TokenSet {
    return this.#link.tokens.tokens;
  }

  /**
   * Where the customer's consent stands: `state` (`'active'`, or `'ended'` once a refresh was
   * answered `invalid_grant`, until `setTokens`), the granted `scopes` (undefined when the token
   * set carries no `scope`) and `accessExpiresAt` (Unix seconds).
   */
  get consent(): CustomerConsent {
    return this.#link.tokens.consent;
  }

  /**
   * Replaces the session's tokens, e.g. with a set another process refreshed and stored. Ends a
   * failed or ended state (a later ending fires `onConsentEnded` again), and wins over a refresh
   * still in flight (its late answer is dropped).
   * Bad tokens make every later call reject with `ValidationError`.
   */
  setTokens(tokens: TokenSetInput): void {
    this.#link.tokens.setTokens(tokens);
  }

  /**
   * Refreshes now (sharing a refresh already in flight) and resolves to the new set; `onTokens`
   * is called as for an automatic refresh.
   */
  refresh(): Promise<TokenSet> {
    return this.#link.tokens.refresh();
  }

  /**
   * Calls any API operation with the customer's access token, through the same pipeline as
   * `ob.request` (idempotency key, signature, retries, envelope). Pass `customer: false` to use a
   * client-credentials token with `scope` instead.
   *
   * @example
   * ```ts
   * declare const customer: import('openbanking-ng').CustomerSession;
   * const loans = await customer.request({ method: 'GET', path: '/loans' });
   * ```
   */
  request<Data = unknown>(params: RequestParams, options?: RequestOptions): APIPromise<Data> {
    const bearer = params?.customer === false ? this.#link.clientBearer(params) : this.#link.tokens.bearer;
    return this.#link.send<Data>(params, options, bearer);
  }

  /** A view for logs: expiry and scope, never a token. */
  toJSON(): Record<string, unknown> {
    return this.#link.tokens.toJSON();
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `CustomerSession ${JSON.stringify(this.toJSON())}`;
  }
}
