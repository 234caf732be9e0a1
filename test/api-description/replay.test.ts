import { beforeAll, describe, expect, it } from 'vitest';
import { aesGcmCipher, OPERATION_SCOPES, OpenBanking } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing.js';
import { validCard } from '../support/cards.js';
import { documentValidator, type Exchange, recordingFetch } from './wire-validator.js';

// The sandbox's own traffic, replayed through a validator of the committed openapi.json: every typed
// operation, with a cipher configured on the client and the sandbox (as production requires), and the
// refusals and retried statuses the client handles. What a validating proxy in front of the service
// would check is checked: path, query, the idempotency-key and signature headers, the request body,
// the answer's status and body. The validator is Ajv, which shares no code with zod.

const APP = { clientId: 'replay-app', clientSecret: 'replay-secret-1' };
const ALL_SCOPES = [...new Set(Object.values(OPERATION_SCOPES).flat())];
const ACCOUNT = '0123456789';
const later = () => Math.floor(Date.now() / 1000) + 3600;

describe('the sandbox\'s traffic, with a cipher on both ends, meets openapi.json (requests and answers)', () => {
  const validator = documentValidator();
  const exchanges: Exchange[] = [];
  let sandbox: Sandbox;

  beforeAll(async () => {
    const cipher = aesGcmCipher(APP.clientSecret);
    sandbox = createSandbox({ seed: 'replay', clients: [APP], cipher });
    const ob = new OpenBanking({
      ...APP,
      baseUrl: sandbox.baseUrl,
      authUrl: sandbox.authUrl,
      cipher,
      logLevel: 'off',
      fetch: recordingFetch((request) => sandbox(request), exchanges),
      retryDelay: 0, sleep: async () => undefined,
    });
    const tokens = { ...sandbox.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' }), expires_at: later() };
    const session = ob.forCustomer(tokens);
    // Every typed operation, with the bodies the docs and examples use.
    await session.customers.retrieve();
    await ob.accounts.create({ customer_ref: 'CUS-9', first_name: 'Chidi', dob: '1991-02-03', gender: 'M' });
    await session.accounts.list();
    await session.accounts.balances.retrieve(ACCOUNT);
    for await (const _ of session.accounts.transactions.list(ACCOUNT, { from: '2024-01-01', to: '2024-01-31', page: 1 })); // every page
    await session.accounts.holds.create(ACCOUNT, { reference: 'HLD-X-1', amount: 2500, narration: 'Deposit', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' });
    await session.accounts.holds.list(ACCOUNT);
    await session.accounts.holds.update(ACCOUNT, 'HLD-X-1', { status: 'INACTIVE' });
    await ob.transfers.enquiry({ destination_bank_code: '000007', destination_account_number: '0987654321' });
    const sent = await session.transfers.create({ amount: 5_000, source_account_number: ACCOUNT, destination_bank_code: '000007', destination_account_number: '0987654321', narration: 'Rent' });
    await session.transfers.retrieve(sent.batch_reference ?? 'BATCH000000000');
    const categories = await ob.bills.categories.list();
    const { billers } = await ob.bills.billers.list(categories[2]!.id!);
    await session.bills.validate(categories[2]!.id!, billers[0]!.id!, '7012345678');
    await session.bills.pay(categories[2]!.id!, billers[0]!.id!, '7012345678', { amount: 12_500, source_account_number: ACCOUNT, payer_info: { name: 'Ada Obi' } });
    const { dispute_categories } = await ob.disputes.categories.list();
    const report = await session.disputes.create({ reference: 'DISP0000000001', description: 'Debited twice', customer_id: 'CUS-0001', dispute_category_id: String(dispute_categories[0]!.id), amount: 4_500 });
    await session.disputes.retrieve(report.report_reference ?? 'RPT000000000');
    const mandate = await session.directDebits.create({ reference: 'SUB-ADA-001', narration: 'Streaming subscription', amount: 4_400, start_date: '2024-02-01', frequency: 'MONTHLY' });
    await session.directDebits.list();
    const id = mandate.mandate_id ?? 'MAN000000001';
    await session.directDebits.charge(id, { amount: 4_400, reference: 'SUB-2024-02' });
    await session.directDebits.update(id, { reference: 'SUB-ADA-001', narration: 'Streaming subscription', amount: 4_400, mandate_status: 'INACTIVE' });
    await ob.cards.create(validCard({ card_default_pin: '90210417' }));
    await session.cards.create(validCard());
    await ob.cards.list();
    const { savings } = await session.savings.list();
    for await (const _ of session.savings.transactions.list(savings[0]!.savings_id ?? 'SAV-0001', { from: '2024-01-01' }));
    // Refusals the service sends to typed calls the client let through.
    await session.accounts.holds.create(ACCOUNT, { reference: 'HLD-X-1', amount: 1, narration: 'Again', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' }).catch(() => undefined); // 400 DUPLICATE_REFERENCE
    await session.accounts.holds.update(ACCOUNT, 'HLD-NONE', { status: 'INACTIVE' }).catch(() => undefined); // 404
    const { scope: _named, ...unnamed } = sandbox.issueTokens({ clientId: APP.clientId, scope: ['customers.readonly'], kind: 'customer' });
    await ob.forCustomer({ ...unnamed, expires_at: later() }).accounts.list().catch(() => undefined); // 403: a token the client cannot check
    await ob.forCustomer({ access_token: 'not-a-token', token_type: 'Bearer', expires_in: 3600, expires_at: later() }).accounts.list().catch(() => undefined); // 401
    // The statuses the client retries, each answered with the spec's body, then the real answer.
    for (const [status, retryAfter] of [[408, undefined], [429, '0'], [500, undefined], [502, undefined], [503, '0'], [504, undefined]] as const) {
      sandbox.faults.inject({ path: '/openapi/v1/accounts', method: 'GET', fault: { type: 'status', status, ...(retryAfter === undefined ? {} : { retryAfter }) } });
      await session.accounts.list();
    }
  });

  it('every exchange meets the document, request and answer alike', () => {
    const problems = exchanges.flatMap((e) => validator.checkExchange(e).problems);
    expect(problems).toEqual([]);
  });

  it('every typed operation was exchanged, and every status the client handles was answered', () => {
    const seen = new Set(exchanges.map((e) => validator.checkExchange(e).operationId));
    expect([...seen].sort()).toEqual(Object.keys(OPERATION_SCOPES).sort());
    expect([...new Set(exchanges.map((e) => e.status))].sort()).toEqual([200, 201, 400, 401, 403, 404, 408, 429, 500, 502, 503, 504]);
  });

  it('the cipher was on: the PINs travelled as ciphertext, and the answers\' card secrets too', () => {
    const created = exchanges.filter((e) => e.method === 'POST' && new URL(e.url).pathname === '/openapi/v1/cards' && e.status === 201);
    expect(created).toHaveLength(2);
    for (const e of created) {
      const pin = (JSON.parse(e.body) as { card_default_pin: string }).card_default_pin;
      expect(pin).not.toMatch(/^\d{4,12}$/);
      expect(pin).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const data = (JSON.parse(e.responseBody) as { data: Record<string, string> }).data;
      for (const field of ['card_number', 'card_cvv2', 'card_default_pin', 'card_token']) expect(data[field], field).toMatch(/^[A-Za-z0-9+/]{20,}=*$/);
    }
    expect(sandbox.cards().map((c) => c.card.card_default_pin).sort()).toEqual(['1234', '90210417']);
  });

  it('the check has teeth: a spoiled request or answer of the replay is refused', () => {
    const card = exchanges.find((e) => e.method === 'POST' && e.status === 201 && e.url.endsWith('/cards'))!;
    const holds = exchanges.find((e) => e.method === 'GET' && e.url.endsWith(`/accounts/${ACCOUNT}/holds`))!;
    const page = exchanges.find((e) => e.url.includes('/transactions?'))!;
    const spoil = (e: Exchange, change: Partial<Exchange>) => validator.checkExchange({ ...e, ...change }).problems;
    const answer = JSON.parse(card.responseBody) as { data: Record<string, unknown> };
    expect(spoil(card, {})).toEqual([]);
    expect(spoil(card, { responseBody: JSON.stringify({ ...answer, data: { ...answer.data, card_status: 42 } }) })).toHaveLength(1);
    expect(spoil(card, { responseBody: JSON.stringify({ status: '00', message: 'ok' }) })).toHaveLength(1);
    expect(spoil(card, { body: JSON.stringify({ ...(JSON.parse(card.body) as object), card_holder_name: '' }) })).toHaveLength(1);
    expect(spoil(card, { headers: { ...card.headers, signature: 'not-a-digest' } })).toHaveLength(1);
    const { 'idempotency-key': _key, ...unkeyed } = card.headers;
    expect(spoil(card, { headers: unkeyed })).toHaveLength(1);
    expect(spoil(card, { status: 418 })).toHaveLength(1);
    expect(spoil(holds, { url: holds.url.replace(ACCOUNT, '..') })).toHaveLength(1);
    expect(spoil(page, { url: page.url.replace('page=1', 'page=0') })).toHaveLength(1);
    expect(spoil(page, { url: `${page.url}&size=10` })).toHaveLength(1);
  });
});
