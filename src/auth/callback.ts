import { OAuthError, ValidationError, type ValidationIssue } from '../errors/index.js';

// Reading the authorization callback, and the three helpers it shares with the authorization step
// (authorization-checks.ts).

/**
 * Options of {@link parseAuthorizationCallback}.
 * @group OAuth
 */
export interface AuthorizationCallbackOptions {
  /** The `state` of the authorization request; the callback must carry exactly this value. */
  expectedState: string;
  /**
   * The identity host's issuer identifier (RFC 9207). When given, a callback whose `iss` differs
   * throws `OAuthError('issuer_mismatch')` (a mix-up attack); a callback without `iss` is
   * accepted, since the provider documents none.
   */
  expectedIssuer?: string;
}

/**
 * A successful authorization callback.
 * @group OAuth
 */
export interface AuthorizationCallback {
  /** The single-use authorization code; exchange it on the backend with `ob.auth.exchangeCode`. */
  code: string;
  /** The callback's `state` (equal to the expected one). */
  state: string;
}

/** `text` as a URL, or `undefined`. */
export function parseUrl(text: unknown): URL | undefined {
  try {
    return new URL(text as string);
  } catch {
    return undefined;
  }
}

/** Records one issue; returns `undefined` for the caller to return. */
export function add(issues: ValidationIssue[], path: string, message: string, code = 'invalid_format'): undefined {
  issues.push({ path, message, code });
  return undefined;
}

/** True for a non-empty string; records an issue otherwise. */
export function checkString(issues: ValidationIssue[], path: string, value: unknown): value is string {
  if (typeof value === 'string' && value.trim() !== '') return true;
  const missing = value === undefined || value === null;
  add(issues, path, missing ? 'is required' : 'must be a non-empty string', missing ? 'missing' : 'invalid_type');
  return false;
}

/**
 * Reads the authorization callback (the URL the identity host redirected the customer to) and
 * returns its `code` and `state`. Synchronous, and the only helper that throws instead of
 * rejecting:
 *
 * - `OAuthError('state_mismatch')` when the callback's `state` differs from `expectedState`
 *   (checked first: a forged callback is refused whatever it carries). An error callback
 *   without `state` (some hosts drop it on errors) reports `state_mismatch` too, not its
 *   `error`: an unauthenticated callback's claims are not trusted;
 * - `OAuthError('issuer_mismatch')` when `expectedIssuer` is given and the callback's `iss`
 *   differs (RFC 9207);
 * - `OAuthError(error)` for an error callback, e.g. `'access_denied'` (the customer declined),
 *   `'invalid_scope'`, `'invalid_redirect_uri'`, with the server's `error_description`;
 * - `OAuthError('missing_code')` when a callback carries neither a code nor an error;
 * - `OAuthError('invalid_response')` when a parameter appears twice;
 * - `ValidationError` when `url` is not a URL or `expectedState` is missing.
 *
 * @example
 * ```ts
 * import { parseAuthorizationCallback } from 'openbanking-ng/pkce';
 * const saved = JSON.parse(sessionStorage.getItem('ob')!);
 * const { code } = parseAuthorizationCallback(location.href, { expectedState: saved.state });
 * await fetch('/api/openbanking/exchange', { method: 'POST', body: JSON.stringify({ code, codeVerifier: saved.codeVerifier }) });
 * ```
 * @group OAuth
 */
export function parseAuthorizationCallback(url: string | URL, options: AuthorizationCallbackOptions): AuthorizationCallback {
  const issues: ValidationIssue[] = [];
  const parsed = url instanceof URL ? url : parseUrl(url);
  if (!parsed) add(issues, 'url', 'must be the callback URL', 'invalid_url');
  checkString(issues, 'expectedState', options?.expectedState);
  const issuer = options?.expectedIssuer;
  if (issuer !== undefined) checkString(issues, 'expectedIssuer', issuer);
  if (!parsed || issues.length > 0) throw new ValidationError('Invalid authorization callback', issues);

  const params = parsed.searchParams;
  const get = (name: string): string | undefined => {
    const values = params.getAll(name);
    if (values.length > 1) throw new OAuthError('invalid_response', `the callback repeats "${name}"`);
    return values[0];
  };
  // State first: a forged callback is refused whatever else it carries.
  const state = get('state');
  if (state !== options.expectedState) throw new OAuthError('state_mismatch', 'the callback state is not the one sent');
  const iss = get('iss');
  if (issuer !== undefined && iss !== undefined && iss !== issuer) throw new OAuthError('issuer_mismatch', 'the callback comes from another issuer');
  const error = get('error');
  if (error) throw new OAuthError(error, get('error_description'));
  const code = get('code');
  if (!code) throw new OAuthError('missing_code', 'the callback has no code');
  return { code, state };
}
