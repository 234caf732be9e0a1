import { afterEach, describe, expect, it } from 'vitest';
import { OPERATION_SCOPES, type OperationName } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp.js';
import { operations } from '../../src/schemas.js';
import { type Agent, apiCalls, bank, LINES, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", rows "tools" and "read-only by default": one tool per typed operation, generated
// from the published declarations and schemas; only the reads listed and callable unless allowed.
const NAMES = Object.keys(operations) as OperationName[];
const GETS = NAMES.filter((n) => operations[n].method === 'GET');
const MONEY = ['transfers.create', 'bills.pay', 'directDebits.charge', 'accounts.holds.create'];
const INSTRUMENTS = ['directDebits.create', 'directDebits.update', 'cards.create', 'accounts.holds.update'];
const WRITES = NAMES.filter((n) => operations[n].method !== 'GET' && !MONEY.includes(n) && !INSTRUMENTS.includes(n));
const tool = (name: string) => name.replaceAll('.', '_');
const LIMITS = { perCall: 50_000, perDay: 200_000 };
const LEDGER = 'memory' as const;

describe.each(LINES)('tools, listed to the %s', (_line, connect) => {
  const agents: Agent[] = [];
  const open = async (...args: Parameters<typeof connect>) => {
    const agent = await connect(...args);
    agents.push(agent);
    return agent;
  };
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.close()));
  });

  it('by default: the GET operations and transfers_wait, nothing else; no write is callable and nothing is sent', async () => {
    const { sandbox, ob, session } = bank();
    const agent = await open(ob, { customer: session });
    const listed = (await agent.listTools()).map((t) => t.name).sort();
    expect(listed).toEqual([...GETS.map(tool), 'transfers_wait'].sort());
    for (const name of [...WRITES, ...INSTRUMENTS, ...MONEY].map(tool)) {
      const refused = await agent.call(name, name === 'transfers_create' ? TRANSFER : {}).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
      expect(refused.isError, name).toBe(true);
      expect(textOf(refused)).toContain(name);
    }
    expect(apiCalls(sandbox)).toBe(0);
    expect(sandbox.payments()).toHaveLength(0);
  });

  it("allow names one operation; 'writes' adds every POST and PATCH that moves no money, never a money or instrument tool", async () => {
    const { ob, session } = bank();
    const one = await open(ob, { customer: session, allow: ['cards.create'] });
    expect((await one.listTools()).map((t) => t.name)).toContain('cards_create');
    expect((await one.listTools()).map((t) => t.name)).not.toContain('disputes_create');
    const writes = await open(ob, { customer: session, allow: ['writes'] });
    const listed = (await writes.listTools()).map((t) => t.name);
    for (const name of WRITES) expect(listed, name).toContain(tool(name));
    for (const name of [...MONEY, ...INSTRUMENTS]) expect(listed, name).not.toContain(tool(name));
    const money = await open(ob, { customer: session, allow: ['writes', 'transfers.create'], limits: LIMITS, ledger: LEDGER });
    expect((await money.listTools()).map((t) => t.name)).toContain('transfers_create');
  });

  it('schemas: path parameters by name and required, query and body fields, idempotency_key on writes; output from the response, arrays as { items }', async () => {
    const { ob, session } = bank();
    const agent = await open(ob, { customer: session, allow: ['writes', ...INSTRUMENTS, ...MONEY] as never, limits: LIMITS, ledger: LEDGER });
    const tools = Object.fromEntries((await agent.listTools()).map((t) => [t.name, t]));
    const balances = tools.accounts_balances_retrieve!;
    expect(balances.inputSchema).toMatchObject({ type: 'object', required: ['account_number'] });
    const transactions = tools.accounts_transactions_list!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(transactions.properties).sort()).toEqual(['account_number', 'from', 'page', 'to']);
    expect(transactions.required.sort()).toEqual(['account_number', 'from', 'to']);
    const pay = tools.bills_pay!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(pay.required).toEqual(expect.arrayContaining(['category_id', 'biller_id', 'bill_reference', 'amount', 'source_account_number']));
    expect(pay.properties.idempotency_key).toMatchObject({ type: 'string' });
    expect(pay.required).not.toContain('idempotency_key');
    expect((balances.inputSchema as { properties: object }).properties).not.toHaveProperty('idempotency_key');
    expect(tools.bills_categories_list!.outputSchema).toMatchObject({ type: 'object', properties: { items: { type: 'array' } }, required: ['items'] });
    expect(tools.transfers_create!.outputSchema).toMatchObject({ type: 'object', properties: { idempotency_key: { type: 'string' } } });
    for (const t of Object.values(tools)) {
      expect(JSON.stringify(t.inputSchema), t.name).not.toMatch(/"\$(schema|ref)"/);
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
    }
  });

  it('annotations: reads read-only and idempotent, money and instrument tools destructive, other writes neither', async () => {
    const { ob, session } = bank();
    const agent = await open(ob, { customer: session, allow: ['writes', ...INSTRUMENTS, ...MONEY] as never, limits: LIMITS, ledger: LEDGER });
    const tools = Object.fromEntries((await agent.listTools()).map((t) => [t.name, t.annotations]));
    for (const name of GETS) expect(tools[tool(name)], name).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(tools.transfers_wait).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    for (const name of [...MONEY, ...INSTRUMENTS]) expect(tools[tool(name)], name).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    for (const name of WRITES) expect(tools[tool(name)], name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  });

  it('a read: structuredContent is the data (an array as { items }), one request each', async () => {
    const { sandbox, ob, session } = bank();
    const agent = await open(ob, { customer: session });
    const accounts = await agent.call('accounts_list');
    expect(accounts.isError).toBeFalsy();
    expect(accounts.structuredContent).toEqual({ accounts: expect.arrayContaining([expect.objectContaining({ account_number: '0123456789' })]) });
    // The text is a summary (DESIGN "written for a model"): every account number the next call takes, not the JSON again.
    const listed = (accounts.structuredContent as { accounts: { account_number: string }[] }).accounts;
    expect(textOf(accounts)).toMatch(/^accounts: \d+ items \(account_number \| /m);
    for (const account of listed) expect(textOf(accounts)).toMatch(new RegExp(`^- ${JSON.stringify(account.account_number)} \\| `, 'm'));
    expect(textOf(accounts).length).toBeLessThan(JSON.stringify(accounts.structuredContent).length);
    const categories = await agent.call('bills_categories_list');
    expect(categories.structuredContent).toEqual({ items: expect.arrayContaining([expect.objectContaining({ name: 'Airtime' })]) });
    const page = await agent.call('accounts_transactions_list', { account_number: '0123456789', from: '2024-01-01', to: '2024-01-31', page: 2 });
    expect(page.structuredContent).toMatchObject({ summary: { pages: 3 }, transactions: expect.any(Array) });
    expect(apiCalls(sandbox)).toBe(3);
  });

  it('bad input is a ValidationError naming each field, before anything is sent', async () => {
    const { sandbox, ob, session } = bank();
    const agent = await open(ob, { customer: session, allow: ['writes', 'cards.create'] });
    const missing = await agent.call('accounts_transactions_list', { account_number: '0123456789' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^ValidationError: .*from.*to/s);
    const unknown = await agent.call('accounts_list', { nope: 1 });
    expect(textOf(unknown)).toMatch(/^ValidationError: .*nope/);
    const card = await agent.call('cards_create', { card_holder_name: 'Ada Obi' });
    expect(textOf(card)).toMatch(/^ValidationError: .*account_number/);
    const key = await agent.call('cards_create', { idempotency_key: 'has spaces' });
    expect(textOf(key)).toMatch(/^ValidationError: .*idempotency_key/);
    expect(apiCalls(sandbox)).toBe(0);
  });
});

describe('tools generated from the declarations', () => {
  it('one per typed operation, named with _ for ., each scope of the consent asked by connect_bank', async () => {
    const { ob } = bank();
    const server = createMcpServer(ob, { allow: ['writes', ...INSTRUMENTS, ...MONEY] as never, limits: LIMITS, ledger: LEDGER });
    const { v2 } = await import('./support.js');
    const agent = await v2(server);
    const listed = (await agent.listTools()).map((t) => t.name).sort();
    expect(listed).toEqual([...NAMES.map(tool), 'transfers_wait', 'connect_bank'].sort());
    await agent.close();
    expect(Object.keys(OPERATION_SCOPES).sort()).toEqual([...NAMES].sort());
  });
});
