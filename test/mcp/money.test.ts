import { afterEach, describe, expect, it } from 'vitest';
import { type Agent, type Answer, apiCalls, bank, LINES, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", rows "confirmation", "limits" and "idempotency", for each line of MCP client:
// the sandbox's counters and ledger say what was sent and what money moved.
const LIMITS = { perCall: 50_000, perDay: 200_000 };
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;

describe.each(LINES)('money tools, driven by the %s', (_line, connect) => {
  const agents: Agent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.close()));
  });
  const setup = async (elicit: Answer = 'accept', options: { limits?: typeof LIMITS; confirm?: 'elicit' | 'none' } = {}) => {
    const b = bank();
    const agent = await connect(b.ob, { customer: b.session, allow: ['transfers.create'], limits: options.limits ?? LIMITS, ledger: 'memory', ...(options.confirm ? { confirm: options.confirm } : {}) }, elicit);
    agents.push(agent);
    return { ...b, agent };
  };

  it('accepted: the person sees amount, currency, source, destination and narration, and the transfer is sent once', async () => {
    const { sandbox, agent } = await setup('accept');
    const sent = await agent.call('transfers_create', TRANSFER);
    expect(sent.isError).toBeFalsy();
    expect(agent.asked).toHaveLength(1);
    for (const shown of ['5000', 'NGN', '0123456789', '0987654321', '000013', 'Rent for June']) expect(agent.asked[0]).toContain(shown);
    expect(sandbox.requests.count(POSTS)).toBe(1);
    expect(sandbox.payments()).toHaveLength(1);
    // The key the server minted is the one the bank moved the money under, and the agent gets it back.
    expect(sent.structuredContent).toMatchObject({ batch_reference: expect.any(String), idempotency_key: sandbox.payments()[0]!.idempotencyKey });
  });

  for (const answer of ['decline', 'cancel', 'untick', 'none'] as const) {
    it(`${answer === 'none' ? 'a client that cannot ask the person' : `${answer}d`}: a tool error, nothing sent`, async () => {
      const { sandbox, agent } = await setup(answer);
      const refused = await agent.call('transfers_create', TRANSFER);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^NotConfirmed: .*nothing was sent/);
      expect(apiCalls(sandbox)).toBe(0);
      expect(sandbox.payments()).toHaveLength(0);
    });
  }

  it("confirm: 'none' sends without asking, even to a client that cannot ask, and the limits still hold", async () => {
    const { sandbox, agent } = await setup('none', { confirm: 'none' });
    expect((await agent.call('transfers_create', TRANSFER)).isError).toBeFalsy();
    expect(agent.asked).toHaveLength(0);
    expect(sandbox.payments()).toHaveLength(1);
    const over = await agent.call('transfers_create', { ...TRANSFER, amount: 50_001 });
    expect(textOf(over)).toMatch(/perCall/);
    expect(sandbox.payments()).toHaveLength(1);
  });

  it('perCall: above it is refused before asking and sending; equal is allowed', async () => {
    const { sandbox, agent } = await setup('accept');
    const over = await agent.call('transfers_create', { ...TRANSFER, amount: 50_000.01 });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/^ValidationError: .*per-call limit \(limits\.perCall\) of 50000/);
    expect(agent.asked).toHaveLength(0);
    expect(apiCalls(sandbox)).toBe(0);
    expect((await agent.call('transfers_create', { ...TRANSFER, amount: 50_000 })).isError).toBeFalsy();
    expect(sandbox.payments().map((p) => p.amount)).toEqual([50_000]);
  });

  it('perDay: what was sent counts; reaching the limit exactly is allowed, past it is refused before asking and sending', async () => {
    const { sandbox, agent } = await setup('accept', { limits: { perCall: 50_000, perDay: 12_000 } });
    for (const amount of [5_000, 5_000, 2_000]) expect((await agent.call('transfers_create', { ...TRANSFER, amount })).isError, String(amount)).toBeFalsy();
    const over = await agent.call('transfers_create', { ...TRANSFER, amount: 0.01 });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/^ValidationError: .*daily limit \(limits\.perDay\) of 12000/);
    expect(agent.asked).toHaveLength(3);
    expect(sandbox.requests.count(POSTS)).toBe(3);
    expect(sandbox.payments().map((p) => p.amount)).toEqual([5_000, 5_000, 2_000]);
  });

  it('a repeated idempotency_key with the same input is sent again without asking or counting; with other input it is refused unsent', async () => {
    const { sandbox, agent } = await setup('accept', { limits: { perCall: 50_000, perDay: 10_000 } });
    const first = await agent.call('transfers_create', { ...TRANSFER, amount: 6_000, idempotency_key: 'agent-retry-1' });
    const again = await agent.call('transfers_create', { ...TRANSFER, amount: 6_000, idempotency_key: 'agent-retry-1' });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(again.structuredContent).toMatchObject({ idempotency_key: 'agent-retry-1' });
    expect(agent.asked).toHaveLength(1);
    expect(sandbox.requests.count(POSTS)).toBe(2);
    expect(sandbox.payments()).toHaveLength(1);
    // Counted once: 4 000 more still fit in the day's 10 000.
    expect((await agent.call('transfers_create', { ...TRANSFER, amount: 4_000 })).isError).toBeFalsy();
    const reused = await agent.call('transfers_create', { ...TRANSFER, amount: 7_000, idempotency_key: 'agent-retry-1' });
    expect(reused.isError).toBe(true);
    expect(textOf(reused)).toMatch(/^ValidationError: .*idempotency_key/);
    expect(sandbox.requests.count(POSTS)).toBe(3);
    expect(sandbox.payments()).toHaveLength(2);
  });
});
