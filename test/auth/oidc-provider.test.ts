// The SDK's grants against a real authorization server it did not write: oidc-provider, on
// 127.0.0.1, reached through the SDK's configurable endpoint paths.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError, OpenBanking, type TokenSet } from '../../src/index.js';
import { parseAuthorizationCallback } from '../../src/pkce.js';
import { withoutWarning } from '../support/quiet.js';

const CLIENT_ID = 'openbanking-ng-app';
const CLIENT_SECRET = 'oidc-test-secret-0123456789abcdef';
const REDIRECT = 'http://127.0.0.1/callback';
const CUSTOMER = 'customer-1';

let server: Server;
let issuer: string;
let provider: Provider;
const tokenRequests: string[] = [];

async function handleInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Stands in for the login and consent pages: the customer signs in and approves at once.
  const details = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId: CUSTOMER, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId: CUSTOMER }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

async function handleApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // A resource server that accepts the provider's live access tokens.
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const found = token ? await provider.AccessToken.find(token) : undefined;
  res.setHeader('content-type', 'application/json');
  if (!found || found.isExpired) {
    res.statusCode = 401;
    res.end(JSON.stringify({ status: '02', message: 'Unauthorized', data: {} }));
    return;
  }
  res.end(JSON.stringify({ status: '00', message: 'ok', data: { accountId: found.accountId, scope: found.scope } }));
}

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // oidc-provider warns at load on Node 20 ("Unsupported runtime", TOOLCHAIN.md) and works: this file only.
  const { default: OidcProvider } = await withoutWarning(/^oidc-provider WARNING: Unsupported runtime/, () => import('oidc-provider'));
  provider = new OidcProvider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'openid accounts transactions cards.create',
      },
    ],
    scopes: ['openid', 'accounts', 'transactions', 'cards.create'],
    features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
    pkce: { required: () => true },
    issueRefreshToken: async () => true,
    rotateRefreshToken: true,
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { AccessToken: 3600, AuthorizationCode: 60, ClientCredentials: 600, Grant: 600, Interaction: 600, RefreshToken: 86_400, Session: 600 },
  });
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && req.url === '/token') tokenRequests.push(req.url);
    const fail = (error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    };
    if (req.url?.startsWith('/interaction/')) handleInteraction(req, res).catch(fail);
    else if (req.url?.startsWith('/api/')) handleApi(req, res).catch(fail);
    else callback(req, res);
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function client(): OpenBanking {
  return new OpenBanking({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    authUrl: issuer,
    baseUrl: `${issuer}/api`,
    redirectUri: REDIRECT,
    // oidc-provider's routes, through the SDK's configurable paths.
    endpoints: { authorize: '/auth', token: '/token', clientCredentials: '/token' },
    logLevel: 'off',
  });
}

/** Follows the browser redirects (with cookies) from the authorize URL to the redirect URI. */
async function authorize(url: string): Promise<string> {
  const cookies = new Map<string, string>();
  let next = url;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`authorization stopped with HTTP ${response.status}: ${await response.text()}`);
    next = new URL(location, next).href;
    if (next.startsWith(REDIRECT)) return next;
  }
  throw new Error('too many redirects');
}

async function codeFlow(ob: OpenBanking) {
  const request = await ob.auth.authorizationUrl({ scope: ['accounts', 'transactions'] });
  const callbackUrl = await authorize(request.url);
  const { code } = parseAuthorizationCallback(callbackUrl, { expectedState: request.state });
  return { request, code };
}

describe('against oidc-provider', () => {
  it('client credentials succeed', async () => {
    const tokens = await client().auth.clientCredentials(['cards.create']);
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.scope).toBe('cards.create');
    expect(tokens.expires_at).toBeGreaterThan(Date.now() / 1000);
  });

  it('authorization code with PKCE S256, then refresh with rotation, both succeed', async () => {
    const ob = client();
    const { request, code } = await codeFlow(ob);
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri: REDIRECT });
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'accounts transactions' });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const fresh = await ob.auth.refresh(tokens.refresh_token!);
    expect(fresh.access_token).not.toBe(tokens.access_token);
    expect(fresh.refresh_token).toEqual(expect.any(String));
    expect(fresh.refresh_token).not.toBe(tokens.refresh_token);

    // The rotated-away refresh token is refused by the server.
    await expect(ob.auth.refresh(tokens.refresh_token!)).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_grant' });
  });

  it('a wrong code verifier fails with OAuthError invalid_grant', async () => {
    const ob = client();
    const { code } = await codeFlow(ob);
    const wrong = 'W'.repeat(43);
    const error = (await ob.auth.exchangeCode({ code, codeVerifier: wrong, redirectUri: REDIRECT }).catch((e: unknown) => e)) as OAuthError;
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.error).toBe('invalid_grant');
    expect(error.status).toBe(400);
    expect(JSON.stringify(error)).not.toContain(CLIENT_SECRET);
  });

  it('a reused code fails with invalid_grant', async () => {
    const ob = client();
    const { request, code } = await codeFlow(ob);
    await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri: REDIRECT });
    await expect(ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri: REDIRECT })).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a customer session refreshes an expired token through the server and persists the rotated set', async () => {
    const ob = client();
    const { request, code } = await codeFlow(ob);
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri: REDIRECT });
    const persisted: TokenSet[] = [];
    const customer = ob.forCustomer({ ...tokens, expires_at: Math.floor(Date.now() / 1000) - 1 }, { onTokens: (t) => void persisted.push(t) });
    const before = tokenRequests.length;
    const results = await Promise.all(Array.from({ length: 10 }, () => customer.request<{ accountId: string }>({ method: 'GET', path: '/accounts' })));
    expect(results.every((r) => r.accountId === CUSTOMER)).toBe(true);
    expect(tokenRequests.length - before).toBe(1);
    expect(persisted).toHaveLength(1);
    expect(persisted[0]!.refresh_token).not.toBe(tokens.refresh_token);
    expect(customer.tokens.access_token).toBe(persisted[0]!.access_token);
  });
});
