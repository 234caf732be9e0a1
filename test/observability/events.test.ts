import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClientEventName, type ClientEvents, ConsentEndedError, type Logger, type OpenBanking, OPERATION_SCOPES, ValidationError } from '../../src/index.js';
import { createManualClock, type SandboxClient, type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { clientFor, validCard } from '../sandbox/support.js';
import { thrownIssues } from '../support/thrown.js';

const CARDS = '/openapi/v1/cards';
const NAMES: ClientEventName[] = ['callStart', 'request', 'response', 'retry', 'rateLimitWait', 'token', 'callEnd'];

/** A fetch that keeps the URL and headers of every request it sends. */
function recordingFetch() {
  const sent: { url: string; headers: Headers }[] = [];
  const recording = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : undefined;
    sent.push({ url: request?.url ?? String(input), headers: new Headers(request?.headers ?? init?.headers) });
    return fetch(input, init);
  };
  return { sent, fetch: recording };
}

/** `text` with the characters a RegExp reads specially escaped. */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Seen = { [N in ClientEventName]: [N, ClientEvents[N]] }[ClientEventName];

/** Every event of `ob`, in order. */
function record(ob: OpenBanking): Seen[] {
  const seen: Seen[] = [];
  for (const name of NAMES) ob.on(name, (e) => void seen.push([name, e] as Seen));
  return seen;
}

describe('ob.on: the events of every call, against the sandbox', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  beforeAll(async () => {
    server = await startSandboxServer({ seed: 'events' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    app = server.registerClient();
  });

  it('503 then 201: callStart, token, request, response, retry, request, response, callEnd with the documented payloads', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 503 } });
    const { ob } = clientFor(server, app, { connectionId: 'bank-7' });
    const seen = record(ob);
    const { idempotencyKey } = await ob.cards.create(validCard()).withResponse();
    expect(seen.map(([name]) => name)).toEqual(['callStart', 'token', 'request', 'response', 'retry', 'request', 'response', 'callEnd']);
    const base = { operation: 'cards.create', idempotencyKey };
    const url = `${server.baseUrl}/cards`;
    const duration = expect.any(Number);
    expect(seen[0]![1]).toEqual({ ...base, method: 'POST', urlTemplate: '/cards', connectionId: 'bank-7' });
    expect(seen[1]![1]).toEqual({ grant: 'client_credentials', scopes: ['cards.create'], durationMs: duration, ok: true });
    expect(seen[2]![1]).toEqual({ ...base, method: 'POST', url, urlTemplate: '/cards', attempt: 1, headers: expect.any(Object) });
    expect(seen[3]![1]).toEqual({ ...base, method: 'POST', urlTemplate: '/cards', attempt: 1, status: 503, durationMs: duration, headers: expect.any(Object) });
    expect(seen[4]![1]).toEqual({ ...base, attempt: 1, delayMs: expect.any(Number), reason: 'status', status: 503 });
    expect(seen[5]![1]).toMatchObject({ attempt: 2 });
    expect(seen[6]![1]).toMatchObject({ attempt: 2, status: 201 });
    expect(seen[7]![1]).toEqual({ ...base, durationMs: duration, attempts: 2, ok: true });

    const headers = (seen[2]![1] as ClientEvents['request']).headers;
    expect(headers).toMatchObject({ authorization: '[redacted]', signature: '[redacted]', 'idempotency-key': idempotencyKey, 'connection-id': 'bank-7' });
    expect((seen[6]![1] as ClientEvents['response']).headers['content-type']).toMatch(/application\/json/);
    for (const [, event] of seen) expect(JSON.stringify(event)).not.toContain(app.clientSecret);
  });

  it("names: the path as OPERATIONS.md writes it, never a customer's values; ob.request's urlTemplate, else its path", async () => {
    const { ob } = clientFor(server, app);
    const issued = server.issueTokens({ clientId: app.clientId, scope: 'accounts.balance.readonly', kind: 'customer' });
    const session = ob.forCustomer({ ...issued, expires_at: Math.floor(Date.now() / 1000) + 3600 });
    const seen = record(ob); // a session emits on its client
    await session.accounts.balances.retrieve('0123456789').catch(() => undefined);
    await ob.request({ method: 'GET', path: '/cards', scope: 'cards.list' });
    await ob.request({ method: 'GET', path: '/cards', scope: 'cards.list', urlTemplate: '/cards{?page}' });
    const starts = seen.filter(([name]) => name === 'callStart').map(([, e]) => e);
    expect(starts).toEqual([
      expect.objectContaining({ operation: 'accounts.balances.retrieve', method: 'GET', urlTemplate: '/accounts/{account_number}/balances' }),
      expect.objectContaining({ operation: 'request', urlTemplate: '/cards' }),
      expect.objectContaining({ operation: 'request', urlTemplate: '/cards{?page}' }),
    ]);
    const firstRequest = seen.find(([name]) => name === 'request')![1] as ClientEvents['request'];
    expect(firstRequest.url).toBe(`${server.baseUrl}/accounts/0123456789/balances`);
    expect(firstRequest.urlTemplate).toBe('/accounts/{account_number}/balances');
    await expect(ob.request({ method: 'GET', path: '/cards', urlTemplate: 7 as never })).rejects.toBeInstanceOf(ValidationError);
  });

  it('a header or query parameter a caller adds is redacted by its name (token, pin, otp, …), like the SDK\'s own secrets', async () => {
    const { sent, fetch: recording } = recordingFetch();
    const { ob } = clientFor(server, app, { fetch: recording });
    const seen = record(ob);
    await ob.request(
      { method: 'GET', path: '/cards', scope: 'cards.list', query: { access_token: 'qs-SENTINEL-1', otp: '918273', page: 1 } },
      { headers: { 'x-session-token': 'hdr-SENTINEL-2', 'X-Customer-Pin': '4455', 'x-trace-note': 'kept' } },
    );
    const request = seen.find(([name]) => name === 'request')![1] as ClientEvents['request'];
    expect(request.headers).toMatchObject({ 'x-session-token': '[redacted]', 'x-customer-pin': '[redacted]', 'x-trace-note': 'kept' });
    expect(request.url).toBe(`${server.baseUrl}/cards?access_token=[redacted]&otp=[redacted]&page=1`);
    const text = JSON.stringify(seen.map(([, e]) => e));
    for (const secret of ['qs-SENTINEL-1', '918273', 'hdr-SENTINEL-2', '4455']) expect(text).not.toContain(secret);
    // Sent as given: only what the events show is redacted.
    const api = sent.find((r) => r.url.includes('/openapi/'))!;
    expect(api.url).toBe(`${server.baseUrl}/cards?access_token=qs-SENTINEL-1&otp=918273&page=1`);
    expect(api.headers.get('x-session-token')).toBe('hdr-SENTINEL-2');
  });

  it('a listener that changes a payload changes nothing of the call (key on the wire, later events)', async () => {
    const { sent, fetch: recording } = recordingFetch();
    const { ob } = clientFor(server, app, { fetch: recording });
    ob.on('callStart', (e) => {
      Object.assign(e, { idempotencyKey: 'changed-by-a-listener', operation: 'changed', connectionId: 'changed' });
    });
    const seen = record(ob);
    const { idempotencyKey } = await ob.cards.create(validCard()).withResponse();
    expect(idempotencyKey).not.toBe('changed-by-a-listener');
    const api = sent.filter((r) => r.url.includes('/openapi/'));
    expect(api.map((r) => [r.headers.get('idempotency-key'), r.headers.get('connection-id')])).toEqual([[idempotencyKey, null]]);
    expect(server.requests.list({ path: CARDS }).map((r) => r.idempotencyKey)).toEqual([idempotencyKey]);
    const later = seen.filter(([name]) => name !== 'callStart' && name !== 'token').map(([, e]) => e as { operation: string; idempotencyKey: string });
    expect(later.map((e) => [e.operation, e.idempotencyKey])).toEqual(later.map(() => ['cards.create', idempotencyKey]));
  });

  it('every typed operation: its name and its path template as OPERATIONS.md §1 writes them, on the client and on a session', async () => {
    // OPERATIONS.md §1, row by row: the method's name, its HTTP method and path template.
    const table: [string, string, string][] = [
      ['customers.retrieve', 'GET', '/customers'],
      ['accounts.create', 'POST', '/accounts'],
      ['accounts.list', 'GET', '/accounts'],
      ['accounts.balances.retrieve', 'GET', '/accounts/{account_number}/balances'],
      ['accounts.transactions.list', 'GET', '/accounts/{account_number}/transactions'],
      ['accounts.holds.list', 'GET', '/accounts/{account_number}/holds'],
      ['accounts.holds.create', 'POST', '/accounts/{account_number}/holds'],
      ['accounts.holds.update', 'PATCH', '/accounts/{account_number}/holds/{hold_reference}'],
      ['transfers.enquiry', 'POST', '/transactions/enquiry'],
      ['transfers.retrieve', 'GET', '/transactions/{batch_reference}'],
      ['transfers.create', 'POST', '/transactions/transfer'],
      ['bills.categories.list', 'GET', '/bills/categories'],
      ['bills.billers.list', 'GET', '/bills/{category_id}/billers'],
      ['bills.validate', 'GET', '/bills/{category_id}/billers/{biller_id}/reference/{bill_reference}'],
      ['bills.pay', 'POST', '/bills/{category_id}/billers/{biller_id}/reference/{bill_reference}'],
      ['disputes.categories.list', 'GET', '/disputes/categories'],
      ['disputes.create', 'POST', '/disputes'],
      ['disputes.retrieve', 'GET', '/disputes/{report_reference}'],
      ['directDebits.create', 'POST', '/direct-debits'],
      ['directDebits.list', 'GET', '/direct-debits'],
      ['directDebits.update', 'PATCH', '/direct-debits/{mandate_id}'],
      ['directDebits.charge', 'POST', '/direct-debits/{mandate_id}'],
      ['cards.create', 'POST', '/cards'],
      ['cards.list', 'GET', '/cards'],
      ['savings.list', 'GET', '/savings'],
      ['savings.transactions.list', 'GET', '/savings/{savings_id}/transactions'],
    ];
    const { ob } = clientFor(server, app);
    const scopes = [...new Set(Object.values(OPERATION_SCOPES).flat())];
    const s = ob.forCustomer({ ...server.issueTokens({ clientId: app.clientId, scope: scopes, kind: 'customer' }), expires_at: Math.floor(Date.now() / 1000) + 3600 });
    const seen = record(ob);
    const acct = '0123456789';
    const calls: (() => Promise<unknown>)[] = [
      () => s.customers.retrieve(),
      () => ob.accounts.create({ surname: 'Obi' }),
      () => s.accounts.list(),
      () => s.accounts.balances.retrieve(acct),
      () => s.accounts.transactions.list(acct, { from: '2024-01-01', to: '2024-01-31' }),
      () => s.accounts.holds.list(acct),
      () => s.accounts.holds.create(acct, { reference: 'HLD-EV-1', amount: 1, narration: 'n', hold_start_timestamp: '2024-01-01', hold_end_timestamp: '2024-01-02', status: 'ACTIVE' }),
      () => s.accounts.holds.update(acct, 'HLD-EV-1', { status: 'INACTIVE' }),
      () => ob.transfers.enquiry({ destination_bank_code: '058', destination_account_number: '0987654321' }),
      () => s.transfers.retrieve('BATCH-EV-1'),
      () => s.transfers.create({ amount: 1, source_account_number: acct, destination_bank_code: '058', destination_account_number: '0987654321' }),
      () => ob.bills.categories.list(),
      () => ob.bills.billers.list('CAT-EV'),
      () => ob.bills.validate('CAT-EV', 'BILLER-EV', 'REF-EV'),
      () => s.bills.pay('CAT-EV', 'BILLER-EV', 'REF-EV', { amount: 1, source_account_number: acct, payer_info: { name: 'Ada' } }),
      () => ob.disputes.categories.list(),
      () => s.disputes.create({ reference: 'DSP-EV', description: 'd', customer_id: 'CUS-0001', dispute_category_id: '1', amount: 1 }),
      () => s.disputes.retrieve('REPORT-EV'),
      () => s.directDebits.create({ reference: 'DD-EV', narration: 'n', amount: 1 }),
      () => s.directDebits.list(),
      () => s.directDebits.update('MANDATE-EV', { reference: 'DD-EV', narration: 'n', amount: 1 }),
      () => s.directDebits.charge('MANDATE-EV', { amount: 1 }),
      () => ob.cards.create(validCard()),
      () => s.cards.list(),
      () => s.savings.list(),
      () => s.savings.transactions.list('SAV-EV'),
    ];
    for (const call of calls) await call().catch(() => undefined); // some answer 404 in the seeded sandbox: the events are what counts
    const starts = seen.filter(([name]) => name === 'callStart').map(([, e]) => e as ClientEvents['callStart']);
    expect(starts.map((e) => [e.operation, e.method, e.urlTemplate])).toEqual(table);
    const requests = seen.filter(([name]) => name === 'request').map(([, e]) => e as ClientEvents['request']);
    expect(requests).toHaveLength(table.length);
    for (const r of requests) {
      const [, , template] = table.find(([name]) => name === r.operation)!;
      expect(r.urlTemplate).toBe(template);
      // The URL is the template filled with this call's values; the template never holds them.
      const pattern = new RegExp(`^${escapeRegExp(server.baseUrl + template).replace(/\\\{\w+\\\}/g, '[^/?]+')}(\\?.*)?$`);
      expect(r.url).toMatch(pattern);
      expect(r.urlTemplate).not.toMatch(/0123456789|-EV/);
    }
  });

  it('unsubscribe works, and a second unsubscribe is harmless', async () => {
    const { ob } = clientFor(server, app);
    const ends: unknown[] = [];
    const off = ob.on('callEnd', (e) => void ends.push(e));
    await ob.cards.create(validCard());
    off();
    off();
    await ob.cards.create(validCard());
    expect(ends).toHaveLength(1);
  });

  it('an unknown event name or a listener that is not a function throws ValidationError at once, and nothing listens', async () => {
    const warnings: unknown[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (...args) => void warnings.push(args), error() {} };
    const { ob } = clientFor(server, app, { logger });
    expect(thrownIssues(() => ob.on('responses' as ClientEventName, () => {}))).toEqual([{ path: 'name', message: `must be one of ${NAMES.join(', ')}`, code: 'invalid_value' }]);
    expect(thrownIssues(() => ob.on('response', 5 as never))).toEqual([{ path: 'listener', message: 'must be a function', code: 'invalid_type' }]);
    expect(thrownIssues(() => ob.on('callEnd', undefined as never))).toEqual([{ path: 'listener', message: 'must be a function', code: 'invalid_type' }]);
    await ob.cards.create(validCard());
    expect(warnings).toEqual([]); // a listener added anyway would have thrown inside the call and been logged
  });

  it('a throwing or rejecting listener is logged at warn and the call goes on', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (m) => void warnings.push(m), error: () => undefined };
    const { ob } = clientFor(server, app, { logger, logLevel: 'warn' });
    ob.on('request', () => {
      throw new Error('listener bug');
    });
    ob.on('callEnd', async () => {
      throw new Error('async listener bug');
    });
    const card = await ob.cards.create(validCard());
    expect(card.card_id).toEqual(expect.any(String));
    await expect.poll(() => warnings.length).toBe(2);
    expect(warnings[0]).toMatch(/'request' listener failed.*listener bug/);
    expect(warnings[1]).toMatch(/'callEnd' listener failed.*async listener bug/);
    expect(server.cards()).toHaveLength(1);
  });

  it('a call refused before sending (validation, customer token missing, scope not granted, ended consent) emits callStart and callEnd with attempts 0', async () => {
    const { ob } = clientFor(server, app);
    const seen = record(ob);
    await expect(ob.cards.create({ ...validCard(), card_expiry: { month: '13', year: '2029' } })).rejects.toBeInstanceOf(ValidationError);
    await expect(ob.accounts.list()).rejects.toBeInstanceOf(ValidationError);
    const narrow = ob.forCustomer({ access_token: 'granted-cards-only', token_type: 'Bearer', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600, scope: 'cards.list' });
    await expect(narrow.accounts.list()).rejects.toMatchObject({ issues: [expect.objectContaining({ code: 'scope_not_granted' })] });
    const session = ob.forCustomer({ access_token: 'stale', refresh_token: 'not-issued', token_type: 'Bearer', expires_in: 0, expires_at: 1 });
    await expect(session.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError); // the refresh is refused: consent ended
    await expect(session.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError); // and never replayed
    expect(seen.map(([name]) => name)).toEqual(['callStart', 'callEnd', 'callStart', 'callEnd', 'callStart', 'callEnd', 'callStart', 'token', 'callEnd', 'callStart', 'callEnd']);
    const ends = seen.filter(([name]) => name === 'callEnd').map(([, e]) => e as ClientEvents['callEnd']);
    expect(ends.map((e) => [e.operation, e.attempts, e.ok, e.error?.name])).toEqual([
      ['cards.create', 0, false, 'ValidationError'],
      ['accounts.list', 0, false, 'ValidationError'],
      ['accounts.list', 0, false, 'ValidationError'],
      ['accounts.list', 0, false, 'ConsentEndedError'],
      ['accounts.list', 0, false, 'ConsentEndedError'],
    ]);
    expect(seen[7]![1]).toEqual({ grant: 'refresh_token', scopes: [], durationMs: expect.any(Number), ok: false, error: expect.objectContaining({ error: 'invalid_grant' }) });
    expect(server.requests.count({ path: /^\/openapi/ })).toBe(0);
  });

  it('a 401 answered by a renewed token is a retry with reason unauthorized and delayMs 0', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 401 } });
    const { ob } = clientFor(server, app);
    const seen = record(ob);
    await ob.cards.create(validCard());
    const retries = seen.filter(([name]) => name === 'retry').map(([, e]) => e);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, delayMs: 0, reason: 'unauthorized', status: 401 })]);
    expect(seen.filter(([name]) => name === 'token')).toHaveLength(2);
    expect(seen.at(-1)![1]).toMatchObject({ attempts: 2, ok: true });
  });

  it('an attempt without an answer has no response event: a network retry', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'drop' } });
    const { ob } = clientFor(server, app);
    const seen = record(ob);
    await ob.cards.create(validCard());
    expect(seen.map(([name]) => name)).toEqual(['callStart', 'token', 'request', 'retry', 'request', 'response', 'callEnd']);
    expect(seen[3]![1]).toMatchObject({ attempt: 1, reason: 'network' });
    expect(seen[3]![1]).not.toHaveProperty('status');
  });

  it('an attempt that times out is a retry with reason timeout', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'delay', ms: 400 } });
    const { ob } = clientFor(server, app, { timeout: 100 });
    const seen = record(ob);
    await ob.cards.create(validCard());
    expect(seen.filter(([name]) => name === 'retry').map(([, e]) => e)).toEqual([expect.objectContaining({ attempt: 1, reason: 'timeout' })]);
  });

  it('rateLimitWait when the limiter holds a call back', async () => {
    const clock = createManualClock(Date.now());
    const { ob } = clientFor(server, app, { rateLimit: { rate: 30, burst: 1 }, now: clock.now, sleep: clock.sleep });
    const seen = record(ob);
    await ob.cards.create(validCard());
    const { idempotencyKey } = await ob.cards.create(validCard()).withResponse();
    expect(seen.filter(([name]) => name === 'rateLimitWait').map(([, e]) => e)).toEqual([{ operation: 'cards.create', idempotencyKey, waitMs: 2000, shared: false }]);
  });

  it('token events: ob.auth grants with the scopes asked for, else those granted', async () => {
    const { ob } = clientFor(server, app);
    const seen = record(ob);
    await ob.auth.clientCredentials(['cards.list', 'cards.create']);
    const issued = server.issueTokens({ clientId: app.clientId, scope: 'accounts.list.readonly', kind: 'customer' });
    await ob.auth.refresh(issued.refresh_token);
    expect(seen.map(([, e]) => e)).toEqual([
      { grant: 'client_credentials', scopes: ['cards.create', 'cards.list'], durationMs: expect.any(Number), ok: true },
      { grant: 'refresh_token', scopes: ['accounts.list.readonly'], durationMs: expect.any(Number), ok: true },
    ]);
  });
});
