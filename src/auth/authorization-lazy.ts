import { onDemand } from '../on-demand-loader.js';
import type { AuthorizationRequest, AuthorizationRequestParams } from './authorization-checks.js';

// `createAuthorizationRequest` as the main entry exports it: the PKCE code (oauth4webapi) loads
// with its first call, so that importing the client for API calls never loads it. The
// `openbanking-ng/pkce` entry exports the module itself.

/**
 * Builds the authorization request of the authorization-code flow with PKCE (S256): a random
 * code verifier (`generateRandomCodeVerifier`), its S256 challenge (`calculatePKCECodeChallenge`),
 * a random `state` (`generateRandomState`) and the authorize URL. Browser-safe: no secret is
 * involved. Rejects with `ValidationError` for bad input.
 *
 * @example
 * ```ts
 * import { createAuthorizationRequest } from 'openbanking-ng';
 * const req = await createAuthorizationRequest({
 *   authUrl: 'https://identity-sandbox.sparkle.fyi',
 *   clientId: 'my-client',
 *   redirectUri: 'https://app.example.com/callback',
 *   scope: ['accounts', 'transactions'],
 * });
 * sessionStorage.setItem('ob', JSON.stringify({ state: req.state, codeVerifier: req.codeVerifier }));
 * location.assign(req.url);
 * ```
 * @group OAuth
 */
export async function createAuthorizationRequest(params: AuthorizationRequestParams): Promise<AuthorizationRequest> {
  return (await onDemand.load()).createAuthorizationRequestNow(params);
}
