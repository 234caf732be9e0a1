import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type ApiError, ConnectionError, isApiError, OpenBanking, ResponseValidationError, type TokenSet, ValidationError } from '../src/index.js';
import { capturingLogger, surfaces } from './support/leaks.js';
import { AUTH, BASE, http, HttpResponse, useMsw, validCard } from './support/msw.js';

// The second security review: redaction by name pattern and known values, depth, exact ids,
// `..;` segments, grant causes, response headers, and a rotated token set that must not be lost.

const SECRET = 'sec_REVIEW_client_secret_41c2';
const server = useMsw();


function client(extra: Partial<ConstructorParameters<typeof OpenBanking>[0]> = {}) {
  return new OpenBanking({ clientId: 'review', clientSecret: SECRET, baseUrl: BASE, authUrl: AUTH, retryDelay: 0, sleep: async () => undefined, logLevel: 'off', ...extra });
}

const tokenOk = http.post(`${AUTH}/oauth2/token`, () => HttpResponse.json({ access_token: 'tok_REVIEW_access_9d1e', token_type: 'Bearer', expires_in: 3600, scope: 'x' }));

/** Everything a user could print of an error. */
const printed = (error: unknown) => surfaces(error).join('\n');

describe('3. secrets by name pattern, declared secretFields and known values: never in logs or errors', () => {
  const values = {
    transaction_pin: 'SENTINEL_tpin_0001',
    new_pin: 'SENTINEL_npin_0002',
    pin_block: 'SENTINEL_pblk_0003',
    otp_code: 'SENTINEL_otpc_0004',
    cardPin: 'SENTINEL_cpin_0005',
    accessToken: 'SENTINEL_atok_0006',
    refreshToken: 'SENTINEL_rtok_0007',
    clientSecret: 'SENTINEL_csec_0008',
    memo_x: 'SENTINEL_memo_0009',
  };
  const sentinels = Object.values(values);

  it('a request with such fields: the debug lines and the ApiError (data, rawBody, message, toJSON, inspect) carry none', async () => {
    server.use(
      tokenOk,
      // A gateway that echoes the request in its error, and quotes a field in its message.
      http.post(`${BASE}/transfers`, async ({ request }) => {
        const sent = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ status: '01', message: `refused transaction_pin=${String(sent.transaction_pin)} memo_x=${String(sent.memo_x)}`, data: { echo: sent, deep: { memo_x: sent.memo_x } } }, { status: 400 });
      }),
    );
    const { logger, text } = capturingLogger();
    const ob = client({ logger, logLevel: 'debug' });
    const error = await ob.request({ method: 'POST', path: '/transfers', body: values, secretFields: ['memo_x'] }).catch((e: unknown) => e);
    expect(isApiError(error)).toBe(true);
    const out = `${text()}\n${printed(error)}`;
    expect(out).toContain('[REDACTED]');
    for (const value of sentinels) expect(out).not.toContain(value);
  });

  it('the client secret and tokens are masked wherever a text quotes them, outside any named field', async () => {
    server.use(tokenOk, http.post(`${BASE}/cards`, () => HttpResponse.json({ status: '01', message: `bad signature for ${SECRET}; bearer tok_REVIEW_access_9d1e` }, { status: 400 })));
    const { logger, text } = capturingLogger();
    const ob = client({ logger, logLevel: 'debug' });
    const error = await ob.request({ method: 'POST', path: '/cards', body: {} }).catch((e: unknown) => e);
    const out = `${text()}\n${printed(error)}`;
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('tok_REVIEW_access_9d1e');
  });
});

describe('5. setTokens during a refresh', () => {
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

describe('6. redaction depth is no escape', () => {
  it('a secret 33 levels deep is in neither data, rawBody nor toJSON()', async () => {
    let nested: Record<string, unknown> = { card_number: 'SENTINEL_deep_5399', note: 'SENTINEL_deep_note' };
    for (let i = 0; i < 40; i++) nested = { level: nested };
    server.use(tokenOk, http.post(`${BASE}/cards`, () => HttpResponse.json({ status: '01', message: 'bad', data: nested }, { status: 400 })));
    const error = await client().request({ method: 'POST', path: '/cards', body: {} }).catch((e: unknown) => e);
    const out = printed(error);
    expect(out).not.toContain('SENTINEL_deep_5399');
    // What lies beyond the depth is dropped whole, secret or not.
    expect(out).not.toContain('SENTINEL_deep_note');
  });
});

describe('7. numeric ids beyond 2^53 are never rounded', () => {
  it('a mandate_id of 9007199254740993 in a response is a ResponseValidationError', async () => {
    server.use(
      tokenOk,
      http.get(`${BASE}/direct-debits`, () =>
        new HttpResponse('{"status":"00","message":"ok","data":{"mandates":[{"mandate_id":9007199254740993,"status":"ACTIVE"}]}}', { headers: { 'content-type': 'application/json' } }),
      ),
    );
    const now = Math.floor(Date.now() / 1000);
    const session = client().forCustomer({ access_token: 'customer-access', token_type: 'Bearer', expires_in: 3600, expires_at: now + 3600 });
    const error = await session.directDebits.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.some((i) => /mandate_id/.test(i.path))).toBe(true);
  });

  it('a transaction id of 9007199254740993 is a ResponseValidationError too, as every numeric id of a response', async () => {
    server.use(
      tokenOk,
      http.get(`${BASE}/accounts/0123456789/transactions`, () =>
        new HttpResponse('{"status":"00","message":"ok","data":{"summary":{"pages":1},"transactions":[{"id":9007199254740993,"amount":5}]}}', { headers: { 'content-type': 'application/json' } }),
      ),
    );
    const now = Math.floor(Date.now() / 1000);
    const session = client().forCustomer({ access_token: 'customer-access', token_type: 'Bearer', expires_in: 3600, expires_at: now + 3600 });
    const error = await session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((i) => i.path)).toContain('data.transactions.0.id');
  });

  it('a path parameter of 2^53 or more is refused before sending', async () => {
    const now = Math.floor(Date.now() / 1000);
    const session = client().forCustomer({ access_token: 'customer-access', token_type: 'Bearer', expires_in: 3600, expires_at: now + 3600 });
    const error = await session.directDebits.charge(9007199254740993, { amount: 100 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]!.path).toBe('mandate_id');
  });
});

describe('9. request refuses `..;` segments like `..`', () => {
  it.each(['/a/..;/x', '/a/..%3b/x', '/a/..%3B/x', '/..;', '/a/.;/x'])('%s: ValidationError, nothing sent', async (path) => {
    const error = await client().request({ method: 'GET', path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]!.path).toBe('path');
  });
});

describe('10. a grant cause that quotes the form body is masked', () => {
  const leaky = (): typeof fetch => async (input, init) => {
    const body = input instanceof Request ? await input.text() : String(init?.body ?? '');
    throw new TypeError(`fetch failed while sending ${body}`);
  };
  const forms = ['client_secret', 'refresh_token', 'code_verifier'];

  it('clientCredentials, refresh and exchangeCode: util.inspect(error) shows no secret, token, code or verifier', async () => {
    const ob = client({ fetch: leaky() });
    const verifier = 'v'.repeat(20) + '_SENTINEL_verifier_000000000';
    const errors = [
      await ob.auth.clientCredentials(['cards.create']).catch((e: unknown) => e),
      await ob.auth.refresh('rt_SENTINEL_refresh_1234').catch((e: unknown) => e),
      await ob.auth.exchangeCode({ code: 'code_SENTINEL_1234', codeVerifier: verifier, redirectUri: 'https://app.example/cb' }).catch((e: unknown) => e),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConnectionError);
      const out = printed(error);
      for (const value of [SECRET, 'rt_SENTINEL_refresh_1234', 'code_SENTINEL_1234', verifier]) expect(out).not.toContain(value);
    }
    // The masked cause still says what it was about.
    expect(inspect(errors[0], { depth: 5 })).toMatch(new RegExp(forms[0]!));
  });

  it('cards.create: its token request\'s cause is masked too', async () => {
    const error = await client({ fetch: leaky() }).cards.create(validCard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(printed(error)).not.toContain(SECRET);
  });
});

describe('11. util.inspect of an ApiError shows no cookie', () => {
  it('set-cookie and other secret response headers read [REDACTED]; other headers stay readable', async () => {
    server.use(
      tokenOk,
      http.post(`${BASE}/cards`, () =>
        HttpResponse.json({ status: '01', message: 'bad' }, { status: 400, headers: { 'set-cookie': 'gw_session=SENTINEL_cookie_77; HttpOnly', 'x-request-id': 'req-1' } }),
      ),
    );
    const error = (await client().request({ method: 'POST', path: '/cards', body: {} }).catch((e: unknown) => e)) as ApiError;
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain('SENTINEL_cookie_77');
    expect(printed(error)).not.toContain('SENTINEL_cookie_77');
    expect(error.headers.get('set-cookie')).toBe('[REDACTED]');
    expect(error.headers.get('x-request-id')).toBe('req-1');
  });
});
