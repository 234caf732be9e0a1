import { request as httpRequest } from 'node:http';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, OpenBanking, type ClientOptions } from '../../src/index.js';
import { createSandbox, sandboxHandlers, startSandboxServer, type SandboxControls, type SandboxServer } from '../../src/testing.js';
import { validCard } from './support.js';

/**
 * One scenario, whatever carries the bytes: register, build the client from the registration,
 * create a card through injected faults, list it, and be refused with the wrong signature.
 */
async function scenario(sandbox: SandboxControls, fetch: typeof globalThis.fetch | undefined): Promise<void> {
  const via: Partial<ClientOptions> = fetch ? { fetch } : {};
  const registration = await OpenBanking.register({
    authUrl: sandbox.authUrl,
    username: 'ada',
    password: 'correct horse',
    app_name: 'Transport test',
    redirect_url: 'https://app.example/callback',
    ...(fetch ? { fetch } : {}),
  });
  expect(registration).toMatchObject({ status: 'APPROVED', redirect_urls: ['https://app.example/callback'], auth_base_url: sandbox.authUrl, api_base_url: sandbox.baseUrl });
  expect(registration.client_id).toMatch(/^sbx_client_/);

  const ob = OpenBanking.fromRegistration(registration, { ...via, logLevel: 'off', retryDelay: 0, sleep: async () => {} });
  const first = await ob.cards.create(validCard());
  expect(first).toMatchObject({ card_status: 'ACTIVE', card_holder_name: 'Ada Obi', card_default_pin: '1234' });
  expect(first.card_cvv2).toMatch(/^\d{3}$/);

  sandbox.faults.inject({ path: '/openapi/v1/cards', method: 'POST', fault: { type: 'status', status: 503 } });
  sandbox.faults.inject({ path: '/openapi/v1/cards', method: 'POST', fault: { type: 'drop', when: 'after' } });
  const second = await ob.cards.create(validCard({ card_holder_name: 'Chidi Okeke' })).withResponse();
  expect(second.response.headers.get('idempotent-replayed')).toBe('true');

  const { cards } = await ob.cards.list();
  expect(cards.map((c) => c.card_holder_name)).toEqual(['Ada Obi', 'Chidi Okeke']);
  expect(sandbox.cards().map((c) => c.card.card_id)).toEqual([first.card_id, second.data.card_id]);
  expect(sandbox.requests.list({ path: '/openapi/v1/cards', method: 'POST' }).map((r) => r.status)).toEqual([201, 503, 'dropped', 201]);

  const wrong = OpenBanking.fromRegistration(registration, { ...via, logLevel: 'off', signatureEncoding: 'base64' });
  await expect(wrong.cards.create(validCard())).rejects.toBeInstanceOf(AuthenticationError);
  expect(sandbox.cards()).toHaveLength(2);
}

describe('the same scenario through every transport', () => {
  it('fetch handler as the client fetch', async () => {
    const sandbox = createSandbox();
    await scenario(sandbox, sandbox);
  });

  describe('HTTP server on 127.0.0.1', () => {
    let server: SandboxServer;
    beforeAll(async () => {
      server = await startSandboxServer();
    });
    afterAll(() => server.close());

    it('real sockets', async () => {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.baseUrl).toBe(`${server.url}/openapi/v1`);
      await scenario(server, undefined);
    });
  });

  describe('msw handlers', () => {
    const sandbox = createSandbox();
    const mocks = setupServer(...sandboxHandlers(sandbox));
    beforeAll(() => mocks.listen({ onUnhandledRequest: 'error' }));
    afterAll(() => mocks.close());

    it('global fetch intercepted', async () => {
      await scenario(sandbox, undefined);
    });

    it('takes msw handed over, for runtimes that cannot load it on demand', async () => {
      const msw = await import('msw');
      const own = createSandbox({ authUrl: 'https://id.handed.test', baseUrl: 'https://api.handed.test/openapi/v1' });
      mocks.use(...sandboxHandlers(own, { msw }));
      const response = await fetch('https://api.handed.test/openapi/v1/cards', { method: 'POST' });
      expect(response.status).toBe(401); // answered by the sandbox: no bearer token
      expect(own.requests.count()).toBe(1);
      mocks.resetHandlers();
    });

    it('sandboxHandlers(options) builds its own sandbox', async () => {
      const handlers = sandboxHandlers({ authUrl: 'https://id.example.test', baseUrl: 'https://api.example.test/openapi/v1' });
      expect(handlers).toHaveLength(2);
    });
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
