import type { CustomerConsent } from './auth/consent.js';
import type { CustomerSessionOptions, CustomerTokens } from './auth/customer-tokens.js';
import type { TokenSet, TokenSetInput } from './auth/token-store.js';
import type { APIPromise } from './core/api-promise.js';
import type { BearerSource } from './core/http.js';
import type { RequestOptions } from './core/call-options.js';
import type { RequestParams } from './core/request-params.js';
import { Namespaces } from './resources/namespaces.js';
import type { OperationRunner } from './resources/runner.js';

/** What a session needs from the client that made it. */
export interface SessionLink {
  runner: OperationRunner;
  tokens: CustomerTokens;
  /** Sends `request` parameters through the client's pipeline with the given bearer source. */
  send<Data>(params: RequestParams, options: RequestOptions | undefined, bearer: BearerSource): APIPromise<Data>;
  /** The client-credentials token source for `params.scope` (`request` with `customer: false`). */
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
 *   until {@link CustomerSession.setTokens}. With
 *   a fleet, sessions with the same `id` in other processes end too, without a refresh request.
 *   Any other refusal (`OAuthError`) rejects the same way and is never retried either. A refresh
 *   that failed to reach the identity host (`ConnectionError`) rejects the waiting calls; the
 *   next call tries once more.
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

export type { CustomerSessionOptions };
