// Issue 4's acceptance, end to end: the SDK's OAuth surface against the local sandbox served over
// real HTTP on 127.0.0.1. Every assertion is on what the SDK's user sees or on what the sandbox
// counted; the sandbox's clock is a manual one, and the client's waits go through its `sleep`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Card, MemoryTokenStore, OAuthError, type ScopeInput, type TokenSet } from '../../src/index.js';
import { createAuthorizationRequest, parseAuthorizationCallback } from '../../src/pkce.js';
import { createManualClock, type SandboxClient, type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { clientFor, validCard } from '../sandbox/support.js';
import { clickFormButton, recordingFetch } from './support.js';

const REDIRECT = 'https://app.example/callback';
const clock = createManualClock();
let server: SandboxServer;
let app: SandboxClient;

beforeAll(async () => {
  server = await startSandboxServer({ now: clock.now });
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  app = server.registerClient({ name: 'Ada Budget', redirectUris: [REDIRECT] });
});

/** `POST /oauth/token`: code exchanges and refreshes. */
const CUSTOMER_GRANTS = { path: '/oauth/token', method: 'POST' } as const;
const CLIENT_CREDENTIALS = { path: '/oauth2/token', method: 'POST' } as const;
const CARD_LISTS = { path: '/openapi/v1/cards', method: 'GET' } as const;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const statuses = (filter: { path: string; method: string }) => server.requests.list(filter).map((r) => r.status);

/** The SDK client of `app`, with the app's redirect URI as its default. */
const newClient = (overrides: Parameters<typeof clientFor>[2] = {}) => clientFor(server, app, { redirectUri: REDIRECT, ...overrides });

/** Starts an authorization with the SDK, lets the sandbox's customer approve, and reads the callback. */
async function authorize(ob: ReturnType<typeof newClient>['ob'], scope: ScopeInput = ['accounts', 'cards.list']) {
  const request = await ob.auth.authorizationUrl({ scope });
  const { code } = parseAuthorizationCallback(await server.consent(request.url), { expectedState: request.state });
  return { request, code };
}


/** `GET /cards` as the customer. */
const customerCards = (customer: { request: ReturnType<typeof newClient>['ob']['request'] }) =>
  customer.request<{ cards: Card[] }>({ method: 'GET', path: '/cards', customer: true });

describe('authorization code with PKCE, end to end', () => {
  it('authorize → approve → callback → exchange → customer call → expiry → refresh → rotated set persisted', async () => {
    const { ob } = newClient();
    const card = await ob.cards.create(validCard()); // the bank already holds a card the customer can see

    const request = await ob.auth.authorizationUrl({ scope: ['accounts', 'cards.list'] });
    const authorizeUrl = new URL(request.url);
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${server.authUrl}/oauth/authorize`);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');

    const callback = await server.consent(request.url);
    const { code, state } = parseAuthorizationCallback(callback, { expectedState: request.state });
    expect(state).toBe(request.state);

    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier });
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'accounts cards.list', refresh_token: expect.any(String) });
    expect(tokens.expires_at).toEqual(expect.any(Number));

    const persisted: TokenSet[] = [];
    const customer = ob.forCustomer(tokens, { onTokens: (t) => void persisted.push(t) });
    const before = await customerCards(customer);
    expect(before.cards.map((c) => c.card_id)).toEqual([card.card_id]);
    expect(persisted).toEqual([]);

    // An hour passes at the bank: the access token is refused, the session refreshes once and retries.
    clock.advance(3600_000);
    const after = await customerCards(customer);
    expect(after.cards.map((c) => c.card_id)).toEqual([card.card_id]);

    expect(persisted).toHaveLength(1);
    const rotated = persisted[0]!;
    expect(rotated.access_token).not.toBe(tokens.access_token);
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(customer.tokens).toEqual(rotated);
    expect(statuses(CARD_LISTS)).toEqual([200, 401, 200]);
    expect(statuses(CUSTOMER_GRANTS)).toEqual([200, 200]); // the code exchange, then one refresh

    // The old refresh token no longer works; the persisted one does.
    const stale = await ob.auth.refresh(tokens.refresh_token!).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(OAuthError);
    expect(stale).toMatchObject({ error: 'invalid_grant', status: 400 });
    await expect(ob.auth.refresh(rotated.refresh_token!)).resolves.toMatchObject({ scope: 'accounts cards.list' });
  });

  it('the browser path: createAuthorizationRequest, the consent page\'s form posted as a browser would, then the backend', async () => {
    const { ob } = newClient();
    await ob.cards.create(validCard());

    // In the browser: only the public client id, no secret.
    const request = await createAuthorizationRequest({ authUrl: server.authUrl, clientId: app.clientId, redirectUri: REDIRECT, scope: 'cards.list' });
    const page = await fetch(request.url, { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('Ada Budget');
    expect(html).toContain('<code>cards.list</code>');

    const answer = await clickFormButton(request.url, html, 'approve');
    expect(answer.status).toBe(303);
    const location = answer.headers.get('location')!;
    expect(location.startsWith(`${REDIRECT}?`)).toBe(true);
    const { code } = parseAuthorizationCallback(location, { expectedState: request.state });

    // On the backend: the code and the verifier the browser kept.
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri: REDIRECT });
    expect(tokens.scope).toBe('cards.list');
    const list = await customerCards(ob.forCustomer(tokens));
    expect(list.cards).toHaveLength(1);
  });

  it('a stored set whose expires_at has passed is refreshed before the call: no 401 at the API', async () => {
    const { ob } = newClient();
    const { request, code } = await authorize(ob);
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier });
    // As a backend loads it from its database an hour later.
    const stored: TokenSet = { ...tokens, expires_at: tokens.expires_at - 3600 };
    clock.advance(3600_000);
    const persisted: TokenSet[] = [];
    const customer = ob.forCustomer(stored, { onTokens: (t) => void persisted.push(t) });
    await customerCards(customer);
    expect(statuses(CARD_LISTS)).toEqual([200]);
    expect(statuses(CUSTOMER_GRANTS)).toEqual([200, 200]);
    expect(persisted).toHaveLength(1);
    expect(persisted[0]!.refresh_token).not.toBe(tokens.refresh_token);
  });
});

describe('what goes wrong, as the SDK reports it', () => {
  it('deny → OAuthError access_denied, and no token request', async () => {
    const { ob } = newClient();
    const request = await ob.auth.authorizationUrl({ scope: ['accounts'] });
    const callback = await server.consent(request.url, 'deny');
    let error: unknown;
    try {
      parseAuthorizationCallback(callback, { expectedState: request.state });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ error: 'access_denied', errorDescription: expect.any(String) });
    expect(server.requests.count(CUSTOMER_GRANTS)).toBe(0);
  });

  it('deny pressed on the consent page\'s form → the same OAuthError', async () => {
    const { ob } = newClient();
    const request = await ob.auth.authorizationUrl({ scope: ['accounts'] });
    const html = await (await fetch(request.url)).text();
    const answer = await clickFormButton(request.url, html, 'deny');
    expect(answer.status).toBe(303);
    expect(() => parseAuthorizationCallback(answer.headers.get('location')!, { expectedState: request.state })).toThrow(
      expect.objectContaining({ name: 'OAuthError', error: 'access_denied' }),
    );
  });

  it('state mismatch: a callback from another authorization, or with its state changed → OAuthError state_mismatch', async () => {
    const { ob } = newClient();
    const mine = await ob.auth.authorizationUrl({ scope: ['accounts'] });
    const other = await ob.auth.authorizationUrl({ scope: ['accounts'] });
    const foreign = await server.consent(other.url);
    expect(() => parseAuthorizationCallback(foreign, { expectedState: mine.state })).toThrow(expect.objectContaining({ name: 'OAuthError', error: 'state_mismatch' }));

    const tampered = new URL(await server.consent(mine.url));
    tampered.searchParams.set('state', `${mine.state}x`);
    expect(() => parseAuthorizationCallback(tampered, { expectedState: mine.state })).toThrow(expect.objectContaining({ error: 'state_mismatch' }));
    expect(server.requests.count(CUSTOMER_GRANTS)).toBe(0);
  });

  it('a reused code → invalid_grant; the tokens it gave are revoked and the session does not retry the refresh', async () => {
    const { ob } = newClient();
    const { request, code } = await authorize(ob);
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier });
    const again = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(OAuthError);
    expect(again).toMatchObject({ error: 'invalid_grant', status: 400 });

    const persisted: TokenSet[] = [];
    const customer = ob.forCustomer(tokens, { onTokens: (t) => void persisted.push(t) });
    const first = await customerCards(customer).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(OAuthError);
    expect(first).toMatchObject({ error: 'invalid_grant' });
    const second = await customerCards(customer).catch((e: unknown) => e);
    expect(second).toMatchObject({ error: 'invalid_grant' });
    expect(persisted).toEqual([]);
    // exchange, replay, then the one refresh the revoked session tried; nothing after it.
    expect(statuses(CUSTOMER_GRANTS)).toEqual([200, 400, 400]);
    expect(statuses(CARD_LISTS)).toEqual([401]);
  });

  it('an expired code → invalid_grant (the sandbox clock passes the 60 s lifetime)', async () => {
    const { ob } = newClient();
    const inTime = await authorize(ob);
    const late = await authorize(ob);
    clock.advance(59_999);
    await expect(ob.auth.exchangeCode({ code: inTime.code, codeVerifier: inTime.request.codeVerifier })).resolves.toMatchObject({ token_type: 'Bearer' });
    clock.advance(1);
    await expect(ob.auth.exchangeCode({ code: late.code, codeVerifier: late.request.codeVerifier })).rejects.toMatchObject({
      name: 'OAuthError',
      error: 'invalid_grant',
      errorDescription: expect.stringContaining('expired'),
    });
  });

  it('an expired code with a short codeLifetime', async () => {
    const short = await startSandboxServer({ now: clock.now, codeLifetime: 5 });
    try {
      const shortApp = short.registerClient({ redirectUris: [REDIRECT] });
      const { ob } = clientFor(short, shortApp, { redirectUri: REDIRECT });
      const request = await ob.auth.authorizationUrl({ scope: 'accounts' });
      const { code } = parseAuthorizationCallback(await short.consent(request.url), { expectedState: request.state });
      clock.advance(5_000);
      await expect(ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier })).rejects.toMatchObject({ error: 'invalid_grant' });
    } finally {
      await short.close();
    }
  });

  it('a wrong PKCE verifier → invalid_grant, and the code is spent', async () => {
    const { ob } = newClient();
    const { request, code } = await authorize(ob);
    const wrong = (await createAuthorizationRequest({ authUrl: server.authUrl, clientId: app.clientId, redirectUri: REDIRECT, scope: 'accounts' })).codeVerifier;
    await expect(ob.auth.exchangeCode({ code, codeVerifier: wrong })).rejects.toMatchObject({
      name: 'OAuthError',
      error: 'invalid_grant',
      errorDescription: expect.stringContaining('code_verifier'),
    });
    await expect(ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier })).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a redirect URI one character off: an HTML error page at authorize (no redirect), invalid_grant at the token endpoint', async () => {
    const { ob } = newClient();
    const off = await ob.auth.authorizationUrl({ scope: ['accounts'], redirectUri: 'https://app.example/callbacK' });
    const page = await fetch(off.url, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('invalid_redirect_uri');
    await expect(server.consent(off.url)).rejects.toThrow(/invalid_redirect_uri/);

    const { request, code } = await authorize(ob);
    await expect(ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri: `${REDIRECT}s` })).rejects.toMatchObject({
      name: 'OAuthError',
      error: 'invalid_grant',
      errorDescription: expect.stringContaining('redirect_uri'),
    });
  });

  it('a scope the bank does not know → OAuthError invalid_scope, at deviceCode and on the authorization callback', async () => {
    const { ob } = newClient();
    await expect(ob.auth.deviceCode('accounts telepathy')).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_scope' });
    const request = await ob.auth.authorizationUrl({ scope: 'accounts telepathy' });
    const callback = await server.consent(request.url);
    expect(() => parseAuthorizationCallback(callback, { expectedState: request.state })).toThrow(expect.objectContaining({ name: 'OAuthError', error: 'invalid_scope' }));
  });
});

describe('one refresh for many calls', () => {
  it('100 concurrent customer calls with an expired token → exactly one refresh, every call succeeds, onTokens once', async () => {
    const { ob } = newClient();
    await ob.cards.create(validCard());
    const expired = server.issueTokens({ clientId: app.clientId, scope: ['cards.list'], expiresIn: 0 });
    const persisted: TokenSet[] = [];
    const customer = ob.forCustomer(expired, { onTokens: (t) => void persisted.push(t) });

    const results = await Promise.all(Array.from({ length: 100 }, () => customerCards(customer)));
    expect(results.every((r) => r.cards.length === 1)).toBe(true);
    expect(server.requests.count(CUSTOMER_GRANTS)).toBe(1);
    expect(persisted).toHaveLength(1);
    expect(persisted[0]!.refresh_token).not.toBe(expired.refresh_token);
    // Refreshed before sending: the API never saw the expired token.
    expect(statuses(CARD_LISTS)).toEqual(Array(100).fill(200));
  });

  it('100 concurrent customer calls whose token the bank already expired (401s) → exactly one refresh, every call succeeds', async () => {
    const { ob } = newClient();
    await ob.cards.create(validCard());
    const tokens = server.issueTokens({ clientId: app.clientId, scope: ['cards.list'] });
    clock.advance(3600_000); // expired at the bank; the session still thinks it has an hour
    const persisted: TokenSet[] = [];
    const customer = ob.forCustomer(tokens, { onTokens: (t) => void persisted.push(t) });

    const results = await Promise.all(Array.from({ length: 100 }, () => customerCards(customer)));
    expect(results.every((r) => r.cards.length === 1)).toBe(true);
    expect(server.requests.count(CUSTOMER_GRANTS)).toBe(1);
    expect(persisted).toHaveLength(1);
    const seen = statuses(CARD_LISTS);
    expect(seen.filter((s) => s === 200)).toHaveLength(100);
    expect(seen.filter((s) => s !== 200).every((s) => s === 401)).toBe(true);
  });

  it('a refresh whose connection dropped without an answer ends the session once (refresh_unconfirmed), and its refresh token is never sent again', async () => {
    const { ob } = newClient();
    const expired = server.issueTokens({ clientId: app.clientId, scope: ['cards.list'], expiresIn: 0 });
    const persisted: TokenSet[] = [];
    const ended: string[] = [];
    const customer = ob.forCustomer(expired, { onTokens: (t) => void persisted.push(t), onConsentEnded: (e) => void ended.push(e.reason) });
    server.faults.inject({ path: '/oauth/token', method: 'POST', times: 1, fault: { type: 'drop' } });

    const failed = await Promise.allSettled(Array.from({ length: 10 }, () => customerCards(customer)));
    expect(failed.every((r) => r.status === 'rejected' && (r.reason as Error).name === 'ConsentEndedError')).toBe(true);
    expect(server.requests.list(CUSTOMER_GRANTS).map((r) => r.status)).toEqual(['dropped']);

    // The grant left: the bank may have rotated the token, so it is never sent again.
    await expect(customerCards(customer)).rejects.toMatchObject({ name: 'ConsentEndedError', reason: 'refresh_unconfirmed' });
    expect(statuses(CUSTOMER_GRANTS)).toEqual(['dropped']);
    expect(ended).toEqual(['refresh_unconfirmed']);
    expect(persisted).toHaveLength(0);
  });

  it('two clients sharing one tokenStore → one client-credentials request for many concurrent calls across both', async () => {
    const tokenStore = new MemoryTokenStore();
    const a = newClient({ tokenStore }).ob;
    const b = newClient({ tokenStore }).ob;
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).cards.create(validCard({ card_holder_name: `Holder ${i}` }))));
    expect(new Set(created.map((c) => c.card_id)).size).toBe(40);
    expect(server.requests.count(CLIENT_CREDENTIALS)).toBe(1);
    // Later calls from either client reuse the stored token.
    await Promise.all([a.cards.create(validCard()), b.cards.create(validCard())]);
    expect(server.requests.count(CLIENT_CREDENTIALS)).toBe(1);
    expect(server.cards()).toHaveLength(42);
  });

  it('without a shared store each client asks for its own token', async () => {
    const a = newClient().ob;
    const b = newClient().ob;
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).cards.create(validCard())));
    expect(server.requests.count(CLIENT_CREDENTIALS)).toBe(2);
  });
});

describe('device code (RFC 8628)', () => {
  /** A client whose waits move the sandbox clock as asked, and run `after(n)` after the n-th sleep. */
  function deviceClient(options: { advance?: (n: number, ms: number) => number; after?: (n: number) => void } = {}) {
    const sleeps: number[] = [];
    const recorder = recordingFetch();
    const { ob } = newClient({
      fetch: recorder.fetch,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(options.advance ? options.advance(sleeps.length, ms) : ms);
        options.after?.(sleeps.length);
      },
    });
    /** The OAuth error code (or `ok`) of every device-code poll, in order. */
    const polls = () =>
      recorder.calls
        .filter((c) => c.url === `${server.authUrl}/oauth2/token` && new URLSearchParams(c.requestBody).get('grant_type') === DEVICE_GRANT)
        .map((c) => (c.status === 200 ? 'ok' : (JSON.parse(c.body) as { error: string }).error));
    return { ob, sleeps, polls };
  }

  it('deviceCode keeps obn_custom_metadata', async () => {
    const { ob } = newClient();
    const device = await ob.auth.deviceCode(['accounts', 'transactions'], { targetConnectionId: 'CONN0987654321' });
    expect(device).toMatchObject({
      device_code: expect.any(String),
      user_code: expect.any(String),
      verification_uri: `${server.authUrl}/device`,
      interval: 5,
      expires_in: 900,
      obn_custom_metadata: {
        consent_validation_method: 'OAUTH2',
        consent_status: 'PENDING_VALIDATION',
        consent_message: expect.stringContaining('Ada Budget requests access to: accounts, transactions'),
      },
    });
  });

  it('approved after two authorization_pending polls', async () => {
    let userCode = '';
    const { ob, sleeps, polls } = deviceClient({ after: (n) => n === 3 && server.approveDeviceCode(userCode) });
    await ob.cards.create(validCard());
    const device = await ob.auth.deviceCode('accounts cards.list');
    userCode = device.user_code;

    const tokens = await ob.auth.pollDeviceToken(device);
    expect(polls()).toEqual(['authorization_pending', 'authorization_pending', 'ok']);
    expect(sleeps).toEqual([5000, 5000, 5000]);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'accounts cards.list', refresh_token: expect.any(String) });
    // The customer's token works on the API.
    expect((await customerCards(ob.forCustomer(tokens))).cards).toHaveLength(1);
  });

  it('slow_down widens the interval by 5 s for every later poll', async () => {
    let userCode = '';
    const { ob, sleeps, polls } = deviceClient({
      // The second wait ends early (a clock out of step with the bank's): that poll comes too soon.
      advance: (n, ms) => (n === 2 ? 1000 : ms),
      after: (n) => n === 4 && server.approveDeviceCode(userCode),
    });
    const device = await ob.auth.deviceCode(['accounts']);
    userCode = device.user_code;
    await expect(ob.auth.pollDeviceToken(device.device_code, { interval: device.interval! })).resolves.toMatchObject({ scope: 'accounts' });
    expect(polls()).toEqual(['authorization_pending', 'slow_down', 'authorization_pending', 'ok']);
    expect(sleeps).toEqual([5000, 5000, 10_000, 10_000]);
  });

  it('nobody answers: the bank expires the code after 900 s of its clock → OAuthError expired_token', async () => {
    const { ob, sleeps, polls } = deviceClient();
    const device = await ob.auth.deviceCode(['accounts']);
    await expect(ob.auth.pollDeviceToken(device)).rejects.toMatchObject({ name: 'OAuthError', error: 'expired_token' });
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe(900_000);
    expect(polls()).toEqual([...Array(179).fill('authorization_pending'), 'expired_token']);
  });

  it('deny → OAuthError access_denied, polling stops', async () => {
    let deviceCode = '';
    const { ob, sleeps, polls } = deviceClient({ after: (n) => n === 2 && server.denyDeviceCode(deviceCode) });
    const device = await ob.auth.deviceCode(['accounts']);
    deviceCode = device.device_code;
    const error = await ob.auth.pollDeviceToken(device).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ error: 'access_denied' });
    expect(polls()).toEqual(['authorization_pending', 'access_denied']);
    expect(sleeps).toEqual([5000, 5000]);
  });
});
