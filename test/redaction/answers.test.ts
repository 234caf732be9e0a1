import { subscribe, tracingChannel } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { aesGcmCipher, type ApiError, type ClientEvents, isApiError, ResponseValidationError } from '../../src/index.js';
import { echoKit, surfacesKit } from '../support/leak-clients.js';
import { BASE, http, HttpResponse, useMsw, validCard } from '../support/msw.js';

// What an answer carries back is masked whatever its shape: duplicate keys, escaped names, cut-off
// JSON and plain text; values the call itself sent, quoted anywhere the error reaches; and secrets
// nested deeper than redaction walks. A body without a secret is kept byte for byte.

const server = useMsw();

const PAN = '5399412345678901';
const CVV = '321';

describe('duplicate keys, escaped names and non-JSON text carry no card data past redaction', () => {
  const { client, tokenOk, printed } = echoKit;
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

describe('an answer that quotes what the call sent is masked everywhere it reaches', () => {
  const { SECRET, client, tokenOk, printed } = echoKit;
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

describe('redaction depth is no escape', () => {
  const { client, tokenOk, printed } = surfacesKit;
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

// `subscribe` is imported so the channel module is loaded as users load it.
void subscribe;
