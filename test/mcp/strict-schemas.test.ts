import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer, type McpServerOptions } from '../../src/mcp.js';
import { openAiStrictProblems } from '../support/openai-strict.mjs';
import { useBin } from './bin-support.js';
import { bank, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", row "written for a model": `schemas: 'strict'` (`--strict-schemas`) lists input
// schemas in the form OpenAI's strict function calling accepts unchanged, and the server reads
// `null` as absent. openAiStrictProblems applies OpenAI's published rules (test/support/openai-strict.mjs).

type Json = Record<string, unknown>;
const EVERYTHING = ['--allow', 'writes,transfers.create,bills.pay,directDebits.charge,accounts.holds.create,directDebits.create,directDebits.update,cards.create,accounts.holds.update', '--max-amount', '50000', '--daily-amount', '200000', '--ledger', 'memory'];
const bin = useBin('strict');

/** Every tool the command lists with `args`, over stdio, as the v2 client reads them. */
async function listed(args: string[]): Promise<{ name: string; inputSchema: Json }[]> {
  const client = new Client({ name: 'strict-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin.path, ...args], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' }));
  try {
    return (await client.listTools()).tools as never;
  } finally {
    await client.close();
  }
}

describe('--strict-schemas: input schemas as OpenAI strict function calling takes them', () => {
  it("every input schema of every tool meets OpenAI's published strict-mode rules", async () => {
    const tools = await listed(['--strict-schemas', ...EVERYTHING]);
    expect(tools).toHaveLength(27);
    for (const tool of tools) expect(openAiStrictProblems(tool.inputSchema), tool.name).toEqual([]);
    // Optional arguments are there, as unions with null.
    const transfer = tools.find((t) => t.name === 'transfers_create')!.inputSchema as { required: string[]; properties: Record<string, Json> };
    expect(transfer.required.sort()).toEqual(Object.keys(transfer.properties).sort());
    expect(transfer.properties.narration).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('the rules can fail: the default schemas break them (optional properties, length keywords)', async () => {
    const tools = await listed(EVERYTHING);
    const problems = tools.flatMap((tool) => openAiStrictProblems(tool.inputSchema).map((p) => `${tool.name} ${p}`));
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^transfers_create \$\.narration: every property must be in required$/), expect.stringMatching(/keyword minLength is not supported for string/)]));
    expect(openAiStrictProblems({ type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false })).toEqual(['$.a: type ["string","null"] is not supported']);
  });
});

describe("schemas: 'strict': null is read as absent", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  async function open(options: Omit<McpServerOptions, 'customer'>) {
    const b = bank();
    const bodies: Record<string, unknown>[] = [];
    const ob = b.client({
      fetch: (async (input: Request | string | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (request.method === 'POST') bodies.push(JSON.parse(await request.clone().text()));
        return b.sandbox(request);
      }) as typeof fetch,
    });
    const asked: string[] = [];
    const client = new Client({ name: 'strict-agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => (asked.push(String(request.params.message)), { action: 'accept', content: { confirm: true } }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(ob, { customer: ob.forCustomer(b.tokens, { id: 'customer-42' }), ...options }).connect(serverSide);
    await client.connect(clientSide);
    closers.push(() => client.close());
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };
    return { ...b, bodies, asked, call };
  }
  const money = { allow: ['transfers.create', 'bills.pay'] as never, limits: { perCall: 50_000, perDay: 200_000 }, ledger: 'memory' as const };

  it('a transfer with every optional argument null: confirmed and sent without them, a key minted', async () => {
    const s = await open({ ...money, schemas: 'strict' });
    const sent = await s.call('transfers_create', { ...TRANSFER, narration: null, reference: null, currency: null, idempotency_key: null });
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(s.asked).toHaveLength(1);
    expect(s.asked[0]).not.toMatch(/narration|reference/);
    expect(s.bodies).toHaveLength(1);
    expect(s.bodies[0]).not.toHaveProperty('narration');
    expect(s.bodies[0]).not.toHaveProperty('currency');
    expect(sent.structuredContent!.idempotency_key).toEqual(expect.any(String));
  });

  it('a nullable member keeps its null; an optional object given as null is left out; a read takes null for its page', async () => {
    const s = await open({ ...money, schemas: 'strict' });
    const bill = { category_id: 3, biller_id: 'DSTV', bill_reference: '7012345678', amount: 1_000, source_account_number: '0123456789', payer_info: { name: 'Ada Obi', email: null, phone: null }, product_info: null, idempotency_key: null };
    const paid = await s.call('bills_pay', bill);
    expect(paid.isError, textOf(paid)).toBeFalsy();
    expect(s.bodies[0]).toEqual({ amount: 1_000, source_account_number: '0123456789', payer_info: { name: 'Ada Obi', email: null, phone: null } });
    const page = await s.call('accounts_transactions_list', { account_number: '0123456789', from: '2024-01-01', to: '2024-01-31', page: null });
    expect(page.isError, textOf(page)).toBeFalsy();
  });

  it("schemas takes 'strict' or nothing: another value is refused at start-up", () => {
    const { ob, session } = bank();
    expect(() => createMcpServer(ob, { customer: session, schemas: 'loose' as never })).toThrow(expect.objectContaining({ name: 'ValidationError', issues: [expect.objectContaining({ path: 'schemas', code: 'invalid_value' })] }));
  });

  it('without strict schemas, null stays a value: refused where the schema takes none', async () => {
    const s = await open(money);
    const refused = await s.call('transfers_create', { ...TRANSFER, narration: null });
    expect(textOf(refused)).toMatch(/^ValidationError: .*narration/);
    expect(s.bodies).toHaveLength(0);
  });
});
