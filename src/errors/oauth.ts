import { guard, isOpenBankingError, OpenBankingError } from './base.js';

// Errors of the identity host: the OAuth error codes of the spec, and a customer's consent that ended.

/** OAuth error codes of the spec, plus `state_mismatch` for a callback whose state differs. @group Errors */
export type OAuthErrorCode =
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_redirect_uri'
  | 'invalid_scope'
  | 'access_denied'
  | 'state_mismatch'
  | (string & {});

/**
 * An OAuth 2.0 error: from a token or registration endpoint, from an authorization callback, or
 * a state mismatch detected by the SDK.
 * @group Errors
 */
export class OAuthError extends OpenBankingError {
  /** Always `'OAuthError'`, also after minification. */
  override name = 'OAuthError';
  /** RFC 6749 error code, e.g. `'invalid_grant'`, or `'state_mismatch'`. */
  readonly error: OAuthErrorCode;
  /** The server's `error_description`, when it sent one. */
  readonly errorDescription: string | undefined;
  /** HTTP status of the answer, when the error came from an endpoint. */
  readonly status: number | undefined;

  constructor(error: OAuthErrorCode, errorDescription?: string, options?: { status?: number; cause?: unknown }) {
    super(errorDescription ? `${error}: ${errorDescription}` : error, { cause: options?.cause });
    this.error = error;
    this.errorDescription = errorDescription;
    this.status = options?.status;
  }
}

/** True for {@link OAuthError} and its subclass `ConsentEndedError`. @group Errors */
export const isOAuthError = /* @__PURE__ */ guard<OAuthError>(['OAuthError', 'ConsentEndedError']);

/**
 * Why a customer's consent ended: `'invalid_grant'` (the identity host refused the session's
 * refresh token: revoked, expired, or a rotated refresh token replayed) or `'refresh_unconfirmed'`
 * (the refresh token was sent, or claimed by a client of the fleet that stopped, and how that
 * ended is not known: sending it again could end the consent at the provider).
 * @group Errors
 */
export type ConsentEndedReason = 'invalid_grant' | 'refresh_unconfirmed';

/**
 * The customer's consent has ended: a refresh of the session's tokens was answered `invalid_grant`
 * (the consent was revoked or expired, or a rotated refresh token was replayed), here or, with a
 * fleet, in another process holding a session with the same `id`; or the refresh of its refresh
 * token was never confirmed (`reason: 'refresh_unconfirmed'`). Every call of the session
 * rejects with it, without a request, until `session.setTokens(newTokens)`; `onConsentEnded`
 * fired once when it ended. Send the customer back through consent for {@link scopes}.
 *
 * @example
 * ```ts
 * import { isConsentEndedError, OPERATION_SCOPES } from 'openbanking-ng';
 * declare const session: import('openbanking-ng').CustomerSession;
 * try {
 *   await session.accounts.list();
 * } catch (error) {
 *   if (isConsentEndedError(error)) {
 *     const scope = error.scopes ?? [...OPERATION_SCOPES['accounts.list']];
 *     // start a new authorization request with `scope`
 *   }
 * }
 * ```
 * @group Errors
 */
export class ConsentEndedError extends OAuthError {
  /** Always `'ConsentEndedError'`, also after minification. */
  override name = 'ConsentEndedError';
  /** The scopes of the token set that ended: what to ask the customer for again. Undefined when the set carried no `scope`. */
  readonly scopes: string[] | undefined;
  /** `'invalid_grant'`: the identity host refused the refresh token; `'refresh_unconfirmed'`: its refresh was never confirmed (see {@link ConsentEndedReason}). */
  readonly reason: ConsentEndedReason;

  constructor(errorDescription: string | undefined, scopes: readonly string[] | undefined, options?: { status?: number; cause?: unknown; reason?: ConsentEndedReason }) {
    super('invalid_grant', errorDescription, options);
    this.scopes = scopes === undefined ? undefined : [...scopes];
    this.reason = options?.reason ?? 'invalid_grant';
    this.message = `${this.message} (the customer's consent has ended: ask the customer to consent again${scopes && scopes.length > 0 ? ` for ${scopes.join(' ')}` : ''}, then call session.setTokens with the new tokens)`;
  }
}

/** True for {@link ConsentEndedError}, even one thrown by another copy of the package. @group Errors */
export const isConsentEndedError = (value: unknown): value is ConsentEndedError => isOpenBankingError(value) && value.name === 'ConsentEndedError';
