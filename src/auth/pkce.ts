import { OAuthError, ValidationError, type ValidationIssue } from '../errors/base.js';
import { isLoopbackHost } from '../core/config.js';
import type { ScopeInput } from '../core/scopes.js';
import { AuthorizationResponseError, calculatePKCECodeChallenge, generateRandomCodeVerifier, generateRandomState, validateAuthResponse } from 'oauth4webapi';

// The browser-safe half of the authorization-code flow: the authorization request (PKCE through
// oauth4webapi), its argument checks, and reading the callback (oauth4webapi's `validateAuthResponse`).
// It is the `openbanking-ng/pkce` entry: free of the HTTP client, zod and the ciphers, and it never
// sees a client secret.

/**
 * Input of `createAuthorizationRequest`.
 * @group OAuth
 */
export interface AuthorizationRequestParams {
  /** Identity host, e.g. `https://identity-sandbox.sparkle.fyi` (https, or http on a loopback host). */
  authUrl: string;
  /** The application's client id (public; the secret never goes to the browser). */
  clientId: string;
  /** The redirect URI registered for the application; matched exactly by the identity host. */
  redirectUri: string;
  /** Scopes to ask the customer for: an array of the spec's names or one space-separated string. */
  scope: ScopeInput;
  /** Anti-CSRF value echoed back on the callback: at least 16 characters. Default: 32 random bytes, base64url. */
  state?: string;
  /** PKCE code verifier: 43–128 characters of `A-Z a-z 0-9 - . _ ~`. Default: 32 random bytes, base64url. */
  codeVerifier?: string;
  /** Path of the authorization endpoint on the identity host. Default `/oauth/authorize`. */
  authorizePath?: string;
}

/**
 * What `createAuthorizationRequest` returns. Send the customer to `url`; keep `state` and
 * `codeVerifier` (e.g. in `sessionStorage`) until the callback, then hand the code and the
 * verifier to your backend.
 * @group OAuth
 */
export interface AuthorizationRequest {
  /** `{auth_url}/oauth/authorize?client_id&redirect_uri&response_type=code&scope&state&code_challenge&code_challenge_method=S256` */
  url: string;
  /** The PKCE code verifier; the backend sends it with the code. Keep it secret. */
  codeVerifier: string;
  /** `BASE64URL(SHA-256(codeVerifier))`, as sent in `url`. */
  codeChallenge: string;
  /** The `state` sent in `url`; compare it on the callback. */
  state: string;
}

/** The default path of the authorization endpoint on the identity host. */
export const DEFAULT_AUTHORIZE_PATH = '/oauth/authorize';

/** The shortest caller-given `state`: a guessable one would not protect the callback. */
export const MIN_STATE = 16;
// Kept terse on purpose: this module is the whole browser bundle, whose budget is 3 kB gzip.
const VERIFIER = /^[\w.~-]{43,128}$/;
// RFC 6749 §3.3 scope-token: visible ASCII except space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Checks an identity-host URL (https, or http on a loopback host; no query); returns it without a trailing slash. */
export function checkAuthUrl(issues: ValidationIssue[], path: string, value: unknown): string | undefined {
  if (!requireString(issues, path, value)) return undefined;
  const url = parseUrl(value);
  if (url && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) && !url.search && !url.hash && !url.username && !url.password) {
    return url.href.replace(/\/+$/, '');
  }
  return add(issues, path, 'must be an https:// URL without query (http:// only on loopback)', 'invalid_url');
}

/** Checks an absolute redirect URI. */
export function checkRedirectUri(issues: ValidationIssue[], path: string, value: unknown): string | undefined {
  if (!requireString(issues, path, value)) return undefined;
  return parseUrl(value) ? value : add(issues, path, 'must be an absolute URL', 'invalid_url');
}

/** Checks a PKCE code verifier: 43–128 unreserved characters (RFC 7636 §4.1). */
export function checkCodeVerifier(issues: ValidationIssue[], path: string, value: unknown): value is string {
  if (!requireString(issues, path, value)) return false;
  if (VERIFIER.test(value)) return true;
  add(issues, path, 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~');
  return false;
}

/**
 * Scopes as the space-separated string the wire carries, in first-occurrence order without
 * duplicates; `required` demands at least one.
 */
export function scopeString(issues: ValidationIssue[], path: string, scope: unknown, required: boolean): string {
  const names: unknown[] = typeof scope === 'string' ? scope.split(/\s+/).filter(Boolean) : Array.isArray(scope) ? scope : scope == null ? [] : [scope];
  if (names.some((s) => typeof s !== 'string' || !SCOPE_TOKEN.test(s))) add(issues, path, 'must be scope names');
  else if (required && names.length === 0) add(issues, path, 'must name at least one scope', 'too_small');
  else return [...new Set(names)].join(' ');
  return '';
}

/** Checks an optional path on the identity host. */
export function checkPath(issues: ValidationIssue[], path: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && /^\/(?!\/)[^\s?#]*$/.test(value)) return value;
  add(issues, path, 'must be a path starting with /');
  return fallback;
}

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
export function requireString(issues: ValidationIssue[], path: string, value: unknown): value is string {
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
 * - `OAuthError('invalid_response')` when a parameter appears twice, or the callback carries an
 *   implicit or hybrid answer (`id_token`, `token`) or a JARM `response` (oauth4webapi's
 *   `validateAuthResponse` checks these, `iss` and the error answer);
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
  requireString(issues, 'expectedState', options?.expectedState);
  const issuer = options?.expectedIssuer;
  if (issuer !== undefined) requireString(issues, 'expectedIssuer', issuer);
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
  try {
    // oauth4webapi's checks: RFC 9207 `iss`, an error answer, no implicit or hybrid flow. A callback
    // without `iss` is accepted (the provider documents none), and without an expected issuer any is.
    validateAuthResponse({ issuer: issuer ?? iss ?? 'any' }, { client_id: 'pkce' }, params, state);
  } catch (error) {
    if (error instanceof AuthorizationResponseError) throw new OAuthError(error.error, error.error_description);
    if (iss !== undefined && iss !== issuer) throw new OAuthError('issuer_mismatch', 'the callback comes from another issuer');
    throw new OAuthError('invalid_response', (error as Error).message);
  }
  const code = get('code');
  if (!code) throw new OAuthError('missing_code', 'the callback has no code');
  return { code, state };
}

// The authorize URL with PKCE through oauth4webapi: the main entry's and `openbanking-ng/pkce`'s.

/**
 * Builds the authorization request of the authorization-code flow with PKCE (S256): a random
 * code verifier (`generateRandomCodeVerifier`), its S256 challenge (`calculatePKCECodeChallenge`),
 * a random `state` (`generateRandomState`) and the authorize URL. Browser-safe: no secret is
 * involved. Rejects with `ValidationError` for bad input.
 *
 * @example
 * ```ts
 * import { createAuthorizationRequest, OPERATION_SCOPES } from 'openbanking-ng/pkce';
 * const req = await createAuthorizationRequest({
 *   authUrl: 'https://identity-sandbox.sparkle.fyi',
 *   clientId: 'my-client',
 *   redirectUri: 'https://app.example.com/callback',
 *   scope: [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']],
 * });
 * sessionStorage.setItem('ob', JSON.stringify({ state: req.state, codeVerifier: req.codeVerifier }));
 * location.assign(req.url);
 * ```
 * @group OAuth
 */
export async function createAuthorizationRequest(params: AuthorizationRequestParams): Promise<AuthorizationRequest> {
  const issues: ValidationIssue[] = [];
  const p = params ?? ({} as Partial<AuthorizationRequestParams>);
  const authUrl = checkAuthUrl(issues, 'authUrl', p.authUrl);
  requireString(issues, 'clientId', p.clientId);
  const redirectUri = checkRedirectUri(issues, 'redirectUri', p.redirectUri);
  const scope = scopeString(issues, 'scope', p.scope, true);
  if (p.state !== undefined && requireString(issues, 'state', p.state) && p.state.length < MIN_STATE) add(issues, 'state', `must be at least ${MIN_STATE} characters: it is the callback's CSRF defence`, 'too_small');
  if (p.codeVerifier !== undefined) checkCodeVerifier(issues, 'codeVerifier', p.codeVerifier);
  const authorizePath = checkPath(issues, 'authorizePath', p.authorizePath, DEFAULT_AUTHORIZE_PATH);
  if (issues.length > 0) throw new ValidationError('Invalid authorization request', issues);

  const codeVerifier = p.codeVerifier ?? generateRandomCodeVerifier();
  const codeChallenge = await calculatePKCECodeChallenge(codeVerifier);
  const state = p.state ?? generateRandomState();
  const query = new URLSearchParams({
    client_id: p.clientId!,
    redirect_uri: redirectUri!,
    response_type: 'code',
    scope,
    state,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
  });
  return { url: `${authUrl}${authorizePath}?${query}`, codeVerifier, codeChallenge, state };
}
