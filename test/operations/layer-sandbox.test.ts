import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, OPERATION_SCOPES, PermissionDeniedError, ValidationError, type CustomerSession, type OpenBanking } from '../../src/index.js';
import { createAuthorizationRequest, parseAuthorizationCallback } from '../../src/pkce.js';
import { startSandboxServer, type SandboxClient, type SandboxServer } from '../../src/testing.js';
import { clientFor, postCard, signed, tokenFor, validCard } from '../sandbox/support.js';

const CUSTOMER_SCOPES = [
  ...OPERATION_SCOPES['customers.retrieve'],
  ...OPERATION_SCOPES['accounts.list'],
  ...OPERATION_SCOPES['accounts.balances.retrieve'],
  ...OPERATION_SCOPES['accounts.transactions.list'],
  ...OPERATION_SCOPES['accounts.holds.list'],
  ...OPERATION_SCOPES['accounts.holds.create'],
  ...OPERATION_SCOPES['accounts.holds.update'],
  ...OPERATION_SCOPES['cards.list'],
];
const JANUARY = { from: '2024-01-01', to: '2024-01-31' };
const ACCOUNT = '0123456789';

describe('customers, accounts and cards against the sandbox over real HTTP', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  let ob: OpenBanking;
  let session: CustomerSession;
  const api = () => server.requests.count({ path: /\/openapi\/v1\// });
  const tokenGrants = () => server.requests.count({ path: /\/oauth2?\/token$/ });

  beforeAll(async () => {
    server = await startSandboxServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    app = server.registerClient({ redirectUris: ['https://app.example/callback'] });
    ob = clientFor(server, app).ob;
    session = ob.forCustomer(server.issueTokens({ clientId: app.clientId, scope: CUSTOMER_SCOPES, kind: 'customer' }));
  });

  it('customers.retrieve: the customer behind the token', async () => {
    const me = await session.customers.retrieve();
    expect(me).toMatchObject({ customer_id: 'CUS-0001', first_name: 'Ada', surname: 'Obi', middle_name: null });
    expect(api()).toBe(1);
  });

  it('accounts.list and accounts.balances.retrieve', async () => {
    const { accounts } = await session.accounts.list();
    expect(accounts.map((a) => a.account_number)).toEqual(['0123456789', '0987654321']);
    const balances = await session.accounts.balances.retrieve(accounts[1]!.account_number!);
    expect(balances).toMatchObject({ account_number: '0987654321', currency: 'NGN', hold_balance: 5000 });
    expect(typeof balances.available_balance).toBe('number');
  });

  it('accounts.transactions.list walks 3 pages: every item in order, one request per page, a fresh key each', async () => {
    const first = await session.accounts.transactions.list(ACCOUNT, JANUARY);
    expect(first.summary?.pages).toBe(3);
    expect(first.transactions).toHaveLength(20);
    server.requests.clear();
    const seen: string[] = [];
    for await (const tx of session.accounts.transactions.list(ACCOUNT, JANUARY)) seen.push(String(tx.id));
    expect(seen).toHaveLength(45);
    expect(seen[0]).toBe('TXN-6789-0001');
    expect(seen.at(-1)).toBe('TXN-6789-0045');
    expect(new Set(seen).size).toBe(45);
    const calls = server.requests.list({ path: `/openapi/v1/accounts/${ACCOUNT}/transactions` });
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.idempotencyKey)).size).toBe(3);
  });

  it('an error on page 2 rejects the iteration with the typed error and sends no page 3', async () => {
    const ids: unknown[] = [];
    const error = await (async () => {
      for await (const tx of session.accounts.transactions.list(ACCOUNT, JANUARY)) {
        ids.push(tx.id);
        // Page 1 is in; page 2 is asked for only when the loop wants its 21st item.
        if (ids.length === 20) server.faults.inject({ path: `/openapi/v1/accounts/${ACCOUNT}/transactions`, times: Infinity, fault: { type: 'response', status: 403, body: { status: '03', message: 'consent withdrawn', data: {} } } });
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(ids).toHaveLength(20);
    expect(server.requests.count({ path: `/openapi/v1/accounts/${ACCOUNT}/transactions` })).toBe(2);
  });

  it('accounts.holds: list, create, update (release)', async () => {
    const before = await session.accounts.holds.list(ACCOUNT);
    expect(before.holds.map((h) => h.reference)).toEqual(['HLD000000001']);
    const placed = await session.accounts.holds.create(ACCOUNT, { reference: 'HLD-T-1', amount: 2500, narration: 'Deposit', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' });
    expect(placed.reference).toBe('HLD-T-1');
    const released = await session.accounts.holds.update(ACCOUNT, 'HLD-T-1', { status: 'INACTIVE' });
    expect(released.reference).toBe('HLD-T-1');
    const after = await session.accounts.holds.list(ACCOUNT);
    expect(after.holds).toContainEqual(expect.objectContaining({ reference: 'HLD-T-1', status: 'INACTIVE', start_hold_date: '2024-03-20', end_hold_date: '2024-04-20', amount: 2500 }));
  });

  it('retrying a hold with the same idempotency key replays it: one hold, not two', async () => {
    const body = { reference: 'HLD-T-2', amount: 10, narration: 'n', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' as const };
    await session.accounts.holds.create(ACCOUNT, body, { idempotencyKey: 'hold-key-1' });
    await session.accounts.holds.create(ACCOUNT, body, { idempotencyKey: 'hold-key-1' });
    const { holds } = await session.accounts.holds.list(ACCOUNT);
    expect(holds.filter((h) => h.reference === 'HLD-T-2')).toHaveLength(1);
  });

  it('accounts.create runs with a client token, on the client and on a session; the answer has no account number', async () => {
    const opened = await ob.accounts.create({ customer_ref: 'CUS-9', first_name: 'Chidi', dob: '1991-02-03', gender: 'M' });
    expect(opened).toMatchObject({ customer_id: 'CUS-9', account_type: 'SBA', status: 'ACTIVE' });
    expect('account_number' in opened).toBe(false);
    await session.accounts.create({ surname: 'Obi' });
    const grants = server.requests.list({ path: '/oauth2/token' });
    expect(grants).toHaveLength(1); // one client-credentials token, shared by both
  });

  it('cards on a session use the customer token; on the client, client credentials', async () => {
    await ob.cards.create(validCard());
    expect(tokenGrants()).toBe(1);
    const { cards } = await session.cards.list();
    expect(cards).toHaveLength(1);
    expect(tokenGrants()).toBe(1);
  });

  it('a bad body or path parameter is refused before anything is sent', async () => {
    const before = api() + tokenGrants();
    for (const call of [
      () => session.accounts.holds.create(ACCOUNT, { reference: 'H', amount: -1, narration: 'n', hold_start_timestamp: 'a', hold_end_timestamp: 'b', status: 'ACTIVE' }),
      () => session.accounts.transactions.list(ACCOUNT, { from: '2024-01-01' } as never),
      () => session.accounts.balances.retrieve(''),
      () => ob.accounts.create({ gender: 'X' as never }),
      () => ob.customers.retrieve(),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(ValidationError);
    }
    expect(api() + tokenGrants()).toBe(before);
  });

  it('the sandbox asks for the operation’s scope and the customer’s token itself', async () => {
    // A set that names no scope is not checked by the SDK: the sandbox refuses it.
    const { scope: _scope, ...unnamed } = server.issueTokens({ clientId: app.clientId, scope: ['accounts.list.readonly'], kind: 'customer' });
    const narrow = ob.forCustomer(unnamed);
    await expect(narrow.accounts.balances.retrieve(ACCOUNT)).rejects.toMatchObject({ status: 403, code: '03' });
    const clientToken = await tokenFor(fetch, server.authUrl, app, 'accounts.list.readonly');
    const res = await fetch(`${server.baseUrl}/accounts`, { headers: signed(clientToken, app.clientSecret, 'k-1') });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ status: '03', data: { required_token: 'customer' } });
  });

  it('an unknown account is a NotFoundError; a path parameter with / and a space arrives encoded', async () => {
    await expect(session.accounts.balances.retrieve('no/such acct')).rejects.toBeInstanceOf(NotFoundError);
    expect(server.requests.list({ path: /balances$/ })[0]!.path).toBe('/openapi/v1/accounts/no%2Fsuch%20acct/balances');
  });

  it('the sandbox validates from the spec’s tables: a missing required field is MISSING_FIELD, never INVALID_FIELD', async () => {
    const token = await tokenFor(fetch, server.authUrl, app, 'cards.create');
    const { card_status: _dropped, ...noStatus } = validCard();
    const res = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'k-2'), noStatus);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: '01', error_code: 'MISSING_FIELD', message: 'card_status is required', data: { field: 'card_status' } });
    const customer = server.issueTokens({ clientId: app.clientId, scope: ['accounts.holds.create'], kind: 'customer' });
    const hold = await fetch(`${server.baseUrl}/accounts/${ACCOUNT}/holds`, {
      method: 'POST',
      headers: { ...signed(customer.access_token, app.clientSecret, 'k-3'), 'content-type': 'application/json' },
      body: JSON.stringify({ reference: 'H', amount: 1, narration: 'n', hold_start_timestamp: 'a', hold_end_timestamp: 'b' }),
    });
    expect(await hold.json()).toEqual({ status: '01', error_code: 'MISSING_FIELD', message: 'status is required', data: { field: 'status' } });
  });

  it('a customer’s consent through the sandbox, then the session acts for them', async () => {
    const req = await createAuthorizationRequest({ authUrl: server.authUrl, clientId: app.clientId, redirectUri: 'https://app.example/callback', scope: CUSTOMER_SCOPES });
    const back = await server.consent(req.url);
    const { code } = parseAuthorizationCallback(back, { expectedState: req.state });
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: req.codeVerifier, redirectUri: 'https://app.example/callback' });
    const customer = ob.forCustomer(tokens);
    const me = await customer.customers.retrieve();
    expect(me.customer_id).toBe('CUS-0001');
  });
});
