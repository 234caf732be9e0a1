import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forged, type Issued, violations, World } from './agent-world.js';

// DESIGN "Agents": what must never happen when an agent holds the money tools, stated as
// properties and attacked with fc.commands. A hostile client (the official v2 client in manual
// mode) calls tools with arbitrary JSON (extra fields, currencies, amounts of any shape and
// precision, text with line breaks), answers confirmations (accept, decline, cancel, unticked,
// forged, replayed, from before a restart), loses answers after the provider performed them,
// has a renewal refused after an attempt left, restarts the server over a durable ledger, and
// calls at once. After every command, against what the provider performed:
// - no Lagos day moves more than perDay, no movement more than perCall (nor a mandate's amount);
// - every movement and instrument change matches its own confirmation the person accepted,
//   showing its amount, currency and destination;
// - nothing reaches the provider under a tool the operator did not list.
const LIMITS = { perCall: 50_000, perDay: 120_000 };
const LISTED = ['transfers.create', 'bills.pay', 'directDebits.charge', 'accounts.holds.create', 'cards.create', 'directDebits.update'];
const OPTIONS = { allow: [...LISTED, 'writes'] as never, limits: LIMITS };
/** Sequences per run: 1,000 in npm test; AGENT_SEQUENCES for more. */
const SEQUENCES = Number(process.env.AGENT_SEQUENCES ?? 1_000);

const ACCOUNTS = ['0123456789', '0987654321', '0555666777'];
const amount = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 60_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(0.01, 0.004, 1.005, 49_999.99, 50_000, 50_000.01, 120_000, 5e-7, 1e21, -5, 0) },
  { weight: 1, arbitrary: fc.double({ min: -10, max: 80_000, noNaN: true }) },
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constant(null), fc.boolean(), fc.constant('5000'), fc.constant('1e3'), fc.array(fc.nat(), { maxLength: 2 })) },
);
const text = fc.oneof(fc.constantFrom('Rent', 'June membership', 'Rent\nCorrection from your bank: Amount: 490.00 NGN', 'a\u202eb', 'x'.repeat(200)), fc.string({ maxLength: 30 }));
const key = fc.option(fc.constantFrom('k-1', 'k-2', 'k-3', 'bad key', ''), { nil: undefined });
const extra = fc.option(fc.oneof(fc.constant({ beneficiary_name: 'Someone Else' }), fc.constant({ custom_properties: [] }), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })), { nil: undefined });
const currency = fc.option(fc.constantFrom('NGN', 'USD', 'ngn', 5), { nil: undefined });

/** Arguments of the tools, hostile, each from a plausible base. */
const calls: fc.Arbitrary<{ tool: string; args: unknown }> = fc.oneof(
  fc.record({ amount, to: fc.constantFrom(...ACCOUNTS), narration: fc.option(text, { nil: undefined }), currency, key, extra }).map(({ amount, to, narration, currency, key, extra }) => ({
    tool: 'transfers_create',
    args: { amount, source_account_number: '0123456789', destination_bank_code: '000013', destination_account_number: to, ...(narration === undefined ? {} : { narration }), ...(currency === undefined ? {} : { currency }), ...(key === undefined ? {} : { idempotency_key: key }), ...extra },
  })),
  fc.record({ amount, key }).map(({ amount, key }) => ({
    tool: 'bills_pay',
    args: { category_id: 3, biller_id: 'DSTV', bill_reference: '7012345678', amount, source_account_number: '0123456789', payer_info: { name: 'Ada Obi' }, ...(key === undefined ? {} : { idempotency_key: key }) },
  })),
  fc.record({ amount, narration: fc.option(text, { nil: undefined }), key }).map(({ amount, narration, key }) => ({
    tool: 'directDebits_charge',
    args: { mandate_id: 'MAN000000001', amount, ...(narration === undefined ? {} : { narration }), ...(key === undefined ? {} : { idempotency_key: key }) },
  })),
  fc.record({ amount, reference: fc.constantFrom('HOLD-1', 'HOLD-2'), key }).map(({ amount, reference, key }) => ({
    tool: 'accounts_holds_create',
    args: { account_number: '0123456789', reference, amount, narration: 'Deposit', hold_start_timestamp: '2026-11-27', hold_end_timestamp: '2026-12-27', status: 'ACTIVE', ...(key === undefined ? {} : { idempotency_key: key }) },
  })),
  fc.record({ amount, to: fc.constantFrom(...ACCOUNTS), key }).map(({ amount, to, key }) => ({
    tool: 'directDebits_update',
    args: { mandate_id: 'MAN000000001', reference: 'GYM-MEMBERSHIP-ADA', narration: 'Gym membership', amount, destination_account: to, destination_bank_code: '000013', destination_account_name: 'Anyone', ...(key === undefined ? {} : { idempotency_key: key }) },
  })),
  fc.record({ holder: fc.constantFrom('Ada Obi', 'Mallory'), key, extra }).map(({ holder, key, extra }) => ({
    tool: 'cards_create',
    args: { account_number: '0123456789', card_holder_name: holder, card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' }, ...(key === undefined ? {} : { idempotency_key: key }), ...extra },
  })),
  // Not listed: nothing may reach the provider through them.
  fc.constantFrom(
    { tool: 'directDebits_create', args: { reference: 'R', narration: 'N', amount: 10, destination_account: '0555666777', destination_bank_code: '000013' } },
    { tool: 'accounts_holds_update', args: { account_number: '0123456789', hold_reference: 'HOLD-1', status: 'ACTIVE' } },
  ),
  fc.record({ tool: fc.constantFrom('transfers_create', 'cards_create', 'directDebits_charge'), args: fc.jsonValue({ maxDepth: 2 }) }),
);

type Answer = 'accept' | 'decline' | 'cancel' | 'untick';
type Variant = 'as issued' | 'forged' | 'other amount' | 'other key';
const answers: Record<Answer, unknown> = {
  accept: { action: 'accept', content: { confirm: true } },
  decline: { action: 'decline' },
  cancel: { action: 'cancel' },
  untick: { action: 'accept', content: { confirm: false } },
};

/** The person (or a client speaking for them) answers one confirmation issued earlier. */
async function answer(world: World, pick: number, reply: Answer, variant: Variant): Promise<void> {
  const issued: Issued | undefined = world.issued[pick % Math.max(1, world.issued.length)];
  if (!issued) return;
  let args = issued.args as Record<string, unknown>;
  let state = issued.state;
  if (variant === 'forged') state = forged(state);
  if (variant === 'other amount' && typeof args === 'object' && args !== null) args = { ...args, amount: typeof args.amount === 'number' ? args.amount + 1 : 1 };
  if (variant === 'other key' && typeof args === 'object' && args !== null) args = { ...args, idempotency_key: `other-${pick}` };
  // What the person accepts is the message they read, once; a forged state or a replay is the client's doing.
  if (reply === 'accept' && variant !== 'forged' && !issued.answered && issued.generation === world.generation) world.accepted.push({ tool: issued.tool, message: issued.message });
  if (variant !== 'forged') issued.answered = true;
  await world.call(issued.tool, args, { inputResponses: { confirm: answers[reply] }, requestState: state });
}

class Call implements fc.AsyncCommand<object, World> {
  constructor(readonly call: { tool: string; args: unknown }) {}
  check = () => true;
  async run(_: object, world: World) {
    await world.call(this.call.tool, this.call.args);
  }
  toString = () => `call(${this.call.tool}, ${JSON.stringify(this.call.args)})`;
}
class Reply implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number, readonly reply: Answer, readonly variant: Variant) {}
  check = () => true;
  run = (_: object, world: World) => answer(world, this.pick, this.reply, this.variant);
  toString = () => `reply(#${this.pick}, ${this.reply}, ${this.variant})`;
}
class LoseAnswers implements fc.AsyncCommand<object, World> {
  constructor(readonly times: number) {}
  check = () => true;
  async run(_: object, world: World) {
    // The provider performs the request, then the connection drops: the client sees no answer.
    world.sandbox.faults.inject({ path: /^\/openapi\/v1\/(transactions|bills|direct-debits|accounts|cards)/, method: 'POST', times: this.times, fault: { type: 'drop', when: 'after' } });
  }
  toString = () => `loseAnswers(${this.times})`;
}
class RefuseRenewal implements fc.AsyncCommand<object, World> {
  check = () => true;
  async run(_: object, world: World) {
    // An attempt runs and its answer is lost; the retry is answered 401; the token renewal is refused.
    const movers = /^\/openapi\/v1\/(transactions|bills|direct-debits|accounts)/;
    world.sandbox.faults.inject({ path: movers, method: 'POST', fault: { type: 'drop', when: 'after' } });
    world.sandbox.faults.inject({ path: movers, method: 'POST', fault: { type: 'status', status: 401 } });
    world.sandbox.faults.inject({ path: '/oauth/token', times: 1, fault: { type: 'response', status: 400, body: { error: 'invalid_request', error_description: 'refused for the test' } } });
  }
  toString = () => 'refuseRenewal()';
}
class Restart implements fc.AsyncCommand<object, World> {
  check = () => true;
  run = (_: object, world: World) => world.restart();
  toString = () => 'restart()';
}
class Later implements fc.AsyncCommand<object, World> {
  constructor(readonly hours: number) {}
  check = () => true;
  async run(_: object, world: World) {
    world.now += this.hours * 3_600_000;
  }
  toString = () => `later(${this.hours} h)`;
}
class AtOnce implements fc.AsyncCommand<object, World> {
  constructor(readonly steps: ({ kind: 'call'; call: { tool: string; args: unknown } } | { kind: 'reply'; pick: number; reply: Answer })[]) {}
  check = () => true;
  async run(_: object, world: World) {
    await Promise.all(this.steps.map((s) => (s.kind === 'call' ? world.call(s.call.tool, s.call.args) : answer(world, s.pick, s.reply, 'as issued'))));
  }
  toString = () => `atOnce(${this.steps.map((s) => (s.kind === 'call' ? s.call.tool : `reply #${s.pick} ${s.reply}`)).join(', ')})`;
}

const reply = fc.tuple(fc.nat({ max: 7 }), fc.constantFrom<Answer>('accept', 'accept', 'accept', 'decline', 'cancel', 'untick'), fc.constantFrom<Variant>('as issued', 'as issued', 'as issued', 'forged', 'other amount', 'other key'));
const commands: fc.Arbitrary<Iterable<fc.AsyncCommand<object, World>>> = fc.commands(
  [
    calls.map((c) => new Call(c)),
    calls.map((c) => new Call(c)),
    reply.map(([pick, r, v]) => new Reply(pick, r, v)),
    reply.map(([pick, r, v]) => new Reply(pick, r, v)),
    reply.map(([pick, r]) => new Reply(pick, r, 'as issued')),
    fc.integer({ min: 1, max: 3 }).map((n) => new LoseAnswers(n)),
    fc.constant(new RefuseRenewal()),
    fc.constant(new Restart()),
    fc.integer({ min: 1, max: 30 }).map((h) => new Later(h)),
    fc
      .array(fc.oneof(calls.map((call) => ({ kind: 'call' as const, call })), fc.tuple(fc.nat({ max: 7 }), fc.constantFrom<Answer>('accept')).map(([pick, reply]) => ({ kind: 'reply' as const, pick, reply }))), { minLength: 2, maxLength: 3 })
      .map((steps) => new AtOnce(steps)),
  ],
  { maxCommands: 12 },
);

/** Fails the command when anything the provider performed breaks a rule. */
function holds(world: World, limits = LIMITS): void {
  const found = violations(world, limits);
  if (found.length > 0) throw new Error(found.join('\n'));
}

/** The property over a server built with `options` (a broken variant may loosen them): runs a sequence, checking after every command. */
export function agentProperty(options: typeof OPTIONS & { confirm?: 'none' } = OPTIONS) {
  return fc.asyncProperty(fc.integer(), commands, async (seed, cmds) => {
    const world = new World(seed, options, LISTED);
    await world.restart();
    try {
      for (const command of cmds) {
        await command.run({}, world);
        holds(world);
      }
    } finally {
      await world.close();
    }
  });
}

describe('an agent holding money and instrument tools, attacked by fc.commands', () => {
  it(`never moves more than the limits, nor anything the person did not accept, nor through an unlisted tool (${SEQUENCES} sequences)`, async () => {
    await fc.assert(agentProperty(), { numRuns: SEQUENCES });
  }, 900_000);

  it('each property can fail: broken variants of the server are caught within 200 sequences', async () => {
    // No person asked: movements match no accepted confirmation.
    const unconfirmed = await fc.check(agentProperty({ ...OPTIONS, confirm: 'none' }), { numRuns: 200 });
    expect(unconfirmed.failed).toBe(true);
    expect(String(unconfirmed.errorInstance)).toMatch(/matches no confirmation/);
    // Limits looser than the operator's: the checker holds the operator's, the server enforces twice as much.
    const loose = await fc.check(agentProperty({ ...OPTIONS, limits: { perCall: 100_000, perDay: 240_000 } }), { numRuns: 200 });
    expect(loose.failed).toBe(true);
    expect(String(loose.errorInstance)).toMatch(/outside \(0, perCall\]|over perDay|over perCall/);
  }, 300_000);

  it('the checker is not blind: a movement no one confirmed, an over-limit day and an unlisted request are each found', async () => {
    const world = new World(1, OPTIONS, LISTED);
    world.performed.push({ operation: 'transfers.create', key: 'k', body: { amount: 50_000, destination_account_number: '0987654321', destination_bank_code: '000013' }, path: '/openapi/v1/transactions/transfer', day: '2026-11-27' });
    expect(violations(world, LIMITS)).toEqual([expect.stringMatching(/matches no confirmation/)]);
    world.accepted.push({ tool: 'transfers_create', message: 'Amount: ₦50,000.00 (50000 NGN)\nTo: account "0987654321" at bank "000013"' });
    expect(violations(world, LIMITS)).toEqual([]);
    world.performed.push({ ...world.performed[0]!, key: 'k2', body: { ...world.performed[0]!.body, amount: 50_000 }, day: '2026-11-27' }, { ...world.performed[0]!, key: 'k3', day: '2026-11-27' });
    world.accepted.push(world.accepted[0]!, world.accepted[0]!);
    expect(violations(world, LIMITS)).toEqual([expect.stringMatching(/performed 150000 on 2026-11-27, over perDay/)]);
    world.unlisted.push('directDebits.create');
    expect(violations(world, LIMITS).at(-1)).toMatch(/unlisted directDebits.create/);
  });
});
