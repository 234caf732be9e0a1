import { calculatePKCECodeChallenge, generateRandomCodeVerifier, generateRandomState } from 'oauth4webapi';
import { ValidationError, type ValidationIssue } from '../errors/index.js';
import {
  add,
  type AuthorizationRequest,
  type AuthorizationRequestParams,
  checkAuthUrl,
  checkCodeVerifier,
  checkPath,
  checkRedirectUri,
  requireString,
  DEFAULT_AUTHORIZE_PATH,
  MIN_STATE,
  scopeString,
} from './authorization.js';

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

