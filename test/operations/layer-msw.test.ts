import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEADER_NAMES, OPERATION_SCOPES, OpenBanking, ValidationError, type CustomerSession } from '../../src/index.js';
import { AUTH, BASE, CLIENT_ID, http, HttpResponse, type Recorded, SECRET, testClient, tokenHandler, useMsw, validCard } from '../support/msw.js';

const server = useMsw();
const sha = (input: string) => createHash('sha256').update(input, 'utf8').digest('hex');
const CUSTOMER_TOKEN = 'customer-access-token';
const customerTokens = () => ({ access_token: CUSTOMER_TOKEN, token_type: 'Bearer', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600, refresh_token: 'r1' });

/** Every API request recorded; each answered with `data` from `answer(path)`. */
function gateway(seen: Recorded[], answer: (url: URL, method: string) => unknown = () => ({})) {
  return http.all(`${BASE}/*`, async ({ request }) => {
    seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
    const url = new URL(request.url);
    return HttpResponse.json({ status: '00', message: 'ok', data: answer(url, request.method) });
  });
}

function setup() {
  const state = { tokenRequests: [] as Recorded[] };
  const seen: Recorded[] = [];
  const { ob } = testClient({ connectionId: 'bank-1' });
  const session: CustomerSession = ob.forCustomer(customerTokens());
  return { state, seen, ob, session };
}

const ACCOUNT = 'acc/0 1'; // a "/" and a space: both must arrive encoded
const ENCODED = 'acc%2F0%201';

// Each row: the call, the method and path that must arrive, the token kind that must be used.
const cases: Array<{ name: string; call: (ob: OpenBanking, s: CustomerSession) => Promise<unknown>; method: string; path: string; query?: string; token: 'client' | 'customer'; body?: unknown }> = [
  { name: 'customers.retrieve', call: (_, s) => s.customers.retrieve(), method: 'GET', path: '/customers', token: 'customer' },
  { name: 'accounts.create', call: (ob) => ob.accounts.create({ first_name: 'Ada', dob: '1990-05-01' }), method: 'POST', path: '/accounts', token: 'client', body: { first_name: 'Ada', dob: '1990-05-01' } },
  { name: 'accounts.create (session)', call: (_, s) => s.accounts.create({ surname: 'Obi' }), method: 'POST', path: '/accounts', token: 'client', body: { surname: 'Obi' } },
  { name: 'accounts.list', call: (_, s) => s.accounts.list(), method: 'GET', path: '/accounts', token: 'customer' },
  { name: 'accounts.balances.retrieve', call: (_, s) => s.accounts.balances.retrieve(ACCOUNT), method: 'GET', path: `/accounts/${ENCODED}/balances`, token: 'customer' },
  { name: 'accounts.transactions.list', call: (_, s) => s.accounts.transactions.list(ACCOUNT, { from: '2024-01-01', to: '2024-01-31' }), method: 'GET', path: `/accounts/${ENCODED}/transactions`, query: '?from=2024-01-01&to=2024-01-31', token: 'customer' },
  { name: 'accounts.holds.list', call: (_, s) => s.accounts.holds.list(ACCOUNT), method: 'GET', path: `/accounts/${ENCODED}/holds`, token: 'customer' },
  {
    name: 'accounts.holds.create',
    call: (_, s) => s.accounts.holds.create(ACCOUNT, { reference: 'H1', amount: 10, narration: 'n', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' }),
    method: 'POST',
    path: `/accounts/${ENCODED}/holds`,
    token: 'customer',
    body: { reference: 'H1', amount: 10, narration: 'n', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' },
  },
  { name: 'accounts.holds.update', call: (_, s) => s.accounts.holds.update(12345, 'H 1/x', { status: 'INACTIVE' }), method: 'PATCH', path: '/accounts/12345/holds/H%201%2Fx', token: 'customer', body: { status: 'INACTIVE' } },
  { name: 'cards.list (client)', call: (ob) => ob.cards.list(), method: 'GET', path: '/cards', token: 'client' },
  { name: 'cards.list (session)', call: (_, s) => s.cards.list(), method: 'GET', path: '/cards', token: 'customer' },
];

const answers = (url: URL): unknown => {
  if (url.pathname.endsWith('/transactions')) return { summary: { pages: 1 }, transactions: [] };
  if (url.pathname.endsWith('/holds') || url.pathname.includes('/holds/')) return { holds: [], reference: 'H1' };
  if (url.pathname.endsWith('/accounts')) return { accounts: [] };
  if (url.pathname.endsWith('/cards')) return { cards: [] };
  return {};
};

describe('every operation of customers, accounts and cards on the wire', () => {
  for (const c of cases) {
    it(`${c.name}: ${c.method} ${c.path}, the right token, key and signature${c.method === 'GET' ? ' on a GET too' : ''}`, async () => {
      const { state, seen, ob, session } = setup();
      server.use(tokenHandler(state), gateway(seen, answers));
      await c.call(ob, session);
      expect(seen).toHaveLength(1);
      const sent = seen[0]!;
      expect(sent.method).toBe(c.method);
      expect(sent.url).toBe(`${BASE}${c.path}${c.query ?? ''}`);
      const h = sent.headers;
      expect(h.authorization).toBe(c.token === 'customer' ? `Bearer ${CUSTOMER_TOKEN}` : 'Bearer token-1');
      expect(state.tokenRequests).toHaveLength(c.token === 'client' ? 1 : 0);
      expect(h['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
      expect(h.signature).toBe(sha(`${SECRET};${h['idempotency-key']}`));
      expect(h['connection-id']).toBe('bank-1');
      expect(h['content-type']).toBe('application/json');
      if (c.body === undefined) expect(sent.body).toBe('');
      else expect(JSON.parse(sent.body)).toEqual(c.body);
    });
  }

  it('asks the identity host for each operation’s scope (client credentials)', async () => {
    const { state, seen, ob } = setup();
    server.use(tokenHandler(state), gateway(seen, answers));
    await ob.accounts.create({});
    await ob.cards.list();
    expect(state.tokenRequests.map((r) => new URLSearchParams(r.body).get('scope'))).toEqual(['accounts.create', 'cards.list']);
    expect(new URLSearchParams(state.tokenRequests[0]!.body).get('client_id')).toBe(CLIENT_ID);
  });

  it('operationScopes overrides a scope, and [] asks for none', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), gateway(seen, answers));
    const { ob } = testClient({ operationScopes: { 'accounts.create': [], 'cards.list': ['cards.list', 'cards.update'] } });
    await ob.accounts.create({});
    await ob.cards.list();
    const scopes = state.tokenRequests.map((r) => new URLSearchParams(r.body).get('scope'));
    expect(scopes[0] ?? null).toBeNull();
    expect(scopes[1]).toBe('cards.list cards.update');
  });

  it('OPERATION_SCOPES lists every typed operation with its default scope', () => {
    expect(OPERATION_SCOPES['customers.retrieve']).toEqual(['customers.readonly']);
    expect(OPERATION_SCOPES['accounts.transactions.list']).toEqual(['accounts.transactions.readonly']);
    expect(OPERATION_SCOPES['cards.create']).toEqual(['cards.create']);
    expect(Object.isFrozen(OPERATION_SCOPES)).toBe(true);
  });

  it("OPERATION_SCOPES's lists are frozen too: a push onto one throws and changes no client's token request", async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), gateway(seen, answers));
    expect(() => (OPERATION_SCOPES['cards.list'] as string[]).push('cards.create')).toThrow(TypeError);
    await testClient().ob.cards.list();
    expect(new URLSearchParams(state.tokenRequests[0]!.body).get('scope')).toBe('cards.list');
  });

  it('rejects bad operationScopes and endpoints in the constructor', () => {
    const bad = () => new OpenBanking({ clientId: 'a', clientSecret: 'b', operationScopes: { 'nope.list': [], 'cards.list': ['not-a-scope'], 'cards.create': 'cards.create' } as never });
    expect(bad).toThrow(ValidationError);
    try {
      bad();
    } catch (error) {
      expect((error as ValidationError).issues.map((i) => [i.path, i.code])).toEqual([
        ['operationScopes.nope.list', 'unrecognized_keys'],
        ['operationScopes.cards.list', 'invalid_value'],
        ['operationScopes.cards.create', 'invalid_type'],
      ]);
    }
    expect(() => new OpenBanking({ clientId: 'a', clientSecret: 'b', endpoints: { transfer: 'transactions/transfer' } })).toThrow(/endpoints\.transfer/);
  });
});

describe('customer-token operations on the client', () => {
  for (const [name, call] of [
    ['customers.retrieve', (ob: OpenBanking) => ob.customers.retrieve()],
    ['accounts.list', (ob: OpenBanking) => ob.accounts.list()],
    ['accounts.balances.retrieve', (ob: OpenBanking) => ob.accounts.balances.retrieve('0123456789')],
    ['accounts.transactions.list', (ob: OpenBanking) => ob.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' })],
    ['accounts.holds.list', (ob: OpenBanking) => ob.accounts.holds.list('0123456789')],
    ['accounts.holds.update', (ob: OpenBanking) => ob.accounts.holds.update('0123456789', 'H1', { status: 'INACTIVE' })],
  ] as const) {
    it(`${name} rejects with ValidationError customer_token_required and sends nothing`, async () => {
      const { state, seen, ob } = setup();
      server.use(tokenHandler(state), gateway(seen, answers));
      const error = (await (call(ob) as Promise<unknown>).catch((e: unknown) => e)) as ValidationError;
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.issues).toEqual([expect.objectContaining({ path: '', code: 'customer_token_required' })]);
      expect(error.message).toContain(name);
      expect(seen).toHaveLength(0);
      expect(state.tokenRequests).toHaveLength(0);
    });
  }
});

describe('path parameters and bodies are checked before anything is sent', () => {
  it.each([
    ['an empty account number', (s: CustomerSession) => s.accounts.balances.retrieve(''), 'account_number', 'too_small'],
    ['a dot segment as account number', (s: CustomerSession) => s.accounts.balances.retrieve('..'), 'account_number', 'invalid_format'],
    ['a number id of 2^53', (s: CustomerSession) => s.accounts.holds.list(2 ** 53), 'account_number', 'too_big'],
    ['an object as account number', (s: CustomerSession) => s.accounts.holds.list({} as never), 'account_number', 'invalid_type'],
    ['NaN as account number', (s: CustomerSession) => s.accounts.holds.list(Number.NaN), 'account_number', 'invalid_type'],
    ['a missing hold reference', (s: CustomerSession) => s.accounts.holds.update('0123456789', undefined as never, { status: 'INACTIVE' }), 'hold_reference', 'missing'],
    ['a transaction range without `to`', (s: CustomerSession) => s.accounts.transactions.list('0123456789', { from: '2024-01-01' } as never), 'query.to', 'missing'],
    ['a transaction date in the wrong format', (s: CustomerSession) => s.accounts.transactions.list('0123456789', { from: '01/01/2024', to: '2024-01-31' }), 'query.from', 'invalid_format'],
    ['page 0', (s: CustomerSession) => s.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31', page: 0 }), 'query.page', 'too_small'],
    ['page 1.5', (s: CustomerSession) => s.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31', page: 1.5 }), 'query.page', 'invalid_type'],
    ['page as a string', (s: CustomerSession) => s.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31', page: '2' as never }), 'query.page', 'invalid_type'],
    ['a hold of amount 0', (s: CustomerSession) => s.accounts.holds.create('0123456789', { reference: 'H', amount: 0, narration: 'n', hold_start_timestamp: 'a', hold_end_timestamp: 'b', status: 'ACTIVE' }), 'amount', 'too_small'],
    ['a hold without an amount', (s: CustomerSession) => s.accounts.holds.create('0123456789', { reference: 'H', narration: 'n', hold_start_timestamp: 'a', hold_end_timestamp: 'b', status: 'ACTIVE' } as never), 'amount', 'missing'],
    ['a hold status outside the enum', (s: CustomerSession) => s.accounts.holds.update('0123456789', 'H1', { status: 'GONE' as never }), 'status', 'invalid_value'],
    ['an unknown field when opening an account', (s: CustomerSession) => s.accounts.create({ nickname: 'x' } as never), 'nickname', 'unrecognized_keys'],
    ['parameters where none are taken', (s: CustomerSession) => s.accounts.list({ x: 1 } as never, {}), '', 'unrecognized_keys'],
  ])('%s → ValidationError, 0 requests', async (_name, call, path, code) => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), gateway(seen, answers));
    const error = (await call(session).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toContainEqual(expect.objectContaining({ path, code }));
    expect(seen).toHaveLength(0);
    expect(state.tokenRequests).toHaveLength(0);
  });
});

describe('bounds and types checked by zod checks', () => {
  it('say what is wrong in words, with the code of the bound', async () => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), gateway(seen, answers));
    const issues = async (call: Promise<unknown>) => ((await call.catch((e: unknown) => e)) as ValidationError).issues;
    const hold = { reference: 'H', narration: 'n', hold_start_timestamp: 'a', hold_end_timestamp: 'b', status: 'ACTIVE' } as const;
    expect(await issues(session.accounts.holds.create('0123456789', { ...hold, amount: -5 }))).toEqual([{ path: 'amount', message: 'must be greater than 0', code: 'too_small' }]);
    expect(await issues(session.accounts.holds.create('0123456789', { ...hold, amount: '5' as never }))).toEqual([{ path: 'amount', message: 'must be a number, got string', code: 'invalid_type' }]);
    const range = { from: '2024-01-01', to: '2024-01-31' };
    expect(await issues(session.accounts.transactions.list('0123456789', { ...range, page: 0.5 }))).toEqual([
      { path: 'query.page', message: 'must be at least 1', code: 'too_small' },
      { path: 'query.page', message: 'must be a whole number', code: 'invalid_type' },
    ]);
    // A value of the wrong type, or none, is reported once: the bounds are not checked on it.
    expect(await issues(session.accounts.transactions.list('0123456789', { ...range, page: '0' as never }))).toEqual([
      { path: 'query.page', message: 'must be a number, got string', code: 'invalid_type' },
    ]);
    expect(await issues(session.accounts.holds.create('0123456789', { ...hold, amount: '-5' as never }))).toEqual([{ path: 'amount', message: 'must be a number, got string', code: 'invalid_type' }]);
    expect(await issues(session.accounts.holds.create('0123456789', hold as never))).toEqual([{ path: 'amount', message: 'is required', code: 'missing' }]);
    expect(await issues(session.accounts.holds.create('0123456789', { ...hold, amount: 5, reference: 12 as never, narration: undefined as never }))).toEqual([
      { path: 'reference', message: 'must be a string, got number', code: 'invalid_type' },
      { path: 'narration', message: 'is required', code: 'missing' },
    ]);
    expect(seen).toHaveLength(0);
  });

  it('give string lengths, patterns and enums the codes and messages of zod\'s own checks', async () => {
    const { state, seen, ob } = setup();
    server.use(tokenHandler(state), gateway(seen, answers));
    const card = validCard();
    const issues = async (body: unknown) => ((await ob.cards.create(body as never).catch((e: unknown) => e)) as ValidationError).issues;
    expect(await issues({ ...card, card_holder_name: '' })).toEqual([{ path: 'card_holder_name', message: 'must have at least 1 character(s)', code: 'too_small' }]);
    expect(await issues({ ...card, card_holder_name: 'x'.repeat(256) })).toEqual([{ path: 'card_holder_name', message: 'must have at most 255 characters', code: 'too_big' }]);
    expect(await issues({ ...card, card_expiry: { month: '13', year: '29' } })).toEqual([
      { path: 'card_expiry.month', message: 'must be two digits from 01 to 12', code: 'invalid_format' },
      { path: 'card_expiry.year', message: 'must be four digits, e.g. 2029', code: 'invalid_format' },
    ]);
    expect(await issues({ ...card, card_status: 'GONE', card_currency: 'USD' })).toEqual([
      { path: 'card_status', message: 'must be one of "ACTIVE", "INACTIVE", "BLOCKED", "LOST", "STOLEN"', code: 'invalid_value' },
      { path: 'card_currency', message: 'must be one of "NGN"', code: 'invalid_value' },
    ]);
    expect(await issues({ ...card, card_status: undefined, card_holder_name: 7 })).toEqual([
      { path: 'card_status', message: 'must be one of "ACTIVE", "INACTIVE", "BLOCKED", "LOST", "STOLEN"', code: 'invalid_value' },
      { path: 'card_holder_name', message: 'must be a string, got number', code: 'invalid_type' },
    ]);
    expect(seen).toHaveLength(0);
    expect(state.tokenRequests).toHaveLength(0);
  });
});

describe('pagination of accounts.transactions.list', () => {
  const page = (n: number, pages: number | string | undefined, count = 2) => ({
    summary: pages === undefined ? {} : { pages, records_per_page: count },
    transactions: Array.from({ length: count }, (_, i) => ({ id: `p${n}-${i}`, amount: n * 10 + i })),
  });

  function pagedGateway(seen: Recorded[], pages: number | string | undefined, fail?: { page: number; status: number }) {
    return http.get(`${BASE}/accounts/:acct/transactions`, async ({ request }) => {
      seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: '' });
      const n = Number(new URL(request.url).searchParams.get('page') ?? '1');
      if (fail && fail.page === n) return HttpResponse.json({ status: '05', message: 'boom', data: {} }, { status: fail.status });
      return HttpResponse.json({ status: '00', message: 'ok', data: page(n, pages, n > 3 ? 0 : 2) });
    });
  }

  it('awaiting gives the first page; for await yields every item of 3 pages in order, one request per page, a fresh key each', async () => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), pagedGateway(seen, 3));
    const list = session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' }, { idempotencyKey: 'my-key-1' });
    const first = await list;
    expect(first.transactions.map((t) => t.id)).toEqual(['p1-0', 'p1-1']);
    const ids: unknown[] = [];
    for await (const tx of list) ids.push(tx.id);
    expect(ids).toEqual(['p1-0', 'p1-1', 'p2-0', 'p2-1', 'p3-0', 'p3-1']);
    expect(seen.map((r) => new URL(r.url).search)).toEqual(['?from=2024-01-01&to=2024-01-31', '?from=2024-01-01&to=2024-01-31&page=2', '?from=2024-01-01&to=2024-01-31&page=3']);
    const keys = seen.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe('my-key-1');
    expect(new Set(keys).size).toBe(3);
    for (const r of seen) expect(r.headers.signature).toBe(sha(`${SECRET};${r.headers['idempotency-key']}`));
  });

  it('.pages() yields each page, starting from query.page', async () => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), pagedGateway(seen, '3'));
    const pages = [];
    for await (const p of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31', page: 2 }).pages()) pages.push(p.transactions.map((t) => t.id));
    expect(pages).toEqual([['p2-0', 'p2-1'], ['p3-0', 'p3-1']]);
    expect(seen).toHaveLength(2);
  });

  it('an error on page 2 rejects the iteration with the typed error and asks for no page 3', async () => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), pagedGateway(seen, 3, { page: 2, status: 404 }));
    const ids: unknown[] = [];
    const error = await (async () => {
      for await (const tx of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' })) ids.push(tx.id);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'NotFoundError', status: 404 });
    expect(ids).toEqual(['p1-0', 'p1-1']);
    expect(seen).toHaveLength(2);
  });

  it('stops when summary.pages is missing, and on an empty page', async () => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), pagedGateway(seen, undefined));
    const all = [];
    for await (const tx of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' })) all.push(tx);
    expect(all).toHaveLength(2);
    expect(seen).toHaveLength(1);

    seen.length = 0;
    server.use(pagedGateway(seen, 10)); // says 10 pages, page 4 is empty
    const more = [];
    for await (const tx of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' })) more.push(tx);
    expect(more).toHaveLength(6);
    expect(seen).toHaveLength(4);
  });
});

describe('pagination: the safety cap (OPERATIONS.md §3)', () => {
  it('stops after 1,000 pages however many summary.pages announces, one request per page', async () => {
    const { state, seen, session } = setup();
    server.use(
      tokenHandler(state),
      http.get(`${BASE}/accounts/:acct/transactions`, ({ request }) => {
        seen.push({ method: request.method, url: request.url, headers: { 'idempotency-key': request.headers.get('idempotency-key') ?? '' }, body: '' });
        const n = Number(new URL(request.url).searchParams.get('page') ?? '1');
        return HttpResponse.json({ status: '00', message: 'ok', data: { summary: { pages: 1_000_000 }, transactions: [{ id: `p${n}` }] } });
      }),
    );
    let pages = 0;
    for await (const page of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' }).pages()) {
      pages++;
      expect(page.transactions[0]!.id).toBe(`p${pages}`);
    }
    expect(pages).toBe(1_000);
    expect(seen).toHaveLength(1_000);
    expect(new Set(seen.map((r) => r.headers['idempotency-key'])).size).toBe(1_000);
  }, 60_000);
});

describe('transport details through the layer', () => {
  it('withResponse() on a namespace method gives the envelope, the response and the key', async () => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), gateway(seen, () => ({ account_number: '0123456789', available_balance: 12.5, extra: 'kept' })));
    const { data, envelope, response, idempotencyKey } = await session.accounts.balances.retrieve('0123456789', { idempotencyKey: 'bal-1' }).withResponse();
    expect(data).toEqual({ account_number: '0123456789', available_balance: 12.5, extra: 'kept' });
    expect(envelope?.status).toBe('00');
    expect(response.status).toBe(200);
    expect(idempotencyKey).toBe('bal-1');
    expect(AUTH).toContain('identity');
  });
});

describe('header names (OPERATIONS.md Q10)', () => {
  it('DEFAULT_HEADER_NAMES, exported, names the API reference spellings and cannot be changed', () => {
    expect(DEFAULT_HEADER_NAMES).toEqual({ idempotencyKey: 'idempotency-key', connectionId: 'connection-id' });
    expect(Object.isFrozen(DEFAULT_HEADER_NAMES)).toBe(true);
  });

  it('default to the API reference spellings, idempotency-key and connection-id', async () => {
    const { state, seen, session } = setup();
    server.use(tokenHandler(state), gateway(seen, answers));
    await session.accounts.list();
    expect(Object.keys(seen[0]!.headers)).toEqual(expect.arrayContaining(['idempotency-key', 'connection-id', 'signature']));
  });

  it('the guides\' idempotency_key and connection_id through headerNames, signed and re-sent alike on every attempt', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    let attempts = 0;
    server.use(
      tokenHandler(state),
      http.all(`${BASE}/*`, async ({ request }) => {
        seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
        return ++attempts === 1 ? HttpResponse.json({ status: '05', message: 'busy', data: {} }, { status: 503 }) : HttpResponse.json({ status: '00', message: 'ok', data: { accounts: [] } });
      }),
    );
    const { ob } = testClient({ connectionId: 'bank-1', headerNames: { idempotencyKey: 'idempotency_key', connectionId: 'connection_id' } });
    await ob.forCustomer(customerTokens()).accounts.list({ idempotencyKey: 'key-q10' });
    expect(seen).toHaveLength(2);
    for (const { headers } of seen) {
      expect(headers).toMatchObject({ idempotency_key: 'key-q10', connection_id: 'bank-1', signature: sha(`${SECRET};key-q10`) });
      expect(headers).not.toHaveProperty('idempotency-key');
      expect(headers).not.toHaveProperty('connection-id');
    }
  });

  it('a renamed idempotency header cannot be set through the per-call headers either', async () => {
    const { seen } = setup();
    server.use(tokenHandler({ tokenRequests: [] }), gateway(seen, answers));
    const { ob } = testClient({ headerNames: { idempotencyKey: 'idempotency_key' } });
    const error = await ob.forCustomer(customerTokens()).accounts.list({ headers: { idempotency_key: 'mine' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ValidationError', issues: [{ path: 'headers.idempotency_key', code: 'protected_header' }] });
    expect(seen).toHaveLength(0);
  });

  it('refuses a name a header cannot have, or one the SDK already sends', () => {
    const make = (headerNames: unknown) => () => testClient({ headerNames: headerNames as never });
    expect(make({ idempotencyKey: 'idempotency key' })).toThrow(/headerNames\.idempotencyKey/);
    expect(make({ connectionId: 'Signature' })).toThrow(/headerNames\.connectionId/);
    expect(make({ idempotencyKey: 'x-key', connectionId: 'X-Key' })).toThrow(/headerNames\.connectionId/);
    expect(make({ requestId: 'x' })).toThrow(/headerNames\.requestId/);
    expect(make('idempotency_key')).toThrow(/headerNames/);
  });
});
