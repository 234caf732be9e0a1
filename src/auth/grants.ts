import * as oauth from 'oauth4webapi';
import { authorizationServer, requestOptions, runGrant } from './grant.js';
import { type GrantContext, toTokenSet } from './grant-context.js';
import type { TokenSet } from './token-store.js';

// Every grant at the token endpoints, made by oauth4webapi (with ky as its fetch).

/**
 * Requests one client-credentials token set (POST `{auth_url}/oauth2/token`, `client_secret_post`,
 * `scope` when there is one).
 */
export async function requestClientCredentials(ctx: GrantContext, tokenPath: string, scope: string, signal?: AbortSignal): Promise<TokenSet> {
  const url = ctx.authUrl + tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  const params = new URLSearchParams();
  if (scope) params.set('scope', scope);
  return runGrant(
    'client credentials grant',
    async () => {
      const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(ctx.clientSecret), params, requestOptions(ctx, url, signal));
      return toTokenSet(await oauth.processClientCredentialsResponse(as, client, response), ctx.now());
    },
    signal,
    ctx,
    scope,
  );
}

/**
 * Exchanges an authorization code (POST `{auth_url}/oauth/token`, `grant_type=authorization_code`
 * with `client_id`, `client_secret`, `code`, `redirect_uri` and `code_verifier`).
 */
export async function requestCodeExchange(
  ctx: GrantContext,
  tokenPath: string,
  params: { code: string; codeVerifier: string; redirectUri: string },
  signal?: AbortSignal,
): Promise<TokenSet> {
  const url = ctx.authUrl + tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  return runGrant(
    'authorization code grant',
    async () => {
      // oauth4webapi takes the validated callback parameters; the backend only received the code
      // (the browser already checked the state), so the parameters are rebuilt from it.
      const callback = oauth.validateAuthResponse(as, client, new URLSearchParams({ code: params.code }), oauth.skipStateCheck);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(ctx.clientSecret),
        callback,
        params.redirectUri,
        params.codeVerifier,
        requestOptions(ctx, url, signal),
      );
      return toTokenSet(await oauth.processAuthorizationCodeResponse(as, client, response), ctx.now());
    },
    signal,
    ctx,
  );
}

/**
 * Refreshes a token set (POST `{auth_url}/oauth/token`, `grant_type=refresh_token` with
 * `client_id`, `client_secret` and `refresh_token`). When the server does not rotate the refresh
 * token, the one given is carried over so the new set can be refreshed again.
 */
export async function requestRefresh(ctx: GrantContext, tokenPath: string, refreshToken: string, signal?: AbortSignal): Promise<TokenSet> {
  const url = ctx.authUrl + tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  return runGrant(
    'refresh token grant',
    async () => {
      const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretPost(ctx.clientSecret), refreshToken, requestOptions(ctx, url, signal));
      const set = toTokenSet(await oauth.processRefreshTokenResponse(as, client, response), ctx.now());
      set.refresh_token ??= refreshToken;
      return set;
    },
    signal,
    ctx,
  );
}
