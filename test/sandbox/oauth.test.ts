import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, startSandboxServer, type SandboxClient, type SandboxServer } from '../../src/testing.js';
import { signed } from './support.js';

const REDIRECT = 'https://app.example/callback';
const clock = createManualClock();
let server: SandboxServer;
let app: SandboxClient;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  server = await startSandboxServer({ now: clock.now });
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  app = server.registerClient({ name: 'Ada’s Budget <App>', redirectUris: [REDIRECT, 'http://127.0.0.1:3000/cb'] });
  as = {
    issuer: server.authUrl,
    authorization_endpoint: `${server.authUrl}/oauth/authorize`,
    token_endpoint: `${server.authUrl}/oauth/token`,
    device_authorization_endpoint: `${server.authUrl}/oauth2/device/code`,
  };
  client = { client_id: app.clientId };
});

async function authorizeUrl(overrides: Record<string, string | null> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params: Record<string, string | null> = {
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'accounts cards.list',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...overrides,
  };
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return { url, verifier, state };
}

async function exchange(code: string, verifier: string, redirectUri = REDIRECT, secret = app.clientSecret) {
  const res = await fetch(`${server.authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: app.clientId, client_secret: secret, code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function tokenRequest(path: string, form: Record<string, string>) {
  const res = await fetch(`${server.authUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function approvedCode() {
  const { url, verifier, state } = await authorizeUrl();
  const callback = new URL(await server.consent(url));
  return { code: callback.searchParams.get('code')!, verifier, state, callback };
}

describe('GET /oauth/authorize', () => {
  it('renders a consent page naming the app and the scopes, with Approve and Deny buttons', async () => {
    const { url } = await authorizeUrl();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain('Ada’s Budget &lt;App&gt;');
    expect(html).toContain('<code>accounts</code>: read account information and balances');
    expect(html).toContain('<code>cards.list</code>');
    expect(html).toMatch(/<form method="post" action="\/oauth\/authorize">/);
    expect(html).toMatch(/<button type="submit" id="approve" name="decision" value="approve">Approve<\/button>/);
    expect(html).toMatch(/<button type="submit" id="deny" name="decision" value="deny">Deny<\/button>/);
  });

  it('Approve posts the form and redirects with code and state', async () => {
    const { url, state } = await authorizeUrl();
    const html = await (await fetch(url)).text();
    const consentId = /name="consent_id" value="([^"]+)"/.exec(html)![1]!;
    const res = await fetch(`${server.authUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ consent_id: consentId, decision: 'approve' }),
    });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('code')).toMatch(/^sbx_code_/);
    // oauth4webapi accepts the callback as is
    expect(oauth.validateAuthResponse(as, client, location, state).get('code')).toBe(location.searchParams.get('code'));
  });

  it('Deny redirects with error=access_denied and the state', async () => {
    const { url, state } = await authorizeUrl();
    const callback = new URL(await server.consent(url, 'deny'));
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.has('code')).toBe(false);
  });

  it('an unknown client or an unregistered redirect URI gets an HTML error page, never a redirect', async () => {
    const refused: Array<Record<string, string | null>> = [{ client_id: 'nobody' }, { redirect_uri: 'https://app.example/callbacK' }, { redirect_uri: 'https://app.example/callback/' }, { client_id: null }];
    for (const overrides of refused) {
      const { url } = await authorizeUrl(overrides);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toContain('text/html');
    }
    const { url } = await authorizeUrl({ redirect_uri: 'https://app.example/callbacK' });
    await expect(server.consent(url)).rejects.toThrow(/invalid_redirect_uri/);
  });

  it('other problems go back to the redirect URI as error=..., with the state', async () => {
    const cases: Array<[Record<string, string | null>, string]> = [
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge_method: null }, 'invalid_request'],
      [{ code_challenge: null }, 'invalid_request'],
      [{ scope: 'accounts telepathy' }, 'invalid_scope'],
      [{ scope: null }, 'invalid_scope'],
    ];
    for (const [overrides, error] of cases) {
      const { url, state } = await authorizeUrl(overrides);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe(state);
    }
  });
});

describe('POST /oauth/token: authorization code with PKCE', () => {
  it('exchanges a code for tokens oauth4webapi accepts, usable on the API', async () => {
    const { callback, verifier, state } = await approvedCode();
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretPost(app.clientSecret), params, REDIRECT, verifier, insecure);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'accounts cards.list' });
    expect(tokens.refresh_token).toMatch(/^sbx_rt_/);
    const list = await fetch(`${server.baseUrl}/cards`, { headers: signed(tokens.access_token, app.clientSecret, 'k1') });
    expect(list.status).toBe(200);
  });

  it('refuses a reused code with invalid_grant and revokes what the code gave', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    const second = await exchange(code, verifier);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('already used') } });
    const list = await fetch(`${server.baseUrl}/cards`, { headers: signed(first.body.access_token as string, app.clientSecret, 'k1') });
    expect(list.status).toBe(401);
    const refresh = await tokenRequest('/oauth/token', { grant_type: 'refresh_token', client_id: app.clientId, client_secret: app.clientSecret, refresh_token: first.body.refresh_token as string });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('refuses an expired code (the sandbox clock moved past its 60 s)', async () => {
    const { code, verifier } = await approvedCode();
    clock.advance(60_001);
    expect(await exchange(code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('expired') } });
  });

  it('refuses a wrong PKCE verifier', async () => {
    const { code } = await approvedCode();
    const wrong = oauth.generateRandomCodeVerifier();
    expect(await exchange(code, wrong)).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('code_verifier') } });
  });

  it('refuses a redirect URI that differs by one character', async () => {
    const { code, verifier } = await approvedCode();
    expect(await exchange(code, verifier, 'https://app.example/callbacks')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('authenticates the client: wrong secret, Basic instead of client_secret_post', async () => {
    const { code, verifier } = await approvedCode();
    expect(await exchange(code, verifier, REDIRECT, 'not-the-secret')).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const basic = await fetch(`${server.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
    });
    expect(basic.status).toBe(401);
    expect(await basic.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('answers RFC 6749 JSON for malformed requests', async () => {
    const json = await fetch(`${server.authUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    expect((await tokenRequest('/oauth/token', { client_id: app.clientId })).body.error).toBe('invalid_request');
    expect((await tokenRequest('/oauth/token', { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret })).body).toMatchObject({
      error: 'unsupported_grant_type',
      error_description: expect.stringContaining('/oauth2/token'),
    });
  });
});

describe('refresh with rotation', () => {
  it('issues a new pair; the old refresh token stops working', async () => {
    const { code, verifier } = await approvedCode();
    const first = (await exchange(code, verifier)).body;
    const rotated = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretPost(app.clientSecret), first.refresh_token as string, insecure),
    );
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(rotated.access_token).not.toBe(first.access_token);
    expect(rotated.scope).toBe('accounts cards.list');
    const old = await tokenRequest('/oauth/token', { grant_type: 'refresh_token', client_id: app.clientId, client_secret: app.clientSecret, refresh_token: first.refresh_token as string });
    expect(old).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const next = await tokenRequest('/oauth/token', { grant_type: 'refresh_token', client_id: app.clientId, client_secret: app.clientSecret, refresh_token: rotated.refresh_token! });
    expect(next.status).toBe(200);
  });

  it('may narrow the scopes, never widen them', async () => {
    const { code, verifier } = await approvedCode();
    const first = (await exchange(code, verifier)).body;
    const base = { grant_type: 'refresh_token', client_id: app.clientId, client_secret: app.clientSecret };
    expect((await tokenRequest('/oauth/token', { ...base, refresh_token: first.refresh_token as string, scope: 'accounts payments' })).body.error).toBe('invalid_scope');
    const narrowed = await tokenRequest('/oauth/token', { ...base, refresh_token: first.refresh_token as string, scope: 'accounts' });
    expect(narrowed.body.scope).toBe('accounts');
  });

  it('customer access tokens expire after their lifetime', async () => {
    const tokens = server.issueTokens({ clientId: app.clientId, scope: ['cards.list'] });
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'cards.list' });
    clock.advance(3600_000);
    const res = await fetch(`${server.baseUrl}/cards`, { headers: signed(tokens.access_token, app.clientSecret, 'k') });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: '02', message: expect.stringContaining('expired') });
  });
});

describe('POST /oauth2/token: client credentials', () => {
  it('grants the requested scopes, in a response oauth4webapi accepts', async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      { ...as, token_endpoint: `${server.authUrl}/oauth2/token` },
      client,
      oauth.ClientSecretPost(app.clientSecret),
      new URLSearchParams({ scope: 'cards.create cards.list' }),
      insecure,
    );
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'cards.create cards.list' });
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('refuses unknown scopes and unknown clients', async () => {
    expect(await tokenRequest('/oauth2/token', { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret, scope: 'cards.create cards.delete' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope', error_description: 'Unknown scope: cards.delete' },
    });
    expect(await tokenRequest('/oauth2/token', { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});

describe('device code (RFC 8628)', () => {
  const deviceAs = () => ({ ...as, token_endpoint: `${server.authUrl}/oauth2/token` });

  async function start(scope = 'accounts transactions') {
    const response = await oauth.deviceAuthorizationRequest(deviceAs(), client, oauth.ClientSecretPost(app.clientSecret), new URLSearchParams({ scope, target_connection_id: 'CONN0987654321' }), insecure);
    return oauth.processDeviceAuthorizationResponse(deviceAs(), client, response);
  }
  const poll = (deviceCode: string) =>
    tokenRequest('/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: app.clientId, client_secret: app.clientSecret, device_code: deviceCode });

  it('answers the reference shape, with obn_custom_metadata', async () => {
    const device = await start();
    expect(device).toMatchObject({
      device_code: expect.stringMatching(/^req_id_/),
      user_code: expect.stringMatching(/^[A-Z2-9]{5}$/),
      verification_uri: `${server.authUrl}/device`,
      interval: 5,
      expires_in: 900,
      obn_custom_metadata: { consent_validation_method: 'OAUTH2', consent_status: 'PENDING_VALIDATION', consent_message: expect.stringContaining('Ada’s Budget') },
    });
  });

  it('pending, slow_down when polled too fast (the interval widens by 5 s), then tokens once approved', async () => {
    const device = await start();
    expect((await poll(device.device_code)).body.error).toBe('authorization_pending');
    clock.advance(5_000);
    expect((await poll(device.device_code)).body.error).toBe('authorization_pending');
    clock.advance(4_000);
    expect((await poll(device.device_code)).body).toMatchObject({ error: 'slow_down', error_description: expect.stringContaining('10 s') });
    clock.advance(9_000);
    expect((await poll(device.device_code)).body.error).toBe('slow_down');
    clock.advance(15_000);
    server.approveDeviceCode(device.user_code);
    const tokens = await oauth.processDeviceCodeResponse(deviceAs(), client, await oauth.deviceCodeGrantRequest(deviceAs(), client, oauth.ClientSecretPost(app.clientSecret), device.device_code, insecure));
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'accounts transactions' });
    expect(tokens.refresh_token).toBeDefined();
    expect((await poll(device.device_code)).body.error).toBe('invalid_grant');
  });

  it('access_denied after a deny, expired_token after 900 s', async () => {
    const denied = await start();
    server.denyDeviceCode(denied.device_code);
    expect((await poll(denied.device_code)).body.error).toBe('access_denied');
    expect(() => server.approveDeviceCode(denied.user_code)).toThrow(/already denied/);

    const late = await start();
    clock.advance(900_000);
    expect((await poll(late.device_code)).body.error).toBe('expired_token');
  });

  it('the verification page approves through real HTML forms', async () => {
    const device = await start('accounts');
    const form = await (await fetch(`${server.authUrl}/device`)).text();
    expect(form).toContain('name="user_code"');
    const page = await (await fetch(`${server.authUrl}/device?user_code=${device.user_code.toLowerCase()}`)).text();
    expect(page).toContain('Ada’s Budget &lt;App&gt;');
    expect(page).toMatch(/id="approve"/);
    const answer = await fetch(`${server.authUrl}/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user_code: device.user_code, decision: 'approve' }),
    });
    expect(answer.status).toBe(200);
    expect((await poll(device.device_code)).status).toBe(200);
  });

  it('refuses unknown scopes, unknown clients and a wrong secret', async () => {
    const form = (extra: Record<string, string>) => tokenRequest('/oauth2/device/code', { client_id: app.clientId, scope: 'accounts', ...extra });
    expect((await form({ scope: 'accounts mind_reading' })).body.error).toBe('invalid_scope');
    expect((await form({ client_id: 'nobody' })).body.error).toBe('invalid_client');
    expect((await form({ client_secret: 'wrong' })).body.error).toBe('invalid_client');
    expect((await form({})).status).toBe(200);
  });
});
