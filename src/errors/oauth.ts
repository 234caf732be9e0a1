import { guard, OpenBankingError } from './base.js';

// Errors of the identity host: the OAuth error codes of the spec.

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
