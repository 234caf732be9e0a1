import { subscribe, tracingChannel } from 'node:diagnostics_channel';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { aesGcmCipher, type ApiError, type ClientEvents, isApiError, OAuthError, OpenBanking, ResponseValidationError, ValidationError } from '../src/index.js';
import { redactionWork } from '../src/errors/redact.js';
import { instrument } from '../src/otel.js';
import { capturingLogger, surfaces } from './support/leaks.js';
import { AUTH, BASE, http, HttpResponse, useMsw, validCard } from './support/msw.js';
import { telemetry } from './observability/support.js';

// The third security review: answers that slip past redaction (duplicate keys, escapes, prose,
// echoed values), names spelled another way, caller paths as telemetry names, redaction cost, and
// a device-code wait that outlives its code.

const SECRET = 'sec_THIRD_review_client_secret_77b1';
const server = useMsw();

function client(extra: Partial<ConstructorParameters<typeof OpenBanking>[0]> = {}) {
  return new OpenBanking({ clientId: 'third-review', clientSecret: SECRET, baseUrl: BASE, authUrl: AUTH, retryDelay: 0, sleep: async () => undefined, logLevel: 'off', ...extra });
}

const tokenOk = http.post(`${AUTH}/oauth2/token`, () => HttpResponse.json({ access_token: 'tok_THIRD_access_51f0', token_type: 'Bearer', expires_in: 3600, scope: 'cards.create' }));

/** Everything a user could print of an error: message, stack, JSON, inspect, causes. */
const printed = (error: unknown) => [...surfaces(error), inspect(error, { depth: 50 }), JSON.stringify(error)].join('\n');

const PAN = '5399412345678901';
const CVV = '321';

describe('1. duplicate keys, escaped names and non-JSON text carry no card data past redaction', () => {
  const bodies: Record<string, string> = {
    'duplicate keys': `{"status":"01","message":"bad","data":{"card_number":"${PAN}","card_cvv2":"${CVV}7"},"data":{}}`,
    'escaped names, cut off': `{"status":"01","message":"bad","data":{"card\\u005fnumber":"${PAN}","card_cvv\\u0032":"${CVV}7","memo":"`,
    'non-JSON text': `upstream refused: card_number: ${PAN}, card_cvv2=${CVV}7`,
  };

  for (const [shape, body] of Object.entries(bodies)) {
    it(`a 400 with ${shape}: rawBody, JSON.stringify and util.inspect show neither the PAN nor the CVV2`, async () => {
      server.use(tokenOk, http.post(`${BASE}/cards`, () => new HttpResponse(body, { status: 400, headers: { 'content-type': shape === 'non-JSON text' ? 'text/plain' : 'application/json' } })));
      const error = (await client().cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
      expect(isApiError(error)).toBe(true);
      expect(error.rawBody).toContain('[REDACTED]');
      const out = printed(error);
      expect(out).not.toContain(PAN);
      expect(out).not.toContain(`${CVV}7`);
    });

    it(`a 201 with ${shape} that fails its schema: ResponseValidationError shows neither`, async () => {
      const answer = shape === 'non-JSON text' ? body : body.replace('"status":"01"', '"status":"00"');
      server.use(tokenOk, http.post(`${BASE}/cards`, () => new HttpResponse(answer, { status: 201, headers: { 'content-type': 'application/json' } })));
      const error = await client().cards.create(validCard()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      const out = printed(error);
      expect(out).not.toContain(PAN);
      expect(out).not.toContain(`${CVV}7`);
    });
  }

  it('a body without a secret is kept byte for byte, duplicates and spacing included', async () => {
    const body = '{ "status":"01",  "message":"bad", "data":{"a":1}, "data":{"b":2.50} }';
    server.use(tokenOk, http.post(`${BASE}/cards`, () => new HttpResponse(body, { status: 400, headers: { 'content-type': 'application/json' } })));
    const error = (await client().cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
    expect(error.rawBody).toBe(body);
  });
});

describe('2. an answer that quotes what the call sent is masked everywhere it reaches', () => {
  it('a 400 quoting the PIN, card number and CVV the call sent: message, errors, rawBody, callEnd and the diagnostics channel', async () => {
    const pin = '97531';
    server.use(
      tokenOk,
      http.post(`${BASE}/cards/pin`, async ({ request }) => {
        const sent = (await request.json()) as Record<string, string>;
        const quoted = `PIN ${sent.new_pin} does not match card ${sent.card_number} (cvv ${sent.cvv})`;
        return HttpResponse.json({ status: '01', message: quoted, errors: [{ code: 'MISMATCH', message: quoted }] }, { status: 400 });
      }),
    );
    const ob = client();
    const ended: ClientEvents['callEnd'][] = [];
    ob.on('callEnd', (e) => void ended.push(e));
    const channelErrors: unknown[] = [];
    const onError = (context: unknown) => void channelErrors.push((context as { error?: unknown }).error);
    tracingChannel('openbanking-ng:call').error.subscribe(onError);
    try {
      const error = (await ob.request({ method: 'POST', path: '/cards/pin', body: { new_pin: pin, card_number: PAN, cvv: CVV } }).catch((e: unknown) => e)) as ApiError;
      expect(isApiError(error)).toBe(true);
      expect(error.message).toBe('PIN [REDACTED] does not match card [REDACTED] (cvv [REDACTED])');
      expect(error.errors[0]!.message).toBe(error.message);
      const everywhere = [printed(error), ...ended.map((e) => printed(e.error)), ...channelErrors.map(printed)].join('\n');
      expect(ended).toHaveLength(1);
      expect(channelErrors).toHaveLength(1);
      for (const value of [pin, PAN]) expect(everywhere).not.toContain(value);
      expect(everywhere).not.toMatch(/cvv 321/);
    } finally {
      tracingChannel('openbanking-ng:call').error.unsubscribe(onError);
    }
  });

  it('a text/plain 502 quoting the plaintext PIN and its ciphertext: rawBody masks both', async () => {
    const cipher = aesGcmCipher(SECRET);
    let sentCiphertext = '';
    server.use(
      tokenOk,
      http.post(`${BASE}/cards`, async ({ request }) => {
        sentCiphertext = ((await request.json()) as Record<string, string>).card_default_pin!;
        return new HttpResponse(`gateway: pin 48213 rejected, encrypted as ${sentCiphertext}`, { status: 502, headers: { 'content-type': 'text/plain' } });
      }),
    );
    const error = (await client({ cipher, maxRetries: 0 }).cards.create({ ...validCard(), card_default_pin: '48213' }).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(502);
    expect(sentCiphertext).not.toBe('');
    const out = printed(error);
    expect(out).not.toContain('48213');
    expect(out).not.toContain(sentCiphertext);
  });

  it('a value the call sent is masked only as a whole token, not inside a longer number', async () => {
    server.use(tokenOk, http.post(`${BASE}/cards`, () => HttpResponse.json({ status: '01', message: 'pin 4821 refused; reference 148213 kept' }, { status: 400 })));
    const error = (await client().cards.create({ ...validCard(), card_default_pin: '4821' }).catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe('pin [REDACTED] refused; reference 148213 kept');
  });
});

describe('3. names spelled another way, and signatures, never print', () => {
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

describe('4. ob.request names a path by a typed template, else /{path}, never by its values', () => {
  it('a path with a PAN and a PIN: span name, url.template, metric attributes and events read /{path}, for a refused call too', async () => {
    const t = telemetry();
    server.use(tokenOk, http.get(`${BASE}/cards/:pan/pin/:pin`, () => HttpResponse.json({ status: '01', message: 'no' }, { status: 404 })));
    const ob = client();
    const off = instrument(ob, { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider });
    const starts: ClientEvents['callStart'][] = [];
    ob.on('callStart', (e) => void starts.push(e));
    await ob.request({ method: 'GET', path: '/cards/5399838383838381/pin/4321' }).catch(() => undefined);
    await expect(ob.request({ method: 'GET', path: '/cards/5399838383838381/pin/4321', body: { x: 1 } })).rejects.toBeInstanceOf(ValidationError);
    const everything = JSON.stringify([
      starts,
      t.finished().map((s) => [s.name, s.attributes]),
      (await t.allMetrics()).map((m) => m.dataPoints.map((p) => p.attributes)),
    ]);
    expect(starts.map((s) => s.urlTemplate)).toEqual(['/{path}', '/{path}']);
    expect(t.finished().some((s) => s.name === 'GET /{path}')).toBe(true);
    expect(everything).not.toContain('5399838383838381');
    expect(everything).not.toContain('4321');
    off();
    await t.shutdown();
  });

  it('a path that matches a typed operation is named by its template, the same method first', async () => {
    server.use(
      tokenOk,
      http.get(`${BASE}/accounts/:n/balances`, () => HttpResponse.json({ status: '00', message: 'ok', data: {} })),
      http.post(`${BASE}/transactions/enquiry`, () => HttpResponse.json({ status: '00', message: 'ok', data: {} })),
    );
    const ob = client();
    const starts: string[] = [];
    ob.on('callStart', (e) => void starts.push(e.urlTemplate));
    await ob.request({ method: 'GET', path: '/accounts/0123456789/balances' });
    await ob.request({ method: 'POST', path: '/transactions/enquiry', body: {} });
    await ob.request({ method: 'GET', path: '/accounts/0123456789/balances', urlTemplate: '/accounts/{n}/balances' });
    expect(starts).toEqual(['/accounts/{account_number}/balances', '/transactions/enquiry', '/accounts/{n}/balances']);
  });
});

describe('5. redaction costs one pass, whatever the number of remembered secrets', () => {
  const bigBody = () => {
    const items = Array.from({ length: 60_000 }, (_, i) => `"short string ${i}"`);
    return `{"status":"01","message":"bad","data":{"items":[${items.join(',')}]}}`;
  };

  async function workOfOneError(ob: OpenBanking): Promise<{ passes: number; comparisons: number }> {
    const before = { ...redactionWork };
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(400);
    return { passes: redactionWork.passes - before.passes, comparisons: redactionWork.comparisons - before.comparisons };
  }

  it('the same passes and no more comparisons with 1,000 more tokens remembered', async () => {
    const body = bigBody();
    server.use(tokenOk, http.post(`${BASE}/cards`, () => new HttpResponse(body, { status: 400, headers: { 'content-type': 'application/json' } })));
    const ob = client();
    const few = await workOfOneError(ob);
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 1000; i++) ob.forCustomer({ access_token: `remembered-access-token-${i}`, refresh_token: `remembered-refresh-token-${i}`, token_type: 'Bearer', expires_in: 3600, expires_at: now + 3600 });
    const many = await workOfOneError(ob);
    expect(few.passes).toBeGreaterThan(0);
    expect(many.passes).toBe(few.passes);
    // Candidates are compared only where a secret's first characters hash alike: none here.
    expect(many.comparisons).toBeLessThanOrEqual(few.comparisons + 10);
  });
});

describe('6. device-code polling never waits past the code’s expiry', () => {
  const device = (extra: Record<string, unknown>) => ({ device_code: 'dc_THIRD_0001', user_code: 'QX7PL', verification_uri: `${AUTH}/device`, expires_in: 300, ...extra });

  it('interval 31536000 with expires_in 300: waits at most 300 s, then rejects with expired_token without a poll', async () => {
    let polls = 0;
    server.use(
      http.post(`${AUTH}/oauth2/device/code`, () => HttpResponse.json(device({ interval: 31_536_000 }))),
      http.post(`${AUTH}/oauth2/token`, () => (polls++, HttpResponse.json({ error: 'authorization_pending' }, { status: 400 }))),
    );
    const sleeps: number[] = [];
    const ob = client({ sleep: async (ms) => void sleeps.push(ms) });
    const authorization = await ob.auth.deviceCode('accounts');
    const error = await ob.auth.pollDeviceToken(authorization).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).error).toBe('expired_token');
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThanOrEqual(300_000);
    expect(polls).toBe(0);
  });

  it('a slow_down that takes the interval past what is left ends the wait at the deadline', async () => {
    let polls = 0;
    server.use(
      http.post(`${AUTH}/oauth2/device/code`, () => HttpResponse.json(device({ interval: 100, expires_in: 150 }))),
      http.post(`${AUTH}/oauth2/token`, () => (polls++, HttpResponse.json({ error: 'slow_down' }, { status: 400 }))),
    );
    let clock = Date.now();
    const sleeps: number[] = [];
    const ob = client({ now: () => clock, sleep: async (ms) => void (sleeps.push(ms), (clock += ms)) });
    const authorization = await ob.auth.deviceCode('accounts');
    await expect(ob.auth.pollDeviceToken(authorization)).rejects.toMatchObject({ name: 'OAuthError', error: 'expired_token' });
    expect(polls).toBe(1);
    expect(sleeps).toEqual([100_000, 50_000]);
  });
});

// `subscribe` is imported so the channel module is loaded as users load it.
void subscribe;
