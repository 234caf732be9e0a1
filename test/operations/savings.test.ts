import { describe, expect, it } from 'vitest';
import type { SavingsList, SavingsTransaction, SavingsTransactionPage } from '../../src/index.js';
import { http, HttpResponse, useMsw } from '../support/msw.js';
import { answerWith, describeOperations, useSandbox } from './harness.js';

describeOperations('savings', [
  {
    name: 'savings.list',
    token: 'customer',
    call: (t) => t.savings.list(),
    check: (data) => expect((data as SavingsList).savings.map((s) => s.savings_id)).toEqual(['SAV-0001', 'SAV-0002']),
    bad: (t) => t.savings.list({ page: 1 } as never, {}),
    badPath: '',
    wire: (t) => t.savings.list(),
    method: 'GET',
    path: '/savings',
    data: { savings: [] },
  },
  {
    name: 'savings.transactions.list',
    token: 'customer',
    call: (t) => t.savings.transactions.list('SAV-0001'),
    check: (data) => expect(data as SavingsTransactionPage).toMatchObject({ summary: { pages: 3, records_per_page: 20 }, transactions: expect.any(Array) }),
    bad: (t) => t.savings.transactions.list('SAV-0001', { page: 0 }),
    badPath: 'query.page',
    wire: (t) => t.savings.transactions.list('SAV 1/2', { from: '2024-01-01' }),
    method: 'GET',
    path: '/savings/SAV%201%2F2/transactions',
    data: { transactions: [] },
  },
]);

describe('savings.transactions.list pages', () => {
  const env = useSandbox();
  const PATH = '/openapi/v1/savings/SAV-0001/transactions';

  it('for await walks every page (45 transactions, 3 pages), each page its own signed call', async () => {
    const session = env.session(['savings.transactions.list']);
    const before = env.server.requests.list({ path: PATH }).length;
    const seen: SavingsTransaction[] = [];
    for await (const tx of session.savings.transactions.list('SAV-0001')) seen.push(tx);
    expect(seen).toHaveLength(45);
    expect(new Set(seen.map((t) => t.id)).size).toBe(45);
    expect(seen.every((t) => t.status === 'SUCCESSFUL')).toBe(true);
    const calls = env.server.requests.list({ path: PATH }).slice(before);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.idempotencyKey)).size).toBe(3);
  });

  it('.pages() yields each page; from/to and a starting page are kept on every page', async () => {
    const session = env.session(['savings.transactions.list']);
    const pages: SavingsTransactionPage[] = [];
    for await (const page of session.savings.transactions.list('SAV-0001', { from: '2023-01-01', to: '2025-12-31', page: 2 }).pages()) pages.push(page);
    expect(pages.map((p) => p.transactions.length)).toEqual([16]);
    expect(pages[0]!.summary).toMatchObject({ from: '2023-01-01', to: '2025-12-31', pages: 2 });
  });

  it('options without a query: list(id, undefined, options)', async () => {
    const session = env.session(['savings.transactions.list']);
    const { idempotencyKey } = await session.savings.transactions.list('SAV-0002', undefined, { idempotencyKey: 'savings-read-1' }).withResponse();
    expect(idempotencyKey).toBe('savings-read-1');
  });
});

describe('savings: tolerance of what the provider sends', () => {
  const server = useMsw();

  it('the API reference’s data.loans is read as data.savings', async () => {
    const { session } = answerWith(server, { loans: [{ savings_id: 7, frequency: 'BIANNUAL' }] });
    const data = await session.savings.list();
    expect(data.savings).toEqual([{ savings_id: 7, frequency: 'BIANNUAL' }]);
  });

  it('data.savings wins when both are sent', async () => {
    const { session } = answerWith(server, { savings: [{ savings_id: 'S1' }], loans: [{ savings_id: 'L1' }] });
    expect((await session.savings.list()).savings).toEqual([{ savings_id: 'S1' }]);
  });

  it('a page with a numeric-string summary.pages is followed', async () => {
    let page = 0;
    const { session } = answerWith(server, undefined);
    server.use(
      http.get(/\/savings\/S1\/transactions/, () => {
        page++;
        return HttpResponse.json({ status: '00', data: { summary: { pages: '2' }, transactions: [{ id: page }] } });
      }),
    );
    const ids: unknown[] = [];
    for await (const tx of session.savings.transactions.list('S1')) ids.push(tx.id);
    expect(ids).toEqual([1, 2]);
  });
});
