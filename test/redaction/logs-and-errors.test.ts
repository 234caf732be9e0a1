import { inspect } from 'node:util';
import { delay } from 'msw';
import { describe, expect, it } from 'vitest';
import { type ClientEventName, OpenBanking, isOpenBankingError } from '../../src/index.js';
import { instrument } from '../../src/otel.js';
import { telemetry, useAsyncContext } from '../observability/support.js';
import { validCard } from '../support/cards.js';
import { capturingLogger, sweep } from '../support/leaks.js';
import { AUTH, BASE, http, HttpResponse, useMsw } from '../support/msw.js';

// Unique values that must never appear in anything the SDK prints or throws.
const S = {
  secret: 'sec_SENTINEL_7f3a9c1e',
  token: 'tok_SENTINEL_2b8d4e6f',
  refresh: 'rt_SENTINEL_5c1a7e9b',
  pin: '90817263',
  cvv: 'cvv_SENTINEL_3e5f',
  cardNumber: 'pan_SENTINEL_5399',
  cardToken: 'ctk_SENTINEL_8d2c',
};
const SENTINELS = Object.values(S);

const server = useMsw();
const { logger, lines: printed } = capturingLogger();
const thrown: unknown[] = [];
let scenarios = 0;

// Every event payload, span attribute, span event and metric attribute goes into the haystack too.
useAsyncContext();
const otel = telemetry();
const EVENTS: ClientEventName[] = ['callStart', 'request', 'response', 'retry', 'rateLimitWait', 'token', 'callEnd'];
let events = 0;

function client(overrides: Record<string, unknown> = {}) {
  const ob = plainClient(overrides);
  for (const name of EVENTS) {
    ob.on(name, (event) => {
      events++;
      printed.push(inspect(event, { depth: 50 }), JSON.stringify(event));
    });
  }
  instrument(ob, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, propagate: true });
  return ob;
}

function plainClient(overrides: Record<string, unknown> = {}) {
  return new OpenBanking({
    clientId: 'client-1',
    clientSecret: S.secret,
    baseUrl: BASE,
    authUrl: AUTH,
    logger,
    logLevel: 'debug',
    retryDelay: 0, sleep: async () => undefined,
    ...overrides,
  });
}

const body = () => validCard({ card_default_pin: S.pin });

const cardEnvelope = (data: Record<string, unknown> = {}) => ({
  status: '00',
  message: 'ok',
  data: { card_id: 'c1', card_status: 'ACTIVE', card_cvv2: S.cvv, card_number: S.cardNumber, card_default_pin: S.pin, card_token: S.cardToken, ...data },
});

const tokenOk = http.post(`${AUTH}/oauth2/token`, () =>
  HttpResponse.json({ access_token: S.token, token_type: 'Bearer', expires_in: 3600, scope: 'cards.create', refresh_token: S.refresh }),
);

async function scenario(name: string, handlers: Parameters<typeof server.use>, run: () => Promise<unknown>) {
  server.use(...handlers);
  scenarios++;
  try {
    printed.push(inspect(await run(), { depth: 10 }).replace(new RegExp(SENTINELS.join('|'), 'g'), '<returned to caller>'));
  } catch (error) {
    expect(isOpenBankingError(error), `${name}: ${String(error)}`).toBe(true);
    thrown.push(error);
  }
}

const card = (status: number, response: () => Response | Promise<Response>) => [tokenOk, http.post(`${BASE}/cards`, response)] as Parameters<typeof server.use>;

describe('no secret reaches a log line or an error', () => {
  it('happy path and every error, at debug', async () => {
    await scenario('happy', card(201, () => HttpResponse.json(cardEnvelope(), { status: 201 })), () => client().cards.create(body()));
    await scenario('happy withResponse', card(201, () => HttpResponse.json(cardEnvelope(), { status: 201 })), () => client().cards.create(body()).withResponse().then((r) => r.envelope?.status));
    for (const status of [400, 401, 403, 404, 409, 429, 500, 502, 503]) {
      await scenario(`${status}`, card(status, () => HttpResponse.json({ status: '01', message: 'refused', data: { card_default_pin: S.pin, card_cvv2: S.cvv } }, { status })), () => client().cards.create(body()));
    }
    await scenario('html 502', card(502, () => new HttpResponse(`<html>bad gateway ${'x'.repeat(10)}</html>`, { status: 502 })), () => client().cards.create(body()));
    await scenario('malformed json', card(201, () => new HttpResponse(`{"status":"00","data":{"card_id":"c1","card_cvv2":"${S.cvv}","card_number":"${S.cardNumber}"`, { status: 201 })), () => client().cards.create(body()));
    await scenario('201 without card_id', card(201, () => HttpResponse.json(cardEnvelope({ card_id: undefined }), { status: 201 })), () => client().cards.create(body()));
    await scenario('dropped', card(0, () => HttpResponse.error()), () => client().cards.create(body()));
    await scenario('timeout', card(0, async () => { await delay(200); return HttpResponse.json(cardEnvelope(), { status: 201 }); }), () => client({ timeout: 20 }).cards.create(body()));
    await scenario('aborted', card(0, async () => { await delay(200); return HttpResponse.json(cardEnvelope(), { status: 201 }); }), () => client().cards.create(body(), { signal: AbortSignal.timeout(10) }));
    await scenario('tampered cipher text', card(201, () => HttpResponse.json(cardEnvelope(), { status: 201 })), () =>
      client({ cipher: { encrypt: async (t: string) => `enc:${t}`, decrypt: async (t: string) => { throw new Error(`cannot decrypt ${t}`); } } }).cards.create(body()),
    );
    await scenario('cipher refuses to encrypt', card(201, () => HttpResponse.json(cardEnvelope(), { status: 201 })), () =>
      client({ cipher: { encrypt: async (t: string) => { throw new Error(`no key for ${t}`); }, decrypt: async (t: string) => t } }).cards.create(body()),
    );
    await scenario('invalid body', card(201, () => HttpResponse.json(cardEnvelope(), { status: 201 })), () => client().cards.create({ ...body(), card_default_pin: `${S.pin}x` }));
    await scenario('production without cipher', card(201, () => HttpResponse.json(cardEnvelope(), { status: 201 })), () => client({ environment: 'production' }).cards.create(body()));
    await scenario(
      'token endpoint refuses',
      [http.post(`${AUTH}/oauth2/token`, () => HttpResponse.json({ error: 'invalid_client', error_description: 'bad client' }, { status: 401 }))],
      () => client().cards.create(body()),
    );
    await scenario('token endpoint down', [http.post(`${AUTH}/oauth2/token`, () => HttpResponse.error())], () => client().cards.create(body()));
    await scenario(
      'refresh refused',
      [http.post(`${AUTH}/oauth/token`, () => HttpResponse.json({ error: 'invalid_grant', error_description: 'refresh token reused' }, { status: 400 }))],
      () => client().auth.refresh(S.refresh),
    );
    await scenario(
      'code exchange refused',
      [http.post(`${AUTH}/oauth/token`, () => HttpResponse.json({ error: 'invalid_grant' }, { status: 400 }))],
      () => client().auth.exchangeCode({ code: 'code_x', codeVerifier: 'v'.repeat(43), redirectUri: 'https://app.example/cb' }),
    );
    await scenario(
      'customer session, expired token, refresh refused',
      [http.post(`${AUTH}/oauth/token`, () => HttpResponse.json({ error: 'invalid_grant' }, { status: 400 }))],
      () => client().forCustomer({ access_token: S.token, token_type: 'Bearer', expires_in: 3600, expires_at: 1, refresh_token: S.refresh }).request({ method: 'GET', path: '/accounts', customer: true }),
    );
    printed.push(inspect(client(), { depth: 10 }), JSON.stringify(client()));
    try {
      new OpenBanking({ clientId: 'x', clientSecret: S.secret, baseUrl: 'ftp://nope', timeout: -1 } as never);
    } catch (error) {
      thrown.push(error);
    }

    const spans = otel.finished().map((span) => JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events.map((e) => [e.name, e.attributes]), status: span.status }));
    const metrics = (await otel.allMetrics()).flatMap((m) => m.dataPoints.map((p) => JSON.stringify([m.descriptor.name, p.attributes])));
    const leaks = sweep([...printed, ...spans, ...metrics], thrown, SENTINELS, []);
    console.log(
      `secrets: scenarios ${scenarios}, errors inspected ${thrown.length}, log lines and event payloads ${printed.length} (events ${events}), spans ${spans.length}, metric points ${metrics.length}, sentinel leaks ${leaks.length}`,
    );
    expect(leaks).toEqual([]);
    expect(thrown.length).toBeGreaterThan(20);
    expect(events).toBeGreaterThan(100);
    expect(spans.length).toBeGreaterThan(50);
    expect(metrics.length).toBeGreaterThan(5);
    await otel.shutdown();
  });
});
