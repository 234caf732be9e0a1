import type { SandboxClient } from '../clients.js';
import { parseScope, type RouteHandler, type SandboxContext } from '../context.js';
import { oauthError, tokenResponse } from '../responses.js';
import { authenticateClient, readForm, s256, unknownScopes } from './oauth-common.js';

/** The RFC 8628 grant type of device-code polling. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

type Grant = (ctx: SandboxContext, client: SandboxClient, form: URLSearchParams) => Promise<Response>;

const authorizationCode: Grant = async (ctx, client, form) => {
  const code = form.get('code');
  const redirectUri = form.get('redirect_uri');
  const verifier = form.get('code_verifier');
  if (!code) return oauthError(400, 'invalid_request', 'code is required');
  if (!redirectUri) return oauthError(400, 'invalid_request', 'redirect_uri is required');
  if (!verifier) return oauthError(400, 'invalid_request', 'code_verifier is required (PKCE)');
  const record = ctx.tokens.code(code);
  if (!record) return oauthError(400, 'invalid_grant', 'The authorization code is not valid');
  if (record.clientId !== client.clientId) return oauthError(400, 'invalid_grant', 'The authorization code was issued to another client');
  if (record.used) {
    ctx.tokens.revokeGrant(record.grantId);
    return oauthError(400, 'invalid_grant', 'The authorization code was already used; the tokens issued for it are revoked');
  }
  // Any redemption by its client spends the code, so a wrong verifier cannot be retried.
  record.used = true;
  if (record.expiresAt <= ctx.options.now()) return oauthError(400, 'invalid_grant', 'The authorization code has expired');
  if (redirectUri !== record.redirectUri) return oauthError(400, 'invalid_grant', 'redirect_uri does not match the one of the authorization request');
  if (!VERIFIER.test(verifier)) return oauthError(400, 'invalid_grant', 'code_verifier must be 43 to 128 unreserved characters');
  if ((await s256(verifier)) !== record.codeChallenge) return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
  return tokenResponse(ctx.tokens.issue({ clientId: client.clientId, scopes: record.scopes, kind: 'customer', grantId: record.grantId }));
};

const refreshToken: Grant = async (ctx, client, form) => {
  const token = form.get('refresh_token');
  if (!token) return oauthError(400, 'invalid_request', 'refresh_token is required');
  const scope = form.get('scope');
  const result = ctx.tokens.rotate(token, client.clientId, scope === null ? undefined : parseScope(scope));
  if (result === 'invalid') return oauthError(400, 'invalid_grant', 'The refresh token is not valid');
  if (result === 'rotated') return oauthError(400, 'invalid_grant', 'The refresh token was already used (refresh tokens rotate: each one works once)');
  if (result === 'revoked') return oauthError(400, 'invalid_grant', 'The refresh token was revoked with the consent it belongs to');
  if (result === 'expired') return oauthError(400, 'invalid_grant', 'The refresh token has expired');
  if (result === 'wrong_client') return oauthError(400, 'invalid_grant', 'The refresh token was issued to another client');
  if (result === 'scope_widened') return oauthError(400, 'invalid_scope', 'A refresh can keep or narrow the scopes granted, not widen them');
  return tokenResponse(result);
};

const clientCredentials: Grant = async (ctx, client, form) => {
  const scopes = parseScope(form.get('scope'));
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0) return oauthError(400, 'invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
  return tokenResponse(ctx.tokens.issue({ clientId: client.clientId, scopes, kind: 'client' }));
};

const deviceCode: Grant = async (ctx, client, form) => {
  const code = form.get('device_code');
  if (!code) return oauthError(400, 'invalid_request', 'device_code is required');
  const record = ctx.tokens.device(code);
  if (!record || record.deviceCode !== code || record.clientId !== client.clientId) return oauthError(400, 'invalid_grant', 'The device code is not valid');
  const now = ctx.options.now();
  if (record.status === 'used') return oauthError(400, 'invalid_grant', 'The device code was already used');
  if (record.expiresAt <= now) return oauthError(400, 'expired_token', 'The device code has expired; start again');
  if (record.status === 'denied') return oauthError(400, 'access_denied', 'The customer denied the request');
  if (record.status === 'pending') {
    const tooSoon = record.lastPoll !== undefined && now - record.lastPoll < record.interval * 1000;
    record.lastPoll = now;
    if (tooSoon) {
      record.interval += 5;
      return oauthError(400, 'slow_down', `Polling too fast: wait ${record.interval} s between requests`);
    }
    return oauthError(400, 'authorization_pending', 'The customer has not answered yet');
  }
  record.status = 'used';
  return tokenResponse(ctx.tokens.issue({ clientId: client.clientId, scopes: record.scopes, kind: 'customer' }));
};

const GRANTS: Record<string, { grant: Grant; secretRequired: boolean }> = {
  authorization_code: { grant: authorizationCode, secretRequired: true },
  refresh_token: { grant: refreshToken, secretRequired: true },
  client_credentials: { grant: clientCredentials, secretRequired: true },
  [DEVICE_CODE_GRANT]: { grant: deviceCode, secretRequired: false },
};

/**
 * A token endpoint serving `grants`. The spec puts the code exchange and refresh on
 * `/oauth/token` and client credentials on `/oauth2/token`; device-code polling goes to
 * `/oauth2/token` too. A grant sent to the other endpoint is `unsupported_grant_type`.
 */
export function tokenEndpoint(grants: readonly string[], elsewhere: string): RouteHandler {
  return async (ctx, request) => {
    const form = await readForm(request);
    if (form instanceof Response) return form;
    const grantType = form.get('grant_type');
    if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required');
    if (!grants.includes(grantType)) {
      const known = grantType in GRANTS;
      return oauthError(400, 'unsupported_grant_type', known ? `grant_type ${grantType} is served at ${elsewhere}` : `grant_type ${grantType} is not supported`);
    }
    const { grant, secretRequired } = GRANTS[grantType]!;
    const client = authenticateClient(ctx, request, form, secretRequired);
    if (client instanceof Response) return client;
    return grant(ctx, client, form);
  };
}
