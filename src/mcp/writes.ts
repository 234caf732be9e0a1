import { type CallToolResult, type InputRequiredResult, isInputRequiredResult, type McpServer, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { neverWritten } from '../errors/base.js';
import { type CustomerSession, type OpenBanking, type RequestOptions, ValidationError } from '../index.js';
import { isConfirmed, type OperationTool } from './catalog.js';
import { confirmCall, type PageConfirm } from './channels.js';
import { type Confirmation, takeAnswer } from './confirm.js';
import { type CallInput, invoke, splitArguments } from './invoke.js';
import { inputDigest, type Ledger, toMinor } from './ledger.js';
import { confirmationLines, confirmationText, MANDATE_OPERATIONS, type Movement, movementOf } from './movement.js';
import type { McpLimits } from './options.js';
import { ToolRefusal, toolResult } from './results.js';

/** Counts the attempts the client sent under each idempotency key, from its `request` events. */
export class AttemptLog {
  readonly #counts = new Map<string, number>();

  constructor(ob: OpenBanking) {
    ob.on('request', (event) => {
      const count = this.#counts.get(event.idempotencyKey);
      if (count !== undefined) this.#counts.set(event.idempotencyKey, count + 1);
    });
  }

  /** Counts the attempts of the call under `key` while `run` runs; resolves with its outcome and the count. */
  async watch<T>(key: string, run: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown; attempts: number }> {
    this.#counts.set(key, 0);
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      return { ok: false, error, attempts: this.#counts.get(key) ?? 0 };
    } finally {
      this.#counts.delete(key);
    }
  }
}

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
  attempts: AttemptLog;
  codec: RequestStateCodec<Confirmation>;
  limits: McpLimits | undefined;
  confirm: 'elicit' | 'page' | 'none';
  /** The confirmation page, its passphrase and where operator links go. */
  pages: PageConfirm;
  options: RequestOptions;
  secrets: readonly string[];
}

const refused = (path: string, message: string, code: string) => new ValidationError('Refused by the limits of this server', [{ path, message: `${message}; nothing was sent`, code }]);

function keyReused(): ValidationError {
  return new ValidationError('Refused', [{ path: 'idempotency_key', message: 'was already sent with other arguments: use a new key for a new call, the same arguments to retry', code: 'idempotency_key_reused' }]);
}

/**
 * No attempt of the call left the process: the SDK refused it before sending, or its only attempt
 * met a refused connection. Any other failure may have reached the provider (DESIGN, "limits").
 */
const neverSent = (outcome: { error: unknown; attempts: number }): boolean => outcome.attempts === 0 || (outcome.attempts === 1 && neverWritten(outcome.error));

/** The per-call and daily limits, before asking and before sending; resolves to what was sent today (kobo). */
async function checkLimits(call: WriteCall, m: Movement, scope: string, day: string): Promise<number> {
  const { limits, ledger } = call;
  if (!limits || m.amount === undefined) return 0;
  if (toMinor(m.amount) > toMinor(limits.perCall)) {
    const what = MANDATE_OPERATIONS.has(m.operation) ? 'per debit of this mandate' : '';
    throw refused('amount', `${m.amount} NGN ${what ? `${what} ` : ''}is over the per-call limit (limits.perCall) of ${limits.perCall} NGN`, 'per_call_limit');
  }
  if (call.tool.kind !== 'money') return 0;
  const spent = await ledger.spent(scope, day);
  if (spent + toMinor(m.amount) > toMinor(limits.perDay)) throw overDay(m.amount, spent, limits, day);
  return spent;
}

function overDay(amount: number, spentMinor: number, limits: McpLimits, day: string): ValidationError {
  const spent = spentMinor / 100;
  return refused(
    'amount',
    `${amount} NGN would bring the total sent on ${day} (Lagos) to ${spent + amount} NGN, over the daily limit (limits.perDay) of ${limits.perDay} NGN (${spent} NGN already sent)`,
    'per_standinglimit',
  );
}

/**
 * A write tool: a repeated key with the same input is sent again as it is; a money or instrument
 * tool takes only what the person is shown, is held to the limits, is confirmed by the person
 * (once per confirmation, under the key it names), and a money tool counts against the day
 * before it is sent, its amount given back only when no attempt left the process.
 */
export async function runWrite(call: WriteCall): Promise<CallToolResult | InputRequiredResult> {
  const { tool, ledger, limits } = call;
  const confirmed = isConfirmed(tool.kind);
  // An answer is spent before the input is even read: one confirmation, one answer.
  const answer = confirmed && call.confirm !== 'none' ? await takeAnswer(call.ctx, call.codec, (nonce) => ledger.spendConfirmation(nonce)) : undefined;
  const movement = confirmed ? await movementOf(tool, call.args, call.target, call.options) : undefined;
  const input: CallInput = movement ? { params: movement.params, payload: movement.body, idempotencyKey: movement.idempotencyKey } : splitArguments(tool, call.args);
  const scope = await ledger.scope(call.customerId);
  const digest = await inputDigest(tool.name, movement?.bound ?? call.args);
  const send = async (key: string) => toolResult(tool, await invoke(call.target, tool, input, { ...call.options, idempotencyKey: key }), key, call.secrets);
  const replay = async (key: string) => {
    const record = await ledger.record(scope, key);
    if (record === undefined) return undefined;
    // The provider replays a key it has seen: nothing is asked, counted or moved twice.
    if (record.input !== digest) throw keyReused();
    return send(key);
  };

  let key = input.idempotencyKey;
  if (key !== undefined) {
    const replayed = await replay(key);
    if (replayed) return replayed;
  }
  const day = ledger.today();
  if (movement) {
    const spent = await checkLimits(call, movement, scope, day);
    if (call.confirm !== 'none') {
      const standing = limits && { date: day, spent: spent / 100, perCall: limits.perCall, perDay: limits.perDay };
      const { server, ctx, codec, pages } = call;
      const asking = { server, ctx, codec, ledger, pages, mode: call.confirm, tool: tool.name, answer, input: digest, key, scope };
      const confirmation = await confirmCall({ ...asking, lines: confirmationLines(movement, standing), text: confirmationText(movement, standing) });
      if (isInputRequiredResult(confirmation)) return confirmation;
      // The confirmation names the key: a second send under it is the provider's replay, never a new movement.
      key = confirmation.key;
      if (input.idempotencyKey === undefined) {
        const replayed = await replay(key);
        if (replayed) return replayed;
      }
    }
  }

  key ??= crypto.randomUUID();
  const record = { input: digest };
  if (!(await ledger.claim(scope, key, record))) {
    // Another call recorded this key first: the same input is a repeat, other input a reuse.
    return (await replay(key)) ?? Promise.reject(keyReused());
  }
  const minor = tool.kind === 'money' && movement?.amount !== undefined ? toMinor(movement.amount) : 0;
  if (minor > 0 && limits) {
    const reserved = await ledger.reserve(scope, day, minor, toMinor(limits.perDay));
    if (!reserved.added) {
      await ledger.unclaim(scope, key, record);
      throw overDay(movement!.amount!, reserved.total, limits, day);
    }
  }
  const sentKey = key;
  const outcome = await call.attempts.watch(sentKey, () => send(sentKey));
  if (outcome.ok) return outcome.value;
  if (neverSent(outcome)) {
    if (minor > 0) await ledger.release(scope, day, minor);
    await ledger.unclaim(scope, sentKey, record);
  }
  throw outcome.error;
}

