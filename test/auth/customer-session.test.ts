import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ConnectionError, OAuthError, ValidationError, type TokenSet } from '../../src/index.js';
import { surfacesKit } from '../support/leak-clients.js';
import { AUTH, BASE, http, HttpResponse, type Recorded, testClient, tokenHandler, useMsw } from '../support/msw.js';

const server = useMsw();
const now = () => Math.floor(Date.now() / 1000);

const expired = (n = 0): TokenSet => ({ access_token: `access-${n}`, token_type: 'Bearer', expires_in: 3600, expires_at: now() - 10, refresh_token: `refresh-${n}` });
const fresh = (n = 0): TokenSet => ({ ...expired(n), expires_at: now() + 3600 });

/** The refresh endpoint: rotates `refresh-N` into `access-N+1` / `refresh-N+1`, or answers as told. */
function refreshEndpoint(seen: Recorded[], answer?: (form: URLSearchParams) => Response | Promise<Response>) {
  return http.post(`${AUTH}/oauth/token`, async ({ request }) => {
    const body = await request.text();
    seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
    const form = new URLSearchParams(body);
    if (answer) return answer(form);
    const n = Number(form.get('refresh_token')!.split('-')[1]) + 1;
    return HttpResponse.json({ access_token: `access-${n}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${n}`, scope: 'accounts' });
  });
}

/** A customer API endpoint that accepts only the listed access tokens. */
function accountsEndpoint(seen: string[], valid: (token: string) => boolean) {
  return http.get(`${BASE}/accounts`, ({ request }) => {
    const token = (request.headers.get('authorization') ?? '').replace(/^Bearer /, '');
    seen.push(token);
    if (!valid(token)) return HttpResponse.json({ status: '02', message: 'Unauthorized', data: {} }, { status: 401 });
    return HttpResponse.json({ status: '00', message: 'ok', data: { accounts: [{ account_number: '0123456789' }] } });
  });
}

describe('ob.forCustomer', () => {
  it('calls the API with the customer token, not a client-credentials one', async () => {
    const calls: string[] = [];
    server.use(accountsEndpoint(calls, () => true));
    const { ob } = testClient();
    const customer = ob.forCustomer(fresh(7));
    const data = await customer.request<{ accounts: unknown[] }>({ method: 'GET', path: '/accounts' });
    expect(data.accounts).toHaveLength(1);
    expect(calls).toEqual(['access-7']);
  });

  it('100 concurrent calls with an expired token make exactly one refresh, and onTokens sees the rotated set', async () => {
    const refreshes: Recorded[] = [];
    const calls: string[] = [];
    const persisted: TokenSet[] = [];
    server.use(refreshEndpoint(refreshes), accountsEndpoint(calls, (t) => t === 'access-1'));
    const { ob } = testClient();
    const customer = ob.forCustomer(expired(0), {
      onTokens: async (tokens) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        persisted.push(tokens);
      },
    });
    await Promise.all(Array.from({ length: 100 }, () => customer.request({ method: 'GET', path: '/accounts' })));
    expect(refreshes).toHaveLength(1);
    expect(new URLSearchParams(refreshes[0]!.body).get('refresh_token')).toBe('refresh-0');
    expect(new URLSearchParams(refreshes[0]!.body).get('grant_type')).toBe('refresh_token');
    expect(calls).toHaveLength(100);
    expect(new Set(calls)).toEqual(new Set(['access-1']));
    expect(persisted).toHaveLength(1);
    expect(persisted[0]).toMatchObject({ access_token: 'access-1', refresh_token: 'refresh-1' });
    expect(persisted[0]!.expires_at).toBeGreaterThan(now() + 3500);
    expect(customer.tokens).toMatchObject({ access_token: 'access-1', refresh_token: 'refresh-1' });
  });

  it('refreshes ahead of expiry (inside the margin) and uses the rotated refresh token next time', async () => {
    const refreshes: Recorded[] = [];
    server.use(refreshEndpoint(refreshes), accountsEndpoint([], () => true));
    const { ob } = testClient();
    const customer = ob.forCustomer({ ...fresh(0), expires_at: now() + 20 });
    await customer.request({ method: 'GET', path: '/accounts' });
    expect(customer.tokens.access_token).toBe('access-1');
    await customer.refresh();
    expect(refreshes.map((r) => new URLSearchParams(r.body).get('refresh_token'))).toEqual(['refresh-0', 'refresh-1']);
  });

  it('a 401 triggers one refresh and one retry with the new token', async () => {
    const refreshes: Recorded[] = [];
    const calls: string[] = [];
    const persisted: TokenSet[] = [];
    server.use(refreshEndpoint(refreshes), accountsEndpoint(calls, (t) => t === 'access-1'));
    const { ob } = testClient();
    const customer = ob.forCustomer(fresh(0), { onTokens: (t) => void persisted.push(t) });
    await customer.request({ method: 'GET', path: '/accounts' });
    expect(calls).toEqual(['access-0', 'access-1']);
    expect(refreshes).toHaveLength(1);
    expect(persisted.map((t) => t.access_token)).toEqual(['access-1']);
  });

  it('concurrent 401s share one refresh', async () => {
    const refreshes: Recorded[] = [];
    server.use(refreshEndpoint(refreshes), accountsEndpoint([], (t) => t === 'access-1'));
    const { ob } = testClient();
    const customer = ob.forCustomer(fresh(0));
    await Promise.all(Array.from({ length: 20 }, () => customer.request({ method: 'GET', path: '/accounts' })));
    expect(refreshes).toHaveLength(1);
  });

  it('sessions of one client over the same token set share one refresh: the rotating refresh token is redeemed once', async () => {
    // A backend that builds a session per incoming request, from the tokens it stored, has
    // several sessions for one customer at once; two grants would spend the refresh token twice.
    const refreshes: Recorded[] = [];
    const calls: string[] = [];
    server.use(
      refreshEndpoint(refreshes, async (form) => {
        const spent = refreshes.length > 1 || form.get('refresh_token') !== 'refresh-0';
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (spent) return HttpResponse.json({ error: 'invalid_grant', error_description: 'Refresh token reused' }, { status: 400 });
        return HttpResponse.json({ access_token: 'access-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-1', scope: 'accounts' });
      }),
      accountsEndpoint(calls, (t) => t === 'access-1'),
    );
    const { ob } = testClient();
    const persisted: string[] = [];
    const sessions = [0, 1, 2].map((i) => ob.forCustomer(expired(0), { onTokens: (t) => void persisted.push(`${i}:${t.refresh_token}`) }));
    await Promise.all(sessions.map((session) => session.request({ method: 'GET', path: '/accounts' })));
    expect(refreshes).toHaveLength(1);
    expect(calls).toEqual(['access-1', 'access-1', 'access-1']);
    for (const session of sessions) {
      expect(session.tokens).toMatchObject({ access_token: 'access-1', refresh_token: 'refresh-1' });
      expect(session.consent.state).toBe('active');
    }
    // Every session reports the rotation it now holds.
    expect(persisted.sort()).toEqual(['0:refresh-1', '1:refresh-1', '2:refresh-1']);
  });

  it('a second 401 after the refresh is reported as AuthenticationError', async () => {
    const refreshes: Recorded[] = [];
    server.use(refreshEndpoint(refreshes), accountsEndpoint([], () => false));
    const { ob } = testClient();
    const customer = ob.forCustomer(fresh(0));
    await expect(customer.request({ method: 'GET', path: '/accounts' })).rejects.toBeInstanceOf(AuthenticationError);
    expect(refreshes).toHaveLength(1);
  });

  it('a refused refresh rejects every waiting call with the OAuthError and is never retried', async () => {
    const refreshes: Recorded[] = [];
    const calls: string[] = [];
    const persisted: TokenSet[] = [];
    server.use(
      refreshEndpoint(refreshes, () => HttpResponse.json({ error: 'invalid_grant', error_description: 'Refresh token reused' }, { status: 400 })),
      accountsEndpoint(calls, () => true),
    );
    const { ob } = testClient();
    const customer = ob.forCustomer(expired(0), { onTokens: (t) => void persisted.push(t) });
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => customer.request({ method: 'GET', path: '/accounts' })));
    expect(refreshes).toHaveLength(1);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason as OAuthError;
      expect(reason).toBeInstanceOf(OAuthError);
      expect(reason.error).toBe('invalid_grant');
      expect(reason.errorDescription).toBe('Refresh token reused');
    }
    // Later calls fail the same way without another grant.
    await expect(customer.request({ method: 'GET', path: '/accounts' })).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(customer.refresh()).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(refreshes).toHaveLength(1);
    expect(calls).toEqual([]);
    expect(persisted).toEqual([]);

    // New tokens from the caller revive the session.
    customer.setTokens(fresh(5));
    await customer.request({ method: 'GET', path: '/accounts' });
    expect(calls).toEqual(['access-5']);
  });

  it('a refresh whose connection is refused (the grant never left) fails the waiting calls; the next call tries again', async () => {
    const refreshes: Recorded[] = [];
    let down = true;
    server.use(
      refreshEndpoint(refreshes, (form) =>
        HttpResponse.json({ access_token: 'access-1', token_type: 'Bearer', expires_in: 3600, refresh_token: form.get('refresh_token') === 'refresh-0' ? 'refresh-1' : 'x' }),
      ),
      accountsEndpoint([], () => true),
    );
    const refused = () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) }));
    const { ob } = testClient({ fetch: (input, init) => (down && String(input instanceof Request ? input.url : input).startsWith(AUTH) ? refused() : fetch(input, init)) });
    const customer = ob.forCustomer(expired(0));
    const results = await Promise.allSettled([customer.request({ method: 'GET', path: '/accounts' }), customer.request({ method: 'GET', path: '/accounts' })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionError);
    expect(refreshes).toHaveLength(0);
    down = false;
    await customer.request({ method: 'GET', path: '/accounts' });
    expect(refreshes).toHaveLength(1);
    expect(customer.tokens.access_token).toBe('access-1');
  });

  it('when onTokens throws, the waiting calls reject with its error and the session keeps the new set', async () => {
    const refreshes: Recorded[] = [];
    const calls: string[] = [];
    server.use(refreshEndpoint(refreshes), accountsEndpoint(calls, (t) => t === 'access-1'));
    const { ob } = testClient();
    const customer = ob.forCustomer(expired(0), {
      onTokens: () => {
        throw new Error('database down');
      },
    });
    await expect(customer.request({ method: 'GET', path: '/accounts' })).rejects.toThrow('database down');
    expect(customer.tokens.access_token).toBe('access-1');
    await customer.request({ method: 'GET', path: '/accounts' });
    expect(refreshes).toHaveLength(1);
    expect(calls).toEqual(['access-1']);
  });

  it('a late refresh answer does not overwrite tokens the caller gave meanwhile', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const persisted: TokenSet[] = [];
    const refreshes: Recorded[] = [];
    server.use(
      refreshEndpoint(refreshes, async () => {
        await gate;
        return HttpResponse.json({ access_token: 'late-access', token_type: 'Bearer', expires_in: 3600, refresh_token: 'late-refresh' });
      }),
    );
    const { ob } = testClient();
    const customer = ob.forCustomer(expired(0), { onTokens: (t) => void persisted.push(t) });
    const refreshing = customer.refresh();
    // The refresh is at the identity host, its answer held there.
    await vi.waitFor(() => expect(refreshes).toHaveLength(1), { timeout: 5_000, interval: 5 });
    customer.setTokens(fresh(9));
    release();
    await refreshing;
    expect(customer.tokens.access_token).toBe('access-9');
    expect(persisted).toEqual([]);
  });

  it('without a refresh token, an expired session rejects with a clear OAuthError', async () => {
    const { ob } = testClient();
    const { refresh_token: _, ...noRefresh } = expired(0);
    const customer = ob.forCustomer(noRefresh);
    const error = (await customer.request({ method: 'GET', path: '/accounts' }).catch((e: unknown) => e)) as OAuthError;
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.error).toBe('no_refresh_token');
    expect(error.message).toMatch(/no refresh token/);
  });

  it('without a refresh token, a 401 rejects with the OAuthError and makes no grant', async () => {
    const calls: string[] = [];
    server.use(accountsEndpoint(calls, () => false));
    const { ob } = testClient();
    const { refresh_token: _, ...noRefresh } = fresh(0);
    await expect(ob.forCustomer(noRefresh).request({ method: 'GET', path: '/accounts' })).rejects.toMatchObject({ error: 'no_refresh_token' });
    expect(calls).toEqual(['access-0']);
  });

  it('bad tokens or options make every call reject with ValidationError (forCustomer never throws)', async () => {
    const { ob } = testClient();
    for (const [tokens, options] of [
      [undefined, undefined],
      [{ token_type: 'Bearer' }, undefined],
      [{ access_token: 'a' }, undefined],
      [fresh(0), { onTokens: 'save' }],
    ] as const) {
      const customer = ob.forCustomer(tokens as never, options as never);
      await expect(customer.request({ method: 'GET', path: '/accounts' })).rejects.toBeInstanceOf(ValidationError);
    }
  });

  it('accepts a set with expires_in only, counting from now', async () => {
    const calls: string[] = [];
    server.use(accountsEndpoint(calls, () => true));
    const { ob } = testClient();
    const customer = ob.forCustomer({ access_token: 'a-1', token_type: 'Bearer', expires_in: 3600 } as TokenSet);
    await customer.request({ method: 'GET', path: '/accounts' });
    expect(calls).toEqual(['a-1']);
    expect(customer.tokens.expires_at).toBeGreaterThan(now() + 3500);
  });

  it('customer: false uses a client-credentials token with the scope', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const calls: string[] = [];
    server.use(tokenHandler(state), accountsEndpoint(calls, () => true));
    const { ob } = testClient();
    await ob.forCustomer(fresh(3)).request({ method: 'GET', path: '/accounts', scope: 'accounts.list.readonly', customer: false });
    expect(calls).toEqual(['token-1']);
    expect(new URLSearchParams(state.tokenRequests[0]!.body).get('scope')).toBe('accounts.list.readonly');
  });

  it('validates request parameters before any refresh', async () => {
    const refreshes: Recorded[] = [];
    server.use(refreshEndpoint(refreshes));
    const { ob } = testClient();
    await expect(ob.forCustomer(expired(0)).request({ method: 'FETCH', path: 'accounts' } as never)).rejects.toBeInstanceOf(ValidationError);
    expect(refreshes).toHaveLength(0);
  });

  it('never shows a token in toJSON or inspect', () => {
    const { ob } = testClient();
    const customer = ob.forCustomer(fresh(42));
    const text = `${JSON.stringify(customer)} ${inspect(customer)}`;
    expect(text).not.toContain('access-42');
    expect(text).not.toContain('refresh-42');
    expect(JSON.parse(JSON.stringify(customer))).toMatchObject({ refreshable: true });
  });
});

describe('setTokens during a refresh', () => {
  const { client } = surfacesKit;
  it('the rotated set wins over the set being refreshed: onTokens fires for it, refresh() resolves to it, the next refresh sends the new refresh token', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const refreshTokensSent: string[] = [];
    server.use(
      http.post(`${AUTH}/oauth/token`, async ({ request }) => {
        const form = new URLSearchParams(await request.text());
        refreshTokensSent.push(form.get('refresh_token') ?? '');
        const n = refreshTokensSent.length;
        if (n === 1) await gate;
        return HttpResponse.json({ access_token: `rotated-access-${n}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `rotated-refresh-${n}` });
      }),
    );
    const now = Math.floor(Date.now() / 1000);
    const original: TokenSet = { access_token: 'old-access', token_type: 'Bearer', expires_in: 3600, expires_at: now - 10, refresh_token: 'old-refresh' };
    const adopted: TokenSet[] = [];
    const session = client().forCustomer(original, { onTokens: (t) => void adopted.push(t) });
    const refreshing = session.refresh();
    await expect.poll(() => refreshTokensSent.length).toBe(1);
    session.setTokens(original); // e.g. the app reloading what it had saved, while the refresh is in flight
    release();
    const result = await refreshing;
    expect(result.access_token).toBe('rotated-access-1');
    expect(adopted.map((t) => t.access_token)).toEqual(['rotated-access-1']);
    expect(session.tokens.refresh_token).toBe('rotated-refresh-1');
    await session.refresh();
    expect(refreshTokensSent).toEqual(['old-refresh', 'rotated-refresh-1']);
  });
});
