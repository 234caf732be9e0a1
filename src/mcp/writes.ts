import type { CallToolResult, InputRequiredResult, McpServer, RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import { type CustomerSession, isCipherError, isOAuthError, isValidationError, type OpenBanking, type RequestOptions, ValidationError } from '../index.js';
import type { OperationTool } from './catalog.js';
import { answerOf, askPerson, canAskPerson, type Confirmation, confirmationMessage, type MoneyMovement } from './confirm.js';
import { type CallInput, checkedBody, invoke, splitArguments } from './invoke.js';
import { inputDigest, type Ledger, toMinor } from './ledger.js';
import type { McpLimits } from './options.js';
import { ToolRefusal, toolResult } from './results.js';

/** What a write tool's call works with. */
export interface WriteCall {
  server: McpServer;
  ctx: ServerContext;
  tool: OperationTool;
  args: Record<string, unknown>;
  target: OpenBanking | CustomerSession;
  /** The customer session's `id`: the scope of the day totals and keys (the server's without one). */
  customerId: string | undefined;
  ledger: Ledger;
  codec: RequestStateCodec<Confirmation>;
  limits: McpLimits | undefined;
  confirm: 'elicit' | 'none';
  options: RequestOptions;
  secrets: readonly string[];
}

type Args = { params: Record<string, unknown>; body: Record<string, unknown> };
const text = (value: unknown): string => String(value ?? '?');

/** How each money tool's movement reads to the person: source, destination, narration. */
const MOVEMENTS: Record<string, (a: Args) => Pick<MoneyMovement, 'source' | 'destination' | 'narration'>> = {
  'transfers.create': ({ body: b }) => ({
    source: `account ${text(b.source_account_number)}`,
    destination: `account ${text(b.destination_account_number)} at bank ${text(b.destination_bank_code)}`,
    narration: b.narration as string | undefined,
  }),
  'bills.pay': ({ params: p, body: b }) => ({
    source: `account ${text(b.source_account_number)}`,
    destination: `biller ${text(p.biller_id)} (category ${text(p.category_id)}), bill reference ${text(p.bill_reference)}`,
    narration: undefined,
  }),
  'directDebits.charge': ({ params: p, body: b }) => ({
    source: `the account that mandate ${text(p.mandate_id)} debits`,
    destination: `the beneficiary of mandate ${text(p.mandate_id)}`,
    narration: b.narration as string | undefined,
  }),
  'accounts.holds.create': ({ params: p, body: b }) => ({
    source: `account ${text(p.account_number)} (held there, not moved)`,
    destination: `hold ${text(b.reference)} until ${text(b.hold_end_timestamp)}`,
    narration: b.narration as string | undefined,
  }),
};

function movementOf(tool: OperationTool, input: CallInput, body: Record<string, unknown>): MoneyMovement {
  const params = Object.fromEntries(tool.params.map((name, i) => [name, input.params[i]]));
  const described = MOVEMENTS[tool.operation]!({ params, body });
  return { tool: tool.name, amount: body.amount as number, currency: typeof body.currency === 'string' ? body.currency : 'NGN', ...described };
}

const over = (path: string, message: string, code: string) => new ValidationError('Refused by the limits of this server', [{ path, message: `${message}; nothing was sent`, code }]);

function keyReused(): ValidationError {
  return new ValidationError('Refused', [{ path: 'idempotency_key', message: 'was already sent with other arguments: use a new key for a new call, the same arguments to retry', code: 'idempotency_key_reused' }]);
}

/** A failure that proves nothing left the process: the amount and the key are given back. */
const neverSent = (error: unknown): boolean => isValidationError(error) || isOAuthError(error) || isCipherError(error);

/**
 * A write tool: a repeated key with the same input is sent again as it is; a money tool is held to
 * the limits, confirmed by the person, and counted against the day before it is sent.
 */
export async function runWrite(call: WriteCall): Promise<CallToolResult | InputRequiredResult> {
  const { tool, ledger, limits } = call;
  const input = splitArguments(tool, call.args);
  const scope = await ledger.scope(call.customerId);
  const digest = await inputDigest(tool.name, call.args);
  const send = async (key: string) => toolResult(tool, await invoke(call.target, tool, input, { ...call.options, idempotencyKey: key }), key, call.secrets);

  if (input.idempotencyKey !== undefined) {
    const record = await ledger.record(scope, input.idempotencyKey);
    // The provider replays a key it has seen: nothing is asked, counted or moved twice.
    if (record !== undefined) {
      if (record.input !== digest) throw keyReused();
      return send(input.idempotencyKey);
    }
  }

  let minor = 0;
  const day = ledger.today();
  if (tool.kind === 'money' && limits) {
    const movement = movementOf(tool, input, checkedBody(tool, input));
    minor = toMinor(movement.amount);
    if (minor > toMinor(limits.perCall)) throw over('amount', `${movement.amount} ${movement.currency} is over the per-call limit (limits.perCall) of ${limits.perCall} ${movement.currency}`, 'per_call_limit');
    const spent = await ledger.spent(scope, day);
    if (spent + minor > toMinor(limits.perDay)) throw overDay(movement, spent, limits, day);
    if (call.confirm === 'elicit' && answerOf(call.ctx, digest) === 'ask') {
      if (!canAskPerson(call.server, call.ctx)) {
        throw new ToolRefusal('NotConfirmed', 'This MCP client cannot ask the person to confirm (it declared no form elicitation capability): nothing was sent. Use a client that supports elicitation.');
      }
      return askPerson(confirmationMessage(movement, limits, spent / 100), call.codec, digest);
    }
  }

  const key = input.idempotencyKey ?? crypto.randomUUID();
  const record = { input: digest };
  if (!(await ledger.claim(scope, key, record))) {
    // Another call recorded this key first: the same input is a repeat, other input a reuse.
    if ((await ledger.record(scope, key))?.input !== digest) throw keyReused();
    return send(key);
  }
  if (minor > 0 && limits) {
    const reserved = await ledger.reserve(scope, day, minor, toMinor(limits.perDay));
    if (!reserved.added) {
      await ledger.unclaim(scope, key, record);
      throw overDay(movementOf(tool, input, input.payload ?? {}), reserved.total, limits, day);
    }
  }
  try {
    return await send(key);
  } catch (error) {
    if (neverSent(error)) {
      if (minor > 0) await ledger.release(scope, day, minor);
      await ledger.unclaim(scope, key, record);
    }
    throw error;
  }
}

function overDay(m: MoneyMovement, spentMinor: number, limits: McpLimits, day: string): ValidationError {
  const spent = spentMinor / 100;
  return over(
    'amount',
    `${m.amount} ${m.currency} would bring the total sent on ${day} (Lagos) to ${spent + m.amount} ${m.currency}, over the daily limit (limits.perDay) of ${limits.perDay} ${m.currency} (${spent} ${m.currency} already sent)`,
    'per_day_limit',
  );
}
