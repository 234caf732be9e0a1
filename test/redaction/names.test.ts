import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiError, type ClientEvents, isApiError, type Logger } from '../../src/index.js';
import { echoKit, surfacesKit } from '../support/leak-clients.js';
import { capturingLogger } from '../support/leaks.js';
import { BASE, http, HttpResponse, testClient, tokenHandler, useMsw, validCard } from '../support/msw.js';

// Secrets known by their name never print: fields named pin, otp, cvv, pan, token, bvn, password and
// the compounds and spellings of them, fields a call declares in secretFields, secret headers (the
// signature, api keys, cookies), and the client secret and tokens wherever a text quotes them; not in
// debug lines, request events, or any surface of an error.

const server = useMsw();

describe('redaction by name (pin, otp, cvv, pan, token, bvn, password, x-api-key)', () => {
  const secrets = { pin: '4455', otp: '918273', cvv: '837', pan: '5399000011112222', token: 'tk-7766', bvn: '22233344455', password: 'pw-0099' };

  it('masks them in debug lines, ApiError.data, rawBody and the server message', async () => {
    const lines: string[] = [];
    const logger: Logger = { debug: (m, d) => lines.push(m, JSON.stringify(d)), info: (m, d) => lines.push(m, JSON.stringify(d)), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.post(`${BASE}/wallets`, () =>
        HttpResponse.json({ status: '01', message: `bad request: "pin": "${secrets.pin}", otp=${secrets.otp}`, errors: [{ code: 'X', message: `"cvv":"${secrets.cvv}"` }], data: { ...secrets } }, { status: 400 }),
      ),
    );
    const { ob } = testClient({ logger, logLevel: 'debug', maxRetries: 0 });
    // A fixed key: a random one is hex, and a short secret such as the CVV can occur in it by chance.
    const call = { headers: { 'x-api-key': 'key-5544' }, idempotencyKey: 'redaction-by-name' };
    const error = (await ob.request({ method: 'POST', path: '/wallets', body: secrets }, call).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    const seen = [...lines, error.message, JSON.stringify(error), error.rawBody, JSON.stringify(error.data)].join('\n');
    for (const value of [...Object.values(secrets), "key-5544"]) expect(seen.split("\n").filter((l) => l.includes(value))).toEqual([]);
  });
});

describe('secrets by name pattern, declared secretFields and known values: never in logs or errors', () => {
  const { SECRET, client, tokenOk, printed } = surfacesKit;
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

describe('names spelled another way, and signatures, never print', () => {
  const { client, tokenOk, printed } = echoKit;
  const spelled = {
    cardNumber: 'SENTINEL_cardNumber_01',
    cvc: 'SENTINEL_cvc_02',
    securityCode: 'SENTINEL_securityCode_03',
    codeVerifier: 'SENTINEL_codeVerifier_04',
    deviceCode: 'SENTINEL_deviceCode_05',
    apiKey: 'SENTINEL_apiKey_06',
    privateKey: 'SENTINEL_privateKey_07',
    CARDNUMBER: 'SENTINEL_CARDNUMBER_08',
    'x-access-key': 'SENTINEL_accessKey_09',
    customerPasscode: 'SENTINEL_passcode_10',
  };

  it('a 400 echoing such fields and the signature: data, toJSON and util.inspect show none', async () => {
    let signature = '';
    server.use(
      tokenOk,
      http.post(`${BASE}/cards`, ({ request }) => {
        signature = request.headers.get('signature')!;
        return HttpResponse.json({ status: '01', message: `signature ${signature} refused`, data: { ...spelled, signature } }, { status: 400 });
      }),
    );
    const error = (await client().cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    const out = printed(error);
    for (const value of Object.values(spelled)) expect(out).not.toContain(value);
    expect(out).not.toContain(signature);
    expect((error.data as Record<string, unknown>).cardNumber).toBe('[REDACTED]');
  });

  it('headers api-key, x-hmac-signature, x-access-key and x-client-assertion read [redacted] in request events and debug logs', async () => {
    const headers = { 'api-key': 'SENTINEL_h_apikey_1', 'x-hmac-signature': 'SENTINEL_h_hmac_2', 'x-access-key': 'SENTINEL_h_access_3', 'x-client-assertion': 'SENTINEL_h_assert_4' };
    server.use(tokenOk, http.post(`${BASE}/cards`, () => HttpResponse.json({ status: '00', message: 'ok', data: { card_id: 'c1', card_status: 'ACTIVE' } }, { status: 201 })));
    const { logger, text } = capturingLogger();
    const ob = client({ logger, logLevel: 'debug' });
    const requests: ClientEvents['request'][] = [];
    ob.on('request', (e) => void requests.push(e));
    await ob.cards.create(validCard(), { headers });
    expect(requests).toHaveLength(1);
    for (const name of Object.keys(headers)) expect(requests[0]!.headers[name]).toBe('[redacted]');
    const out = `${text()}\n${JSON.stringify(requests)}`;
    for (const value of Object.values(headers)) expect(out).not.toContain(value);
    expect(out).toContain('idempotency-key'); // the key stays readable
  });
});

describe('util.inspect of an ApiError shows no cookie', () => {
  const { client, tokenOk, printed } = surfacesKit;
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
