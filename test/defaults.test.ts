import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryTokenStore, OpenBanking, TimeoutError, type TokenSet, ValidationError } from '../src/index.js';
import { AUTH, BASE, createdCard, http, HttpResponse, type Recorded, testClient, tokenHandler, useMsw, validCard } from './support/msw.js';

// The defaults and guards DESIGN.md fixes, each observed from outside: URLs on the wire, the
// store's keys, the delays handed to the sleep, when an attempt is given up.

const server = useMsw();

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const urlOf = (input: RequestInfo | URL) => (input instanceof Request ? input.url : String(input));

describe('environment defaults', () => {
  it("sandbox: the token from Sparkle's sandbox identity host, the call to its sandbox gateway", async () => {
    const urls: string[] = [];
    const fetch = async (input: RequestInfo | URL) => {
      const url = urlOf(input);
      urls.push(url);
      if (url.endsWith('/oauth2/token')) return json({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
      return json(createdCard(), 201);
    };
    const ob = new OpenBanking({ clientId: 'c', clientSecret: 's', environment: 'sandbox', fetch, logLevel: 'off' });
    await ob.cards.create(validCard());
    expect(urls).toEqual(['https://identity-sandbox.sparkle.fyi/oauth2/token', 'https://api-sandbox.sparkle.fyi/openapi/v1/cards']);

    const byDefault = new OpenBanking({ clientId: 'c', clientSecret: 's', fetch, logLevel: 'off' }); // sandbox is the default environment
    urls.length = 0;
    await byDefault.cards.create(validCard());
    expect(urls).toEqual(['https://identity-sandbox.sparkle.fyi/oauth2/token', 'https://api-sandbox.sparkle.fyi/openapi/v1/cards']);
  });

  it('production: baseUrl and authUrl must be given', () => {
    const error = (() => {
      try {
        new OpenBanking({ clientId: 'c', clientSecret: 's', environment: 'production' });
      } catch (e) {
        return e;
      }
    })() as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path).sort()).toEqual(['authUrl', 'baseUrl']);
  });
});

describe('token store keys', () => {
  it('are openbanking-ng:<clientId>:<sorted scopes>', async () => {
    const keys: string[] = [];
    const inner = new MemoryTokenStore();
    const tokenStore = {
      get: (key: string) => (keys.push(key), inner.get(key)),
      set: (key: string, value: TokenSet, ttl: number) => inner.set(key, value, ttl),
      delete: (key: string) => inner.delete(key),
    };
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.get(`${BASE}/accounts`, () => HttpResponse.json({ status: '00', message: 'ok', data: [] })),
    );
    const { ob } = testClient({ clientId: 'app-7', tokenStore });
    await ob.request({ method: 'GET', path: '/accounts', scope: ['cards.list', 'accounts', 'cards.create'] });
    expect(new Set(keys)).toEqual(new Set(['openbanking-ng:app-7:accounts cards.create cards.list']));
  });
});

describe('retry timing', () => {
  it('backoff doubles from 500 ms, is capped at 8 s, and jitter takes off at most 25 %', async () => {
    const seen: Recorded[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.post(`${BASE}/cards`, () => {
        seen.push({ method: 'POST', url: '', headers: {}, body: '' });
        return HttpResponse.json({ status: '05', message: 'down', data: {} }, { status: 503 });
      }),
    );
    const { ob, sleeps } = testClient({ maxRetries: 6 });
    await expect(ob.cards.create(validCard())).rejects.toMatchObject({ name: 'InternalServerError', status: 503 });
    expect(seen).toHaveLength(7);
    const bases = [500, 1_000, 2_000, 4_000, 8_000, 8_000];
    expect(sleeps).toHaveLength(bases.length);
    sleeps.forEach((ms, n) => {
      expect(ms).toBeLessThanOrEqual(bases[n]!);
      expect(ms).toBeGreaterThanOrEqual(bases[n]! * 0.75);
    });
  });
});

describe('attempt timeout', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives an attempt 30 000 ms by default, then reports TimeoutError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let attempts = 0;
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      if (urlOf(input).endsWith('/oauth2/token')) return json({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
      attempts++;
      const signal = input instanceof Request ? input.signal : init?.signal;
      return new Promise<Response>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    };
    const ob = new OpenBanking({ clientId: 'c', clientSecret: 's', baseUrl: BASE, authUrl: AUTH, fetch, maxRetries: 0, logLevel: 'off' });
    let outcome: unknown;
    const call = ob.cards.create(validCard()).then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error),
    );
    for (let i = 0; i < 20 && attempts === 0; i++) await vi.advanceTimersByTimeAsync(0);
    expect(attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await call;
    expect(outcome).toBeInstanceOf(TimeoutError);
    expect((outcome as TimeoutError).message).toContain('30000 ms');
  });
});

describe('a timeout with a fraction of a millisecond', () => {
  it('reaches the token endpoint, the API and the registration endpoint like a whole one', async () => {
    const { createSandbox } = await import('../src/testing.js');
    const sandbox = createSandbox();
    const registration = await OpenBanking.register({ authUrl: sandbox.authUrl, fetch: sandbox, timeout: 2_500.5, username: 'fraction', password: 'pw', app_name: 'Fraction', redirect_url: 'https://app.example/cb' });
    const ob = OpenBanking.fromRegistration(registration, { baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, timeout: 2_500.5, logLevel: 'off' });
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_status: 'ACTIVE' });
    await expect(ob.auth.clientCredentials(['cards.list'])).resolves.toMatchObject({ token_type: 'Bearer' });
  });
});

describe('browser guard', () => {
  const g = globalThis as { window?: unknown };
  afterEach(() => {
    delete g.window;
  });

  it('refuses a client secret in a browser unless dangerouslyAllowBrowser is set', () => {
    g.window = { document: {} };
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's' })).toThrow(ValidationError);
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's' })).toThrow(/dangerouslyAllowBrowser/);
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's', dangerouslyAllowBrowser: true })).not.toThrow();
  });

  it('"in a browser" means a window with a document: a bare window global is not one', () => {
    g.window = {};
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's' })).not.toThrow();
  });
});

describe('per-call options on a method without parameters', () => {
  it('cards.list takes them first, or second like every other method', async () => {
    const seen: string[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.get(`${BASE}/cards`, ({ request }) => {
        seen.push(request.headers.get('connection-id') ?? '');
        return HttpResponse.json({ status: '00', message: 'ok', data: { cards: [] } });
      }),
    );
    const { ob } = testClient();
    await ob.cards.list({ connectionId: 'first' });
    await ob.cards.list(undefined, { connectionId: 'second' });
    await ob.cards.list({}, { connectionId: 'third' });
    expect(seen).toEqual(['first', 'second', 'third']);
    const error = await ob.cards.list({ connectionId: 'x' } as never, { connectionId: 'y' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(3);
  });
});

describe('the fetch option', () => {
  it('carries every request of the client, so a wrapper (proxy, tracing) sees them all and the global fetch none', async () => {
    const { createSandbox } = await import('../src/testing.js');
    const { parseAuthorizationCallback } = await import('../src/pkce.js');
    const sandbox = createSandbox();
    const redirectUri = 'https://app.example/callback';
    const app = sandbox.registerClient({ redirectUris: [redirectUri] });
    const seen: string[] = [];
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return sandbox(request);
    };
    const original = globalThis.fetch;
    const used: string[] = [];
    globalThis.fetch = (input: RequestInfo | URL) => {
      used.push(urlOf(input));
      return Promise.reject(new TypeError('the global fetch was used'));
    };
    try {
      const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, redirectUri, fetch, logLevel: 'off', retryDelay: 0, sleep: async () => {} });
      await ob.cards.create(validCard());
      const request = await ob.auth.authorizationUrl({ scope: ['cards.list'] });
      globalThis.fetch = original; // the customer's browser, not the client
      const callback = await sandbox.consent(request.url);
      globalThis.fetch = (input: RequestInfo | URL) => (used.push(urlOf(input)), Promise.reject(new TypeError('the global fetch was used')));
      const { code } = parseAuthorizationCallback(callback, { expectedState: request.state });
      const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier });
      await ob.auth.refresh(tokens.refresh_token);
      await ob.auth.clientCredentials(['cards.list']);
      const device = await ob.auth.deviceCode(['accounts']);
      sandbox.approveDeviceCode(device.user_code);
      await ob.auth.pollDeviceToken(device);
    } finally {
      globalThis.fetch = original;
    }
    expect(used).toEqual([]);
    expect(seen).toEqual([
      'POST /oauth2/token',
      `POST ${new URL(sandbox.baseUrl).pathname}/cards`,
      'POST /oauth/token',
      'POST /oauth/token',
      'POST /oauth2/token',
      'POST /oauth2/device/code',
      'POST /oauth2/token', // the device-code grant, polled at the client-credentials endpoint as the provider's integrators do
    ]);
  });
});

describe('token refresh margin', () => {
  // A cached token is used while more than min(30 s, 10 % of its lifetime), and at least 1 s, remains.
  for (const [lifetime, margin] of [
    [3_600, 30],
    [100, 10],
    [5, 1],
  ] as const) {
    it(`a ${lifetime} s token is used until ${margin} s before it expires`, async () => {
      const state = { tokenRequests: [] as Recorded[], expiresIn: lifetime };
      server.use(tokenHandler(state), http.post(`${BASE}/cards`, () => HttpResponse.json(createdCard(), { status: 201 })));
      let clock = Date.parse('2030-01-01T00:00:00Z');
      const { ob } = testClient({ now: () => clock });
      await ob.cards.create(validCard());
      expect(state.tokenRequests).toHaveLength(1);
      const expiresAt = clock + lifetime * 1000;

      clock = expiresAt - (margin + 0.5) * 1000; // just outside the margin: the cached token
      await ob.cards.create(validCard());
      expect(state.tokenRequests).toHaveLength(1);

      clock = expiresAt - margin * 1000; // at the margin: a new token
      await ob.cards.create(validCard());
      expect(state.tokenRequests).toHaveLength(2);
    });
  }
});

describe('package.json', () => {
  it('has the fields the contract fixes', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<string, any>;
    expect(pkg.name).toBe('openbanking-ng');
    expect(pkg.license).toBe('MIT');
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.engines.node).toBe('>=20.19.0');
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['ky', 'oauth4webapi', 'uuid', 'zod']);
    // msw for /testing; the Redis clients for /redis, which imports neither: the user passes theirs;
    // @opentelemetry/api for /otel (^1.9.0, a range users can meet); the MCP server SDK for /mcp.
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(['@modelcontextprotocol/server', '@opentelemetry/api', 'ioredis', 'msw', 'redis']);
    expect(pkg.peerDependencies['@opentelemetry/api']).toBe('^1.9.0');
    expect(pkg.peerDependencies['@modelcontextprotocol/server']).toMatch(/^\^2\./);
    for (const peer of Object.keys(pkg.peerDependencies)) expect(pkg.peerDependenciesMeta[peer].optional, peer).toBe(true);
    // The MCP SDKs the tests drive the server with are pinned exactly, as dev tools are.
    for (const dev of ['@modelcontextprotocol/server', '@modelcontextprotocol/client', '@modelcontextprotocol/sdk']) expect(pkg.devDependencies[dev], dev).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.bin).toEqual({ 'openbanking-ng-sandbox': 'dist/bin/openbanking-ng-sandbox.js', 'openbanking-ng-mcp': 'dist/bin/openbanking-ng-mcp.js' });
    for (const entry of ['.', './pkce', './testing', './node', './redis', './otel', './mcp']) {
      expect(Object.keys(pkg.exports[entry]).sort(), entry).toEqual(['import', 'require']);
      for (const kind of ['import', 'require']) expect(Object.keys(pkg.exports[entry][kind]), `${entry} ${kind}`).toEqual(['types', 'default']);
    }
  });
});

describe('plain http only for localhost, 127.0.0.0/8 and [::1]', () => {
  it('refuses *.localhost', () => {
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's', baseUrl: 'http://api.localhost:8080/v1', authUrl: 'http://127.0.0.1:1' })).toThrow(/baseUrl: must use https/);
    expect(() => new OpenBanking({ clientId: 'c', clientSecret: 's', baseUrl: 'http://[::1]:8080/v1', authUrl: 'http://localhost:1' })).not.toThrow();
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
