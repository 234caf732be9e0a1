import { describe, expect, it } from 'vitest';
import { ResponseValidationError, ValidationError } from '../src/index.js';
import { surfacesKit } from './support/leak-clients.js';
import { BASE, http, HttpResponse, testClient, useMsw } from './support/msw.js';

// Paths stay under the base path and ids stay exact: ob.request refuses encoded dots and slashes and
// `..;` segments, a typed method refuses a dot segment or an id of 2^53 or more, all before sending,
// and a response whose number id is not a safe integer is refused instead of naming another resource.

const server = useMsw();

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

describe('request refuses `..;` segments like `..`', () => {
  const { client } = surfacesKit;
  it.each(['/a/..;/x', '/a/..%3b/x', '/a/..%3B/x', '/..;', '/a/.;/x'])('%s: ValidationError, nothing sent', async (path) => {
    const error = await client().request({ method: 'GET', path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]!.path).toBe('path');
  });
});

describe('numeric ids beyond 2^53 are never rounded', () => {
  const { client, tokenOk } = surfacesKit;
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
