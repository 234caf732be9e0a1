import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ApiError, ConnectionError, OAuthError, OpenBanking, ValidationError, type Logger } from '../src/index.js';
import { createAuthorizationRequest, parseAuthorizationCallback } from '../src/pkce.js';
import { startSandboxServer } from '../src/testing.js';
import { AUTH, BASE, http, HttpResponse, type Recorded, testClient, tokenHandler, useMsw } from './support/msw.js';

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

describe('ob.request: secretFields and the production refusal', () => {
  it('encrypts the named fields (and card_default_pin by default) with the cipher', async () => {
    const bodies: string[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.post(`${BASE}/cards/pin`, async ({ request }) => {
        bodies.push(await request.text());
        return HttpResponse.json({ status: '00', message: 'ok', data: {} });
      }),
    );
    const cipher = { encrypt: async (t: string) => `enc(${t})`, decrypt: async (t: string) => t };
    const { ob } = testClient({ cipher });
    await ob.request({ method: 'POST', path: '/cards/pin', body: { card_default_pin: '1234', note: 'n' } });
    await ob.request({ method: 'POST', path: '/cards/pin', body: { new_pin: '5678', note: 'n' }, secretFields: ['new_pin'] });
    expect(JSON.parse(bodies[0]!)).toEqual({ card_default_pin: 'enc(1234)', note: 'n' });
    expect(JSON.parse(bodies[1]!)).toEqual({ new_pin: 'enc(5678)', note: 'n' });
  });

  it('refuses to send a secret field in production without a cipher, before any request', async () => {
    const { ob } = testClient({ environment: 'production' });
    // No handler: msw would fail the test on any request.
    await expect(ob.request({ method: 'POST', path: '/cards/pin', body: { new_pin: '5678' }, secretFields: ['new_pin'] })).rejects.toThrow(/Refusing to send new_pin in production/);
    await expect(ob.request({ method: 'POST', path: '/cards', body: { card_default_pin: '1234' } })).rejects.toThrow(/Refusing to send card_default_pin/);
    await expect(ob.request({ method: 'POST', path: '/x', body: {}, secretFields: 'pin' as never })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('path checks', () => {
  const { ob } = testClient();
  for (const path of ['/accounts/%2e%2e/admin', '/accounts/%2E./admin', '/accounts\\..\\admin', '/a/%2fb', '/..%2fadmin', '/accounts/.%2e']) {
    it(`refuses ${path} before sending`, async () => {
      await expect(ob.request({ method: 'GET', path })).rejects.toBeInstanceOf(ValidationError);
    });
  }
  it('refuses a dot segment as a path parameter of a typed operation', async () => {
    const session = ob.forCustomer({ access_token: 'a', token_type: 'Bearer', expires_in: 3600 });
    await expect(session.accounts.balances.retrieve('..')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('plain http only for localhost, 127.0.0.0/8 and [::1]', () => {
  it('refuses *.localhost', () => {
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's', baseUrl: 'http://api.localhost:8080/v1', authUrl: 'http://127.0.0.1:1' })).toThrow(/baseUrl: must use https/);
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's', baseUrl: 'http://[::1]:8080/v1', authUrl: 'http://localhost:1' })).not.toThrow();
  });
});

describe('grant errors keep no raw cause', () => {
  it('a custom fetch error carrying the form body (client_secret) is scrubbed', async () => {
    const leaky = async (_input: unknown, init?: RequestInit) => {
      const error = new TypeError('fetch failed') as TypeError & { request?: unknown };
      error.request = { body: String(init?.body) };
      throw error;
    };
    const { ob } = testClient({ fetch: leaky as typeof fetch });
    const error = (await ob.auth.clientCredentials(['cards.create']).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(JSON.stringify((error as { cause?: unknown }).cause)).not.toContain('client_secret');
    expect(Object.keys((error as { cause?: object }).cause ?? {})).not.toContain('request');
  });
});

describe('device polling', () => {
  it('floors the interval at 1 s whatever the server says', async () => {
    const sleeps: number[] = [];
    let polls = 0;
    server.use(
      http.post(`${AUTH}/oauth2/token`, () => {
        polls++;
        return polls < 3 ? HttpResponse.json({ error: 'authorization_pending' }, { status: 400 }) : HttpResponse.json({ access_token: 'a', token_type: 'Bearer', expires_in: 60 });
      }),
    );
    const ob = new OpenBanking({ clientId: 'c', clientSecret: 's', baseUrl: BASE, authUrl: AUTH, logLevel: 'off', sleep: async (ms) => void sleeps.push(ms) });
    await ob.auth.pollDeviceToken({ device_code: 'd', user_code: 'u', verification_uri: 'https://v', expires_in: 600, interval: 0 });
    expect(sleeps).toEqual([1000, 1000, 1000]);
  });
});

describe('callback checks (RFC 9207, state length)', () => {
  const cb = (query: string) => `https://app.example/cb?${query}`;
  it('refuses a callback from another issuer, accepts one without iss', () => {
    const expected = { expectedState: 's'.repeat(20), expectedIssuer: 'https://identity.example' };
    expect(() => parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}&iss=https%3A%2F%2Fevil.example`), expected)).toThrow(OAuthError);
    try {
      parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}&iss=https%3A%2F%2Fevil.example`), expected);
    } catch (error) {
      expect((error as OAuthError).error).toBe('issuer_mismatch');
    }
    expect(parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}&iss=https%3A%2F%2Fidentity.example`), expected).code).toBe('c');
    expect(parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}`), expected).code).toBe('c');
  });
  it('an error callback without state reports state_mismatch', () => {
    expect(() => parseAuthorizationCallback(cb('error=access_denied'), { expectedState: 's'.repeat(20) })).toThrow(/state_mismatch/);
  });
  it('a caller-given state shorter than 16 characters is refused', async () => {
    const base = { authUrl: 'https://identity.example', clientId: 'c', redirectUri: 'https://app.example/cb', scope: ['accounts'] as never };
    await expect(createAuthorizationRequest({ ...base, state: 'short-state' })).rejects.toBeInstanceOf(ValidationError);
    await expect(createAuthorizationRequest({ ...base, state: '0123456789abcdef' })).resolves.toBeDefined();
  });
});

describe('maxResponseBytes', () => {
  it('is an option, validated in the constructor', () => {
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's', maxResponseBytes: 1024 })).not.toThrow();
    for (const bad of [0, -1, 1.5, '10', Number.NaN]) {
      expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's', maxResponseBytes: bad as number })).toThrow(/maxResponseBytes/);
    }
  });
});

describe('the sandbox server refuses a foreign Host (DNS rebinding)', () => {
  it('answers 421 to Host: evil.example, and serves its own names', async () => {
    const sandbox = await startSandboxServer();
    const get = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: sandbox.port, path: '/openapi/v1/cards', method: 'GET', headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await get('evil.example')).toBe(421);
      expect(await get(`evil.example:${sandbox.port}`)).toBe(421);
      expect(await get(`127.0.0.1:${sandbox.port}`)).toBe(401); // served: no token
      expect(await get(`localhost:${sandbox.port}`)).toBe(401);
    } finally {
      await sandbox.close();
    }
  });
});

export type { Recorded };
