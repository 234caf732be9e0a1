import type { ConsentEndedError } from '../errors/index.js';
import type { OAuthError, ValidationError } from '../errors/index.js';
import type { ConsentEnding } from './consent-ending.js';
import type { TokenSet } from './token-store.js';

// A customer session's options, what its tokens need from the client, and the state its tokens
// and their refresh share.

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
  /**
   * Called once when the customer's consent ends: a refresh answered `invalid_grant` (revoked,
   * expired, a rotated refresh token replayed), here or, with a fleet, in another process holding
   * a session with the same `id`. Every call of the session then rejects with the
   * `ConsentEndedError` it receives, without a request, until `setTokens`. Store that the customer
   * must consent again, for `error.scopes`. Not awaited; what it throws is ignored.
   */
  onConsentEnded?: (error: ConsentEndedError) => void | Promise<void>;
}

/** What a customer's tokens need from their client. */
export interface CustomerTokensContext {
  /** The refresh grant (`ob.auth.refresh`). */
  refresh(refreshToken: string): Promise<TokenSet>;
  /** The client's clock in milliseconds. */
  now(): number;
  /** With a fleet and a session `id`: the refresh shared by every process (see `sharedCustomerRefresh`). */
  shared?: ((current: TokenSet, grant: (refreshToken: string) => Promise<TokenSet>) => Promise<{ tokens: TokenSet; refreshed: boolean }>) | undefined;
  /** With a fleet and a session `id`: the ending another process stored for the `id`, read before each call. */
  endedElsewhere?: (() => Promise<ConsentEnding | undefined>) | undefined;
}

/** What a session's tokens are at any moment: `customer-tokens.ts` holds it, the refresh (`customer-refresh.ts`) reads and writes it. */
export interface CustomerTokenState {
  tokens: TokenSet;
  /** Set when the tokens given were bad: every call rejects with it. */
  invalid: ValidationError | undefined;
  /** Set when the identity host refused the refresh grant: never replayed (a `ConsentEndedError` for `invalid_grant`). */
  failure: OAuthError | undefined;
  /** The refresh in flight, shared by every call waiting for it. */
  flight: Promise<TokenSet> | undefined;
  /** Bumped whenever the caller replaces the tokens, so a late refresh answer cannot overwrite them. */
  generation: number;
  /** When the caller gave the session its tokens (ms, the client's clock): an ending another process stored later ends them. */
  since: number;
  readonly onTokens: CustomerSessionOptions['onTokens'];
  readonly onConsentEnded: CustomerSessionOptions['onConsentEnded'];
  readonly ctx: CustomerTokensContext;
}
