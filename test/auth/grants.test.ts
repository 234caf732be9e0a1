import { describe, expect, it } from 'vitest';
import { AbortError, ConnectionError, MemoryTokenStore, OAuthError, ValidationError } from '../../src/index.js';
import { AUTH, BASE, CLIENT_ID, createdCard, http, HttpResponse, record, type Recorded, SECRET, testClient, tokenHandler, tokenSet, useMsw, validCard } from '../support/msw.js';

// The grants a client makes at the identity host: the authorization URL, the code exchange, the
// refresh, and client credentials with the token store they fill.

const server = useMsw();
const REDIRECT = 'https://app.example.com/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

/** `POST {auth}/oauth/token` answering with the given bodies in turn. */
function codeTokenEndpoint(seen: Recorded[], answers: Array<() => Response>) {
  return http.post(`${AUTH}/oauth/token`, async ({ request }) => {
    await record(request, seen);
    return answers[Math.min(seen.length - 1, answers.length - 1)]!();
  });
}

const form = (r: Recorded) => Object.fromEntries(new URLSearchParams(r.body));

describe('ob.auth.authorizationUrl', () => {
  it('uses the client id, auth URL, authorize path and redirect URI of the client', async () => {
    const { ob } = testClient({ redirectUri: REDIRECT, endpoints: { authorize: '/custom/authorize' } });
    const req = await ob.auth.authorizationUrl({ scope: ['accounts'] });
    const url = new URL(req.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${AUTH}/custom/authorize`);
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(req.url).not.toContain(encodeURIComponent(SECRET));
  });

  it('rejects with ValidationError when there is no redirect URI', async () => {
    const { ob } = testClient();
    await expect(ob.auth.authorizationUrl({ scope: ['accounts'] })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('ob.auth.exchangeCode', () => {
  it('posts exactly the form fields of the spec and returns a token set with expires_at', async () => {
    const seen: Recorded[] = [];
    server.use(codeTokenEndpoint(seen, [() => HttpResponse.json(tokenSet(1))]));
    const { ob } = testClient();
    const before = Math.floor(Date.now() / 1000);
    const tokens = await ob.auth.exchangeCode({ code: 'code-1', codeVerifier: VERIFIER, redirectUri: REDIRECT });

    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe(`${AUTH}/oauth/token`);
    expect(seen[0]!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(form(seen[0]!)).toEqual({
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      client_secret: SECRET,
      code: 'code-1',
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    });
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(tokens).toMatchObject({ access_token: 'access-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-1', scope: 'accounts transactions' });
    expect(tokens.expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(tokens.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600);
  });

  it('defaults the redirect URI to the client option and honours endpoints.token', async () => {
    const seen: Recorded[] = [];
    server.use(
      http.post(`${AUTH}/as/token`, async ({ request }) => {
        await record(request, seen);
        return HttpResponse.json(tokenSet(1));
      }),
    );
    const { ob } = testClient({ redirectUri: REDIRECT, endpoints: { token: '/as/token' } });
    await ob.auth.exchangeCode({ code: 'code-1', codeVerifier: VERIFIER });
    expect(form(seen[0]!).redirect_uri).toBe(REDIRECT);
  });

  it('turns an OAuth error body into OAuthError with error, description and status, and no secret', async () => {
    server.use(codeTokenEndpoint([], [() => HttpResponse.json({ error: 'invalid_grant', error_description: 'Code already used' }, { status: 400 })]));
    const { ob } = testClient();
    const error = (await ob.auth.exchangeCode({ code: 'used-code-value', codeVerifier: VERIFIER, redirectUri: REDIRECT }).catch((e: unknown) => e)) as OAuthError;
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.error).toBe('invalid_grant');
    expect(error.errorDescription).toBe('Code already used');
    expect(error.status).toBe(400);
    const text = `${error.message} ${JSON.stringify(error)} ${String(error.stack)}`;
    for (const secret of [SECRET, 'used-code-value', VERIFIER]) expect(text).not.toContain(secret);
  });

  it('reports a 401 with WWW-Authenticate as invalid_client', async () => {
    server.use(codeTokenEndpoint([], [() => new HttpResponse(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="x", error="invalid_client"' } })]));
    const { ob } = testClient();
    await expect(ob.auth.exchangeCode({ code: 'c', codeVerifier: VERIFIER, redirectUri: REDIRECT })).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_client', status: 401 });
  });

  it('reports a 401 JSON error body as OAuthError, and an HTML 502 as server_error with the status', async () => {
    server.use(codeTokenEndpoint([], [() => HttpResponse.json({ error: 'invalid_client', error_description: 'Unknown client' }, { status: 401 })]));
    const { ob } = testClient();
    await expect(ob.auth.refresh('r')).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_client', errorDescription: 'Unknown client', status: 401 });
    server.use(codeTokenEndpoint([], [() => new HttpResponse('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } })]));
    await expect(ob.auth.refresh('r')).rejects.toMatchObject({ name: 'OAuthError', error: 'server_error', status: 502 });
  });

  it('reports an unreachable identity host as ConnectionError', async () => {
    server.use(http.post(`${AUTH}/oauth/token`, () => HttpResponse.error()));
    const { ob } = testClient();
    await expect(ob.auth.exchangeCode({ code: 'c', codeVerifier: VERIFIER, redirectUri: REDIRECT })).rejects.toBeInstanceOf(ConnectionError);
  });

  it('rejects with AbortError when the signal fires', async () => {
    server.use(codeTokenEndpoint([], [() => HttpResponse.json(tokenSet(1))]));
    const { ob } = testClient();
    const controller = new AbortController();
    controller.abort();
    await expect(ob.auth.exchangeCode({ code: 'c', codeVerifier: VERIFIER, redirectUri: REDIRECT }, { signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
  });

  const bad: Array<[string, unknown]> = [
    ['no code', { codeVerifier: VERIFIER, redirectUri: REDIRECT }],
    ['a short verifier', { code: 'c', codeVerifier: 'short', redirectUri: REDIRECT }],
    ['a relative redirect URI', { code: 'c', codeVerifier: VERIFIER, redirectUri: '/cb' }],
    ['no redirect URI anywhere', { code: 'c', codeVerifier: VERIFIER }],
    ['no parameters', undefined],
  ];
  for (const [name, params] of bad) {
    it(`rejects ${name} with ValidationError and sends nothing`, async () => {
      const { ob } = testClient();
      await expect(ob.auth.exchangeCode(params as never)).rejects.toBeInstanceOf(ValidationError);
    });
  }
});

describe('ob.auth.refresh', () => {
  it('posts grant_type=refresh_token with the client credentials and returns the rotated set', async () => {
    const seen: Recorded[] = [];
    server.use(codeTokenEndpoint(seen, [() => HttpResponse.json(tokenSet(2))]));
    const { ob } = testClient();
    const tokens = await ob.auth.refresh('refresh-1');
    expect(form(seen[0]!)).toEqual({ grant_type: 'refresh_token', client_id: CLIENT_ID, client_secret: SECRET, refresh_token: 'refresh-1' });
    expect(tokens.access_token).toBe('access-2');
    expect(tokens.refresh_token).toBe('refresh-2');
  });

  it('carries the refresh token over when the server does not rotate it', async () => {
    server.use(codeTokenEndpoint([], [() => HttpResponse.json(tokenSet(2, { refresh_token: undefined }))]));
    const { ob } = testClient();
    expect((await ob.auth.refresh('refresh-1')).refresh_token).toBe('refresh-1');
  });

  it('rejects an empty refresh token with ValidationError', async () => {
    const { ob } = testClient();
    await expect(ob.auth.refresh('')).rejects.toBeInstanceOf(ValidationError);
    await expect(ob.auth.refresh(undefined as never)).rejects.toBeInstanceOf(ValidationError);
    // A token set's refresh_token is optional; passing it as typed compiles, and a missing one is refused unsent.
    const withoutRefresh: { refresh_token?: string } = {};
    await expect(ob.auth.refresh(withoutRefresh.refresh_token)).rejects.toMatchObject({ name: 'ValidationError', issues: [{ path: 'refreshToken', code: 'missing' }] });
  });
});

describe('ob.auth.clientCredentials and the token store', () => {
  it('posts grant_type=client_credentials with the scope to endpoints.clientCredentials', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    server.use(tokenHandler(state));
    const { ob } = testClient();
    const tokens = await ob.auth.clientCredentials(['cards.create', 'cards.list']);
    expect(form(state.tokenRequests[0]!)).toEqual({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: SECRET, scope: 'cards.create cards.list' });
    expect(tokens).toMatchObject({ access_token: 'token-1', token_type: 'Bearer', expires_in: 3600 });
  });

  it('two clients sharing one store make one client-credentials request between them', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: string[] = [];
    server.use(
      tokenHandler(state),
      http.post(`${BASE}/cards`, ({ request }) => {
        seen.push(request.headers.get('authorization') ?? '');
        return HttpResponse.json(createdCard(), { status: 201 });
      }),
    );
    const tokenStore = new MemoryTokenStore();
    const a = testClient({ tokenStore }).ob;
    const b = testClient({ tokenStore }).ob;
    await Promise.all([a.cards.create(validCard()), b.cards.create(validCard()), a.cards.create(validCard()), b.cards.create(validCard())]);
    await b.cards.create(validCard());
    expect(state.tokenRequests).toHaveLength(1);
    expect(new Set(seen)).toEqual(new Set(['Bearer token-1']));
  });

  it('clients with their own (default, in-memory) stores each get a token', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    server.use(tokenHandler(state), http.post(`${BASE}/cards`, () => HttpResponse.json(createdCard(), { status: 201 })));
    await Promise.all([testClient().ob.cards.create(validCard()), testClient().ob.cards.create(validCard())]);
    expect(state.tokenRequests).toHaveLength(2);
  });

  it('rejects a malformed scope with ValidationError', async () => {
    const { ob } = testClient();
    await expect(ob.auth.clientCredentials([42] as never)).rejects.toBeInstanceOf(ValidationError);
  });
});
