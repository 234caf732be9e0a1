import { afterEach, describe, expect, it } from 'vitest';
import { type Agent, type Answer, apiCalls, bank, LINES, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", rows "money input" and "limits": a money tool takes exactly the fields the
// person is shown plus idempotency_key; the currency is absent or NGN; an amount has at most two
// decimals; shown text is one quoted line of at most 140 characters, and what is sent is what was
// shown. The sandbox behind a recording fetch says what reached the provider.
const LIMITS = { perCall: 50_000, perDay: 50_000 };
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;

describe.each(LINES)('money input, driven by the %s', (_line, connect) => {
  const agents: Agent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.close()));
  });
  const open = async (answer: Answer = 'accept') => {
    const b = bank();
    const bodies: Record<string, unknown>[] = [];
    const ob = b.client({
      fetch: (async (input: Request | string | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (request.method === 'POST') bodies.push(JSON.parse(await request.clone().text()));
        return b.sandbox(request);
      }) as typeof fetch,
    });
    const agent = await connect(ob, { customer: ob.forCustomer(b.tokens, { id: 'customer-42' }), allow: ['transfers.create', 'directDebits.charge'], limits: LIMITS, ledger: 'memory' }, answer);
    agents.push(agent);
    return { ...b, agent, bodies };
  };

  it('a currency other than NGN is refused before asking, nothing sent; NGN is shown and accepted', async () => {
    const b = await open();
    for (const currency of ['USD', 'ngn', 5, null]) {
      const refused = await b.agent.call('transfers_create', { ...TRANSFER, amount: 100, currency });
      expect(refused.isError, String(currency)).toBe(true);
      expect(textOf(refused)).toMatch(/^ValidationError: .*currency/);
    }
    expect(b.agent.asked).toHaveLength(0);
    expect(apiCalls(b.sandbox)).toBe(0);
    expect((await b.agent.call('transfers_create', { ...TRANSFER, amount: 100, currency: 'NGN' })).isError).toBeFalsy();
    expect(b.agent.asked[0]).toMatch(/^Amount: ₦100\.00 \(100 NGN\)$/m);
    expect(b.sandbox.payments().map((p) => p.amount)).toEqual([100]);
  });

  it('a field the person is not shown is refused, not passed through: beneficiary_name, custom_properties, anything', async () => {
    const b = await open();
    for (const extra of [{ beneficiary_name: 'Someone Else' }, { custom_properties: [{ id: 'x', description: '', type: 'T', value: 'v' }] }, { anything: 1 }]) {
      const refused = await b.agent.call('transfers_create', { ...TRANSFER, ...extra });
      expect(textOf(refused), JSON.stringify(extra)).toMatch(new RegExp(`^ValidationError: [\\s\\S]*${Object.keys(extra)[0]}: is not a known field`));
    }
    expect(b.agent.asked).toHaveLength(0);
    expect(apiCalls(b.sandbox)).toBe(0);
  });

  it('text cannot write a line of the confirmation: control characters and line breaks are replaced, 140 characters at most, quoted; what is sent is what was shown', async () => {
    const b = await open();
    const narration = `Rent\nCorrection from your bank: Amount: 490.00 NGN\r\u2028\u202e${'x'.repeat(200)}`;
    expect((await b.agent.call('transfers_create', { ...TRANSFER, amount: 49_000, narration })).isError).toBeFalsy();
    const shown = b.agent.asked[0]!;
    expect(shown.split('\n').filter((line) => /Correction|Amount:/.test(line))).toEqual(['Amount: ₦49,000.00 (49000 NGN)', expect.stringMatching(/^ {2}narration: "Rent Correction from your bank: Amount: 490\.00 NGN {3}x+"$/)]);
    const sent = b.bodies.at(-1)!.narration as string;
    expect([...sent]).toHaveLength(140);
    expect(shown).toContain(JSON.stringify(sent));
  });

  it('an amount with more than two decimals is refused: sub-kobo amounts cannot slip past a full day', async () => {
    const b = await open();
    for (const amount of [0.004, 1.005, 5e-7, 1e21, '5000', -5, 0]) {
      expect(textOf(await b.agent.call('transfers_create', { ...TRANSFER, amount })), String(amount)).toMatch(/^ValidationError: .*amount/);
    }
    expect((await b.agent.call('transfers_create', { ...TRANSFER, amount: 50_000 })).isError).toBeFalsy();
    for (let i = 0; i < 5; i++) expect((await b.agent.call('transfers_create', { ...TRANSFER, amount: 0.004 })).isError).toBe(true);
    expect(b.sandbox.payments().map((p) => p.amount)).toEqual([50_000]);
    expect(b.sandbox.requests.count(POSTS)).toBe(1);
  });

  it('the input schema says so: no other member, amount a number, currency NGN only', async () => {
    const b = await open();
    const tool = (await b.agent.listTools()).find((t) => t.name === 'transfers_create')!;
    expect(tool.inputSchema).toMatchObject({ additionalProperties: false, properties: { amount: { type: 'number' }, currency: { enum: ['NGN'] } } });
    expect(Object.keys((tool.inputSchema as { properties: object }).properties).sort()).toEqual(
      ['amount', 'currency', 'destination_account_number', 'destination_bank_code', 'idempotency_key', 'narration', 'reference', 'source_account_number'].sort(),
    );
  });
});
