import type { BearerSource } from '../core/http.js';
import { ValidationError, type ValidationIssue } from '../errors/index.js';
import type { CustomerSessionOptions, CustomerTokensContext, CustomerTokenState } from './customer-state.js';
import { rememberToken } from '../core/redact.js';
import { isFresh, type TokenSet, type TokenSetInput } from './token-store.js';

export type { CustomerSessionOptions, CustomerTokensContext, CustomerTokenState } from './customer-state.js';

/** A session's refresh, loaded when a token first needs more than a look. */
const refresh = () => import('./customer-refresh.js');
import { type CustomerConsent, grantedScopes } from './consent.js';

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
    if (typeof options !== 'object' || options === null) add('options', 'must be an object { onTokens, onConsentEnded, id }');
    else if ((options as CustomerSessionOptions).onTokens !== undefined && typeof (options as CustomerSessionOptions).onTokens !== 'function') {
      add('options.onTokens', 'must be a function');
    }
    if ((options as CustomerSessionOptions).onConsentEnded !== undefined && typeof (options as CustomerSessionOptions).onConsentEnded !== 'function') {
      add('options.onConsentEnded', 'must be a function');
    }
    const id = (options as CustomerSessionOptions | null)?.id;
    if (id !== undefined && (typeof id !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(id))) add('options.id', 'must be 1 to 200 visible ASCII characters (no spaces)', 'invalid_format');
  }
  const set = { ...(t as TokenSet), expires_at: expiresAt as number, expires_in: expiresIn ?? (expiresAt as number) - Math.floor(nowMs / 1000) };
  return { tokens: set, issues };
}

/** The tokens as given, normalised, and the error every call rejects with when they are bad. */
function checked(tokens: unknown, options: unknown, nowMs: number): { tokens: TokenSet; invalid: ValidationError | undefined } {
  const { tokens: set, issues } = checkTokens(tokens, options, nowMs);
  rememberToken(set?.access_token);
  rememberToken(set?.refresh_token);
  return { tokens: set, invalid: issues.length > 0 ? new ValidationError('Invalid customer tokens', issues) : undefined };
}

/**
 * A customer's token set and its refresh: the bearer source of a customer session. See
 * `CustomerSession` for the rules (refresh ahead of expiry, one refresh for concurrent calls,
 * never a replayed refresh grant).
 */
export class CustomerTokens {
  // A private field, never an own property: the state holds the tokens.
  readonly #state: CustomerTokenState;
  /** The token source API calls use: a fresh token at once, anything else through the refresh. */
  readonly bearer: BearerSource = {
    token: () => {
      const s = this.#state;
      // With a fleet and an id, each call first reads whether another process saw the consent end.
      if (!s.invalid && !s.failure && !s.ctx.endedElsewhere && isFresh(s.tokens, s.ctx.now())) return Promise.resolve(s.tokens.access_token);
      return refresh().then((parts) => parts.customerAccessToken(s));
    },
    renew: (rejected) => refresh().then((parts) => parts.customerRenew(this.#state, rejected)),
  };

  constructor(ctx: CustomerTokensContext, tokens: TokenSetInput, options?: CustomerSessionOptions) {
    const onTokens = typeof options?.onTokens === 'function' ? options.onTokens : undefined;
    const onConsentEnded = typeof options?.onConsentEnded === 'function' ? options.onConsentEnded : undefined;
    this.#state = { ctx, onTokens, onConsentEnded, ...checked(tokens, options, ctx.now()), failure: undefined, flight: undefined, generation: 0, since: ctx.now() };
  }

  /**
   * `inner` (a client-credentials token source) behind the session's state: once the consent has
   * ended (here or, with a fleet, elsewhere) or the tokens given were bad, every call of the
   * session rejects unsent, the ones it sends with client credentials too.
   */
  gate(inner: BearerSource): BearerSource {
    const s = this.#state;
    return {
      source: inner.source ?? inner,
      token: (signal) =>
        s.invalid || s.failure?.name === 'ConsentEndedError' || s.ctx.endedElsewhere
          ? refresh().then((parts) => parts.customerConsentGate(s)).then(() => inner.token(signal))
          : inner.token(signal),
      renew: (rejected, signal) => inner.renew(rejected, signal),
    };
  }

  /** The current token set (a copy): the one given, or the latest refreshed one. */
  get tokens(): TokenSet {
    return { ...this.#state.tokens };
  }

  /** Where the customer's consent stands: `ended` once a refresh was answered `invalid_grant`, until `setTokens`. */
  get consent(): CustomerConsent {
    const s = this.#state;
    return { state: s.failure?.name === 'ConsentEndedError' ? 'ended' : 'active', scopes: grantedScopes(s.tokens), accessExpiresAt: s.tokens?.expires_at };
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
    return (await refresh()).customerRefreshNow(this.#state);
  }

  /** A view for logs: expiry and scope, never a token. */
  toJSON(): Record<string, unknown> {
    const t = this.#state.tokens ?? {};
    return { expires_at: t.expires_at, scope: t.scope, refreshable: typeof t.refresh_token === 'string' };
  }

  #replace(tokens: TokenSetInput, options: CustomerSessionOptions | undefined): void {
    const s = this.#state;
    Object.assign(s, checked(tokens, options, s.ctx.now()));
    s.failure = undefined;
    s.flight = undefined;
    s.generation++;
    s.since = s.ctx.now();
  }
}
