import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer, type McpServerOptions } from '../../src/mcp.js';
import { apiCalls, bank, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", row "written for a model": each tool says what it does and when to use it,
// whose consent it needs and what it costs, never its HTTP method or path; every input property
// has a description; amounts say naira and two decimals, dates YYYY-MM-DD, account numbers are
// ten-digit strings; schemas use the keywords every function-calling API reads (nullable as
// anyOf, no look-around); the default tools/list is at most 16 KiB of JSON; a result's text is a
// summary that still carries what the next call needs.

const MONEY = ['transfers.create', 'bills.pay', 'directDebits.charge', 'accounts.holds.create'];
const INSTRUMENTS = ['directDebits.create', 'directDebits.update', 'cards.create', 'accounts.holds.update'];
const LIMITS = { perCall: 50_000, perDay: 200_000 };
type Json = Record<string, unknown>;
type Tool = { name: string; description?: string; inputSchema: Json; outputSchema?: Json };

/** Connects the v2 client and keeps the raw tools/list result, as the bytes the server sent. */
async function listing(options: Omit<McpServerOptions, 'customer'>, withCustomer = true) {
  const b = bank();
  const client = new Client({ name: 'model-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const raw: string[] = [];
  const deliver = clientSide.onmessage;
  await createMcpServer(b.ob, { ...(withCustomer ? { customer: b.session } : {}), ...options }).connect(serverSide);
  await client.connect(clientSide);
  const received = clientSide.onmessage!;
  clientSide.onmessage = (message, extra) => {
    const result = (message as { result?: { tools?: unknown } }).result;
    if (result?.tools) raw.push(JSON.stringify(result));
    received(message, extra);
  };
  void deliver;
  const { tools } = await client.listTools();
  return { ...b, client, tools: tools as Tool[], bytes: Buffer.byteLength(raw[0] ?? ''), call: async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Json } };
}

/** Every schema node of `schema` with its path: properties, anyOf branches, items. */
function nodes(schema: unknown, path = ''): [string, Json][] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Json;
  const out: [string, Json][] = [[path, node]];
  for (const [name, member] of Object.entries((node.properties as Json | undefined) ?? {})) out.push(...nodes(member, `${path}${path ? '.' : ''}${name}`));
  for (const [i, branch] of ((node.anyOf as unknown[] | undefined) ?? []).entries()) out.push(...nodes(branch, `${path}|${i}`));
  if (node.items) out.push(...nodes(node.items, `${path}[]`));
  return out;
}

/** Every property of an input schema, at any depth: `[path, schema]`. */
const properties = (schema: Json): [string, Json][] => nodes(schema).filter(([path]) => path !== '' && !/\|\d+$|\[\]$/.test(path));

describe('tools written for a model', () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  const open = async (...args: Parameters<typeof listing>) => {
    const l = await listing(...args);
    clients.push(l.client);
    return l;
  };
  const everything = { allow: ['writes', ...MONEY, ...INSTRUMENTS] as never, limits: LIMITS, ledger: 'memory' as const };

  it('every description says what the tool is for, whose consent, what it costs, and never an HTTP method or path', async () => {
    const { tools } = await open(everything, false);
    expect(tools.length).toBe(28);
    for (const tool of tools) {
      const text = tool.description ?? '';
      expect(text.length, tool.name).toBeGreaterThan(60);
      expect(text, tool.name).not.toMatch(/\b(GET|POST|PUT|PATCH|DELETE)\b|\/[A-Za-z{]/);
      if (tool.name !== 'connect_bank') expect(text, tool.name).toMatch(/consent|own credentials/);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.description ?? '']));
    for (const name of MONEY.map((n) => n.replaceAll('.', '_'))) {
      expect(byName[name], name).toMatch(/Moves money: a person confirms every call before it is sent, and the server refuses more than ₦50,000\.00 per call or ₦200,000\.00 a day \(Lagos time\)\. Amounts are in naira, two decimals at most\./);
    }
    for (const name of INSTRUMENTS.map((n) => n.replaceAll('.', '_'))) expect(byName[name], name).toMatch(/A person confirms every call before it is sent/);
    expect(byName.directDebits_update).toMatch(/amount per debit is at most ₦50,000\.00/);
    expect(byName.accounts_list).toMatch(/Read-only/);
  });

  it('every input property, at any depth, has a description; amounts say naira and two decimals, dates YYYY-MM-DD, account numbers ten-digit strings', async () => {
    const { tools } = await open(everything, false);
    let count = 0;
    for (const tool of tools) {
      for (const [path, schema] of properties(tool.inputSchema)) {
        count++;
        expect(typeof schema.description === 'string' && schema.description.length > 3, `${tool.name} ${path}`).toBe(true);
        const name = path.split('.').at(-1)!;
        const described = String(schema.description);
        if (name === 'amount') expect(described, `${tool.name} ${path}`).toMatch(/in naira \(NGN\), the major unit, at most two decimals: 1500\.5 is ₦1,500\.50/);
        if (JSON.stringify(schema).includes('\\\\d{4}-(0[1-9]')) expect(described, `${tool.name} ${path}`).toMatch(/YYYY-MM-DD/);
        if (['account_number', 'source_account_number', 'destination_account_number', 'destination_account'].includes(name)) {
          expect(schema, `${tool.name} ${path}`).toMatchObject({ type: 'string', pattern: '^\\d{10}$' });
          expect(described).toMatch(/ten digits, as a string/);
        }
      }
    }
    expect(count).toBeGreaterThan(118);
  });

  it('schemas every function-calling API reads: no type arrays (nullable is anyOf with null), no look-around in a pattern', async () => {
    for (const options of [{}, everything, { ...everything, schemas: 'strict' as const }]) {
      const { tools } = await open(options);
      for (const tool of tools) {
        for (const [path, node] of [...nodes(tool.inputSchema), ...nodes(tool.outputSchema)]) {
          expect(Array.isArray(node.type), `${tool.name} ${path}`).toBe(false);
          if (typeof node.pattern === 'string') expect(node.pattern, `${tool.name} ${path}`).not.toMatch(/\(\?<?[=!]/);
        }
      }
    }
  });

  it('the default tools/list is at most 16 KiB of JSON', async () => {
    const plain = await open({});
    expect(plain.tools).toHaveLength(16);
    expect(plain.bytes).toBeGreaterThan(8_000);
    expect(plain.bytes).toBeLessThanOrEqual(16 * 1024);
    expect((await open({ schemas: 'strict' })).bytes).toBeLessThanOrEqual(16 * 1024);
  });

  it('an account number is a ten-digit string: a number, a negative or a short one is refused before anything is sent', async () => {
    const l = await open({});
    for (const account_number of [123456789, 12345678901, '-5', '12345', 123_456_789.5]) {
      const refused = await l.call('accounts_balances_retrieve', { account_number });
      expect(textOf(refused), String(account_number)).toMatch(/^ValidationError: .*account_number/);
    }
    expect(apiCalls(l.sandbox)).toBe(0);
    expect((await l.call('accounts_balances_retrieve', { account_number: '0123456789' })).isError).toBeFalsy();
  });

  it("a result's text is a summary: the page count, and a table of every transaction's id and reference, in fewer bytes than the data", async () => {
    const l = await open({});
    const page = await l.call('accounts_transactions_list', { account_number: '0123456789', from: '2024-01-01', to: '2024-01-31' });
    const data = page.structuredContent as { summary: { pages: number }; transactions: { id: unknown; reference: string }[] };
    const text = textOf(page);
    expect(data.transactions.length).toBeGreaterThan(1);
    expect(text).toContain(`summary.pages: ${JSON.stringify(data.summary.pages)}`);
    expect(text).toMatch(new RegExp(`^transactions: ${data.transactions.length} items \\(id \\| amount \\| .*reference.*\\):$`, 'm'));
    for (const t of data.transactions) expect(text).toMatch(new RegExp(`^- ${JSON.stringify(t.id)} \\| .*${JSON.stringify(t.reference)}`, 'm'));
    expect(text.length).toBeLessThan(JSON.stringify(data).length * 0.8);
    expect(text, text).not.toMatch(/custom_properties|\[redacted\]/);
  });

  it('a write answers its idempotency key and what the next call takes in its text', async () => {
    const l = await open({ allow: ['transfers.create'], limits: LIMITS, ledger: 'memory', confirm: 'none' });
    const sent = await l.call('transfers_create', { ...TRANSFER });
    expect(sent.isError, textOf(sent)).toBeFalsy();
    const { batch_reference, idempotency_key } = sent.structuredContent as { batch_reference: string; idempotency_key: string };
    expect(textOf(sent)).toContain(`batch_reference: ${JSON.stringify(batch_reference)}`);
    expect(textOf(sent)).toContain(`idempotency_key: ${JSON.stringify(idempotency_key)}`);
  });
});
