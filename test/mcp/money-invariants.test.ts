import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Channel, forged, type Issued, type PageLink, violations, World } from './agent-world.js';

// DESIGN "Agents": what must never happen when an agent holds the money tools, stated as
// properties and attacked with fc.commands. A hostile client (the official v2 client in manual
// mode) calls tools with arbitrary JSON (extra fields, currencies, amounts of any shape and
// precision, text with line breaks), answers confirmations (accept, decline, cancel, unticked,
// forged, replayed, from before a restart), loses answers after the provider performed them,
// has a renewal refused after an attempt left, restarts the server over a durable ledger, and
// calls at once. The client declares form elicitation, URL elicitation or none: the person then
// decides on the server's page (confirm, decline, a wrong passphrase, a GET, a foreign origin, no
// token), the hostile client posts a decision itself on a URL-mode link it holds (it never knows
// the passphrase), and the agent repeats earlier calls as it is told to. After every command,
// against what the provider performed:
// - no Lagos day moves more than perDay, no movement more than perCall (nor a mandate's amount);
// - every movement and instrument change matches its own confirmation the person accepted,
//   showing its amount, currency and destination;
// - nothing reaches the provider under a tool the operator did not list.
const LIMITS = { perCall: 50_000, perDay: 120_000 };
const LISTED = ['transfers.create', 'bills.pay', 'directDebits.charge', 'accounts.holds.create', 'cards.create', 'directDebits.update'];
const SECRET = 'operator passphrase 7';
export const STATS: { channel: string; world: World }[] = [];
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
async function answer(world: World, pick: number | Issued, reply: Answer, variant: Variant): Promise<void> {
  const issued: Issued | undefined = typeof pick === 'number' ? world.issued[pick % Math.max(1, world.issued.length)] : pick;
  if (!issued) return;
  let args = issued.args as Record<string, unknown>;
  let state = issued.state;
  if (variant === 'forged') state = forged(state);
  if (variant === 'other amount' && typeof args === 'object' && args !== null) args = { ...args, amount: typeof args.amount === 'number' ? args.amount + 1 : 1 };
  if (variant === 'other key' && typeof args === 'object' && args !== null) args = { ...args, idempotency_key: `other-${pick}` };
  // What the person accepts is the message they read, once; a forged state or a replay is the client's doing.
  // Opening a URL-mode link accepts nothing: the person decides on the page.
  if (reply === 'accept' && !issued.url && variant !== 'forged' && !issued.answered && issued.generation === world.generation) world.accepted.push({ tool: issued.tool, message: issued.message });
  if (variant !== 'forged') issued.answered = true;
  const run = world.call(issued.tool, args, { inputResponses: { confirm: answers[reply] }, requestState: state });
  if (!issued.url) return void (await run);
  // An opened page: the call waits for the decision there, in the background.
  const waiting = world.background(run);
  const link = world.links.find((l) => l.url === issued.url);
  if (link) link.waiting = waiting;
}

type Decision = 'confirm' | 'decline' | 'wrong passphrase' | 'get' | 'foreign origin' | 'no token';

/** A link, the newest first. */
const linkAt = (world: World, pick: number): PageLink | undefined => world.links[world.links.length - 1 - (pick % Math.max(1, world.links.length))];

/** The person at the page of a link: reads it, then answers (or only looks); a decision the page took ends the call waiting on it. */
async function decide(world: World, link: PageLink | undefined, decision: Decision, secret: boolean): Promise<void> {
  if (!link) return;
  const token = new URL(link.url).pathname.split('/').pop()!;
  const read = await world.visit(link.url, 'GET');
  if (decision === 'get') return;
  const fields: Record<string, string> = decision === 'no token' ? { decision: 'confirm' } : { token, decision: decision === 'decline' ? 'decline' : 'confirm' };
  if (secret) fields.passphrase = decision === 'wrong passphrase' ? `${SECRET}!` : SECRET;
  const answered = await world.visit(link.url, 'POST', fields, decision === 'foreign origin' ? 'http://evil.test' : undefined);
  if (answered.status !== 200) return;
  // Without a passphrase on the page, a "wrong passphrase" is a plain Confirm.
  const confirmed = decision === 'confirm' || (decision === 'wrong passphrase' && !secret);
  if (confirmed && link.generation === world.generation) world.accepted.push({ tool: link.tool, message: read.text });
  await link.waiting;
}

/** The hostile client posts Confirm itself on a URL-mode link it was given (it never knows the passphrase), and answers that it opened it. */
async function clientConfirms(world: World, pick: number): Promise<void> {
  const held = world.issued.filter((i) => i.url);
  const issued = held[held.length - 1 - (pick % Math.max(1, held.length))];
  if (!issued?.url) return;
  const answered = await world.visit(issued.url, 'POST', { token: new URL(issued.url).pathname.split('/').pop()!, decision: 'confirm', passphrase: 'guess-1234' });
  if (!issued.answered) await answer(world, issued, 'accept', 'as issued');
  if (answered.status === 200) await world.links.find((l) => l.url === issued.url)?.waiting;
}

class Call implements fc.AsyncCommand<object, World> {
  constructor(readonly call: { tool: string; args: unknown }) {}
  check = () => true;
  async run(_: object, world: World) {
    world.calls.push(this.call);
    await world.call(this.call.tool, this.call.args);
  }
  toString = () => `call(${this.call.tool}, ${JSON.stringify(this.call.args)})`;
}
class Repeat implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(_: object, world: World) {
    // The agent calls again with the same arguments (and key), as a refusal told it to (the newest first).
    const call = world.calls[world.calls.length - 1 - (this.pick % Math.max(1, world.calls.length))];
    if (call) await world.call(call.tool, call.args);
  }
  toString = () => `repeat(#${this.pick})`;
}
class PageDecision implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number, readonly decision: Decision) {}
  check = () => true;
  run = (_: object, world: World) => decide(world, linkAt(world, this.pick), this.decision, world.secret);
  toString = () => `page(#${this.pick}, ${this.decision})`;
}
class Person implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number, readonly decision: Decision) {}
  check = () => true;
  async run(_: object, world: World) {
    // The whole way round: the client opens a URL-mode link; the person decides on the page; told
    // to approve outside the chat, the agent calls again with the same arguments.
    const link = linkAt(world, this.pick);
    if (!link) return;
    if (link.issued && !link.issued.answered) await answer(world, link.issued, 'accept', 'as issued');
    await decide(world, link, this.decision, world.secret);
    if (!link.issued && link.call) await world.call(link.call.tool, link.call.args);
  }
  toString = () => `person(#${this.pick}, ${this.decision})`;
}
class ClientConfirms implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number) {}
  check = () => true;
  run = (_: object, world: World) => clientConfirms(world, this.pick);
  toString = () => `clientConfirms(#${this.pick})`;
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
/** The commands of a sequence: the page's (and the agent's repeats) only where the client reaches it (URL mode) or the operator gets its links. */
const commandsFor = (channel: Channel): fc.Arbitrary<Iterable<fc.AsyncCommand<object, World>>> => {
  const page = [
    fc.tuple(fc.nat({ max: 7 }), fc.constantFrom<Decision>('confirm', 'confirm', 'confirm', 'decline', 'wrong passphrase', 'get', 'foreign origin', 'no token')).map(([pick, d]) => new PageDecision(pick, d)),
    fc.nat({ max: 7 }).map((pick) => new ClientConfirms(pick)),
    fc.nat({ max: 7 }).map((pick) => new ClientConfirms(pick)),
    fc.nat({ max: 7 }).map((pick) => new Repeat(pick)),
    fc.tuple(fc.nat({ max: 3 }), fc.constantFrom<Decision>('confirm', 'confirm', 'confirm', 'decline', 'wrong passphrase', 'get', 'foreign origin', 'no token')).map(([pick, d]) => new Person(pick, d)),
    fc.tuple(fc.nat({ max: 3 }), fc.constantFrom<Decision>('confirm')).map(([pick, d]) => new Person(pick, d)),
  ];
  return fc.commands(
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
      ...(channel === 'form' ? [] : page),
    ],
    { maxCommands: 12 },
  );
};

/** Fails the command when anything the provider performed breaks a rule. */
function holds(world: World, limits = LIMITS): void {
  const found = violations(world, limits);
  if (found.length > 0) throw new Error(found.join('\n'));
}

/** The client's channel and whether the page asks for a passphrase: URL mode always has one (its client holds the link). */
const setting: fc.Arbitrary<{ channel: Channel; secret: boolean }> = fc.oneof(
  fc.constant({ channel: 'url' as const, secret: true }),
  fc.record({ channel: fc.constantFrom<Channel>('form', 'none'), secret: fc.boolean() }),
);

/**
 * The property over a server built with `options` (a broken variant may loosen them), in the
 * channel and with the passphrase `fixed` says (else any): runs a sequence, checking after every
 * command and once every waiting call has ended.
 */
export function agentProperty(options: typeof OPTIONS & { confirm?: 'none' } = OPTIONS, fixed?: { channel: Channel; secret: boolean }) {
  const run = (fixed ? fc.constant(fixed) : setting).chain((s) => fc.tuple(fc.constant(s), commandsFor(s.channel)));
  return fc.asyncProperty(fc.integer(), run, async (seed, [{ channel, secret }, cmds]) => {
    // Without confirmation there is no page to ask a passphrase on.
    const asked = secret && options.confirm !== 'none';
    const world = new World(seed, { ...options, ...(asked ? { confirmSecret: SECRET } : {}) }, LISTED, channel);
    world.secret = asked;
    if (process.env.AGENT_STATS) STATS.push({ channel, world });
    await world.restart();
    try {
      for (const command of cmds) {
        await command.run({}, world);
        holds(world);
      }
    } finally {
      await world.close();
    }
    holds(world);
  });
}

describe('an agent holding money and instrument tools, attacked by fc.commands', () => {
  it(`never moves more than the limits, nor anything the person did not accept, nor through an unlisted tool (${SEQUENCES} sequences)`, async () => {
    await fc.assert(agentProperty(), { numRuns: SEQUENCES });
  }, 900_000);

  it('each property can fail: broken variants of the server are caught within 400 sequences', async () => {
    // Each is usually caught within 50; 400 keeps a late catch (seen at 193) from failing the run.
    // No person asked: movements match no accepted confirmation.
    const unconfirmed = await fc.check(agentProperty({ ...OPTIONS, confirm: 'none' }), { numRuns: 400 });
    expect(unconfirmed.failed).toBe(true);
    expect(String(unconfirmed.errorInstance)).toMatch(/matches no confirmation/);
    // Limits looser than the operator's: the checker holds the operator's, the server enforces twice as much.
    const loose = await fc.check(agentProperty({ ...OPTIONS, limits: { perCall: 100_000, perDay: 240_000 } }, { channel: 'form', secret: false }), { numRuns: 400 });
    expect(loose.failed).toBe(true);
    expect(String(loose.errorInstance)).toMatch(/outside \(0, perCall\]|over perDay|over perCall/);
    // A page without a passphrase, reached through URL elicitation: the client that holds the link confirms it itself.
    const open = await fc.check(agentProperty(OPTIONS, { channel: 'url', secret: false }), { numRuns: 400 });
    expect(open.failed).toBe(true);
    expect(String(open.errorInstance)).toMatch(/matches no confirmation/);
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
