import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { OpenBanking, type ClientOptions } from '../../src/index.js';
import { skipRetryWaits } from './retry-waits.js';

export const BASE = 'https://api.test.example/openapi/v1';
export const AUTH = 'https://identity.test.example';
export const SECRET = 'test-secret-Ω-123';
export const CLIENT_ID = 'client-abc';

/** An msw server that fails on any request no handler expects. */
export function useMsw() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A token endpoint that counts requests and hands out numbered tokens. */
export function tokenHandler(state: { tokenRequests: Recorded[]; expiresIn?: number }) {
  return http.post(`${AUTH}/oauth2/token`, async ({ request }) => {
    const body = await request.text();
    state.tokenRequests.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
    return HttpResponse.json({
      access_token: `token-${state.tokenRequests.length}`,
      token_type: 'Bearer',
      expires_in: state.expiresIn ?? 3600,
      scope: new URLSearchParams(body).get('scope') ?? '',
    });
  });
}

/** A test client pointed at the msw hosts, recording every wait (retries' and the `sleep` option's) and never waiting. */
export function testClient(overrides: Partial<ClientOptions> = {}) {
  const sleeps: number[] = [];
  const ob = new OpenBanking({
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    baseUrl: BASE,
    authUrl: AUTH,
    logLevel: 'off',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  skipRetryWaits(ob, sleeps);
  return { ob, sleeps };
}

export { validCard } from './cards.js';

export const createdCard = (extra: Record<string, unknown> = {}) => ({
  status: '00',
  message: 'Card created successfully',
  data: {
    card_id: 'card_1',
    card_status: 'ACTIVE',
    customer_id: 'cus_1',
    account_number: '0123456789',
    card_number: '4321',
    card_cvv2: '123',
    card_default_pin: '1234',
    card_token: 'tok_1',
    card_expiry: { month: '09', year: '2029' },
    ...extra,
  },
});

/** Records a form request (method, URL, headers, body) into `into`; resolves to its form fields. */
export const record = async (request: Request, into: Recorded[]) => {
  const body = await request.text();
  into.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
  return new URLSearchParams(body);
};

/** The `n`-th token set an identity host hands out (access and refresh token numbered), with `extra` members. */
export const tokenSet = (n: number, extra: Record<string, unknown> = {}) => ({
  access_token: `access-${n}`,
  token_type: 'Bearer',
  expires_in: 3600,
  refresh_token: `refresh-${n}`,
  scope: 'accounts transactions',
  ...extra,
});

export { http, HttpResponse };
