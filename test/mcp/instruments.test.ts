import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp.js';
import { validCard } from '../support/cards.js';
import { type Agent, type Answer, apiCalls, bank, LINES, textOf } from './support.js';

// DESIGN "Agents", row "what asks a person": instrument tools (directDebits.create,
// directDebits.update, cards.create, accounts.holds.update) create or redirect a way money can
// move. 'writes' never lists them; named in allow they ask the person before every send, and a
// mandate's amount stays within perCall. A charge shows the mandate's beneficiary as the
// provider reports it, read before asking.
const LIMITS = { perCall: 20_000, perDay: 50_000 };
const MANDATE = 'MAN000000001';
const REDIRECT = { mandate_id: MANDATE, reference: 'GYM-MEMBERSHIP-ADA', narration: 'Gym membership', amount: 15_000, destination_account: '0999888777', destination_bank_code: '000013', destination_account_name: 'Agent Chosen Ltd' };
const NEW_MANDATE = { reference: 'NEW-1', narration: 'Subscription', amount: 5_000, destination_account: '0999888777', destination_bank_code: '000013', destination_account_name: 'Agent Chosen Ltd' };
const HOLD_UPDATE = { account_number: '0123456789', hold_reference: 'HLD000000001', status: 'ACTIVE' };
const INSTRUMENTS: [string, string, Record<string, unknown>, RegExp][] = [
  ['directDebits.update', 'directDebits_update', REDIRECT, /PATCH \/openapi\/v1\/direct-debits\/MAN000000001/],
  ['directDebits.create', 'directDebits_create', NEW_MANDATE, /POST \/openapi\/v1\/direct-debits$/],
  ['cards.create', 'cards_create', validCard(), /POST \/openapi\/v1\/cards$/],
  ['accounts.holds.update', 'accounts_holds_update', HOLD_UPDATE, /PATCH \/openapi\/v1\/accounts\/0123456789\/holds\/HLD000000001/],
];
const writesTo = (b: ReturnType<typeof bank>, pattern: RegExp) => b.sandbox.requests.list().filter((r) => pattern.test(`${r.method} ${r.path}`)).length;

describe.each(LINES)('instrument tools, driven by the %s', (_line, connect) => {
  const agents: Agent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.close()));
  });
  const open = async (allow: string[], answer: Answer = 'accept') => {
    const b = bank();
    const agent = await connect(b.ob, { customer: b.session, allow: allow as never, limits: LIMITS, ledger: 'memory' }, answer);
    agents.push(agent);
    return { ...b, agent };
  };

  it("'writes' lists none of them; calling one says which allow name lists it, and nothing is sent", async () => {
    const b = await open(['writes']);
    const listed = (await b.agent.listTools()).map((t) => t.name);
    for (const [operation, tool, args, sent] of INSTRUMENTS) {
      expect(listed, tool).not.toContain(tool);
      const refused = await b.agent.call(tool, args);
      expect(refused.isError, tool).toBe(true);
      expect(textOf(refused)).toContain(`NotAllowed: ${tool} is not enabled on this server, so nothing was sent. The operator enables it with allow: ['${operation}']`);
      expect(writesTo(b, sent), tool).toBe(0);
    }
    expect(apiCalls(b.sandbox)).toBe(0);
  });

  for (const [operation, tool, args, sent] of INSTRUMENTS) {
    it(`${operation}, named in allow: destructive, asks the person before every send; declined, nothing is sent`, async () => {
      const declined = await open([operation], 'decline');
      const tools = await declined.agent.listTools();
      expect(tools.find((t) => t.name === tool)?.annotations).toMatchObject({ destructiveHint: true });
      expect(textOf(await declined.agent.call(tool, args))).toMatch(/^NotConfirmed: The person declined/);
      expect(declined.agent.asked).toHaveLength(1);
      expect(writesTo(declined, sent)).toBe(0);
      const accepted = await open([operation], 'accept');
      const first = await accepted.agent.call(tool, args);
      expect(first.isError, textOf(first)).toBeFalsy();
      expect(accepted.agent.asked).toHaveLength(1);
      expect(writesTo(accepted, sent)).toBe(1);
    });
  }

  it('redirecting a mandate shows where its debits will go, and a later charge shows the beneficiary the bank reports, read before asking', async () => {
    const b = await open(['directDebits.update', 'directDebits.charge']);
    expect((await b.agent.call('directDebits_update', REDIRECT)).isError).toBeFalsy();
    expect(b.agent.asked[0]).toMatch(/To: account "0999888777" at bank "000013", name "Agent Chosen Ltd"/);
    const reads = b.sandbox.requests.count({ path: '/openapi/v1/direct-debits', method: 'GET' });
    expect((await b.agent.call('directDebits_charge', { mandate_id: MANDATE, amount: 15_000, narration: 'June' })).isError).toBeFalsy();
    expect(b.sandbox.requests.count({ path: '/openapi/v1/direct-debits', method: 'GET' })).toBeGreaterThan(reads);
    expect(b.agent.asked[1]).toMatch(/Amount: ₦15,000\.00 \(15000 NGN\)[\s\S]*To: account "0999888777" at bank "000013", name "Agent Chosen Ltd", the beneficiary of mandate "MAN000000001" as the bank reports it/);
    expect(b.sandbox.payments().map((p) => [p.kind, p.amount])).toEqual([['debit', 15_000]]);
  });

  it("a mandate's amount above perCall is refused before asking; a charge of a mandate the customer does not have is refused unread", async () => {
    const b = await open(['directDebits.create', 'directDebits.update', 'directDebits.charge']);
    const over = await b.agent.call('directDebits_create', { ...NEW_MANDATE, amount: 20_000.01 });
    expect(textOf(over)).toMatch(/^ValidationError: .*per-call limit \(limits\.perCall\) of 20000/);
    expect(textOf(await b.agent.call('directDebits_update', { ...REDIRECT, amount: 1_000_000 }))).toMatch(/per_call_limit|per-call limit/);
    const unknown = await b.agent.call('directDebits_charge', { mandate_id: 'MAN999', amount: 10 });
    expect(textOf(unknown)).toMatch(/^ValidationError: .*mandate_id: is not one of the customer's mandates/s);
    expect(b.agent.asked).toHaveLength(0);
    expect(b.sandbox.requests.count({ method: 'POST' }) + b.sandbox.requests.count({ method: 'PATCH' })).toBe(0);
  });
});

describe('instrument tools at start-up', () => {
  it('the mandate tools need limits.perCall: createMcpServer throws without it', () => {
    const { ob, session } = bank();
    for (const name of ['directDebits.create', 'directDebits.update'] as const) {
      const error = (() => {
        try {
          createMcpServer(ob, { customer: session, allow: [name] });
        } catch (e) {
          return e as ValidationError;
        }
      })();
      expect(error).toBeInstanceOf(ValidationError);
      expect(error!.message).toMatch(new RegExp(`Mandate tools \\(${name.replace('.', '\\.')}\\) need limits\\.perCall`));
      expect(error!.issues.map((i) => i.path)).toEqual(['limits.perCall']);
    }
    expect(() => createMcpServer(ob, { customer: session, allow: ['cards.create', 'accounts.holds.update'] })).not.toThrow();
    expect(() => createMcpServer(ob, { customer: session, allow: ['directDebits.update'], limits: { perCall: 1 } as never })).not.toThrow();
  });
});
