import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod/mini';
import { parseOrThrow } from '../core/validation.js';
import { type CustomerSession, isTransferPendingError } from '../index.js';
import { operations } from '../schemas.js';
import { PURPOSE } from './fields.js';
import { type ToolInput, toolInput, withoutAbsentNulls } from './inputs.js';
import { defOf } from './movement.js';
import { outputSchemaOf } from './outputs.js';
import { toolError, toolResult } from './results.js';

// `transfers_wait` (DESIGN "Agents", row "tools"): `waitForCompletion` as a tool. It answers within
// the 60 s the official clients give a request (at most 55 s, 30 s by default), says how long it has
// waited every 5 s when the request carries a progress token, and a transfer still pending at the
// deadline is a result saying so, not an error.

/** How long `transfers_wait` waits by default and at most (ms). */
export const WAIT_DEFAULT_MS = 30_000;
export const WAIT_MAX_MS = 55_000;
/** How often it says how long it has waited (ms). */
export const WAIT_PROGRESS_MS = 5_000;

/** `batch_reference` as transfers.retrieve takes it. */
const batchReference = defOf(operations['transfers.retrieve'].params).shape!.batch_reference! as z.ZodMiniType<string | number>;

const arguments_ = z.strictObject({
  batch_reference: batchReference,
  timeout: z.optional(z.int().check(z.gte(1), z.lte(WAIT_MAX_MS, { error: `must be at most ${WAIT_MAX_MS} ms (the clients give a call 60 s)` }))),
});

/** The input of `transfers_wait`. */
export const WAIT_INPUT: ToolInput = toolInput(arguments_ as unknown as z.ZodMiniType<Record<string, unknown>>, 'transfers_wait');

const retrieved = outputSchemaOf(operations['transfers.retrieve'].response, false).schema;

/** `transfers_wait` as tools/list shows it: the transfer's status, and `pending: true` at the deadline. */
export const WAIT_TOOL = {
  name: 'transfers_wait',
  title: 'transfers.waitForCompletion',
  description: PURPOSE.transfers_wait,
  outputSchema: { ...retrieved, properties: { ...(retrieved.properties as object), pending: { type: 'boolean', description: 'True when the transfer was still pending at the deadline: call transfers_wait again.' } } },
  annotations: { readOnlyHint: true, idempotentHint: true },
};

/** Progress notifications every 5 s while `run` runs, when the request asked for them. */
async function withProgress<T>(ctx: ServerContext, timeout: number, run: () => Promise<T>): Promise<T> {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return run();
  let waited = 0;
  const timer = setInterval(() => {
    waited += WAIT_PROGRESS_MS;
    const notification = { method: 'notifications/progress', params: { progressToken: token, progress: waited, total: timeout, message: `Still waiting for the transfer to settle (${waited / 1000} s of ${timeout / 1000} s)` } };
    ctx.mcpReq.notify(notification as never).catch(() => undefined);
  }, WAIT_PROGRESS_MS);
  try {
    return await run();
  } finally {
    clearInterval(timer);
  }
}

/** `transfers_wait`: the final status, or `{ status, pending: true }` at the deadline. */
export async function waitForTransfer(session: () => CustomerSession, args: unknown, ctx: ServerContext, nullMeansAbsent: boolean, secrets: readonly string[]): Promise<CallToolResult> {
  const tool = { name: 'transfers_wait', kind: 'read', wrapsArray: false } as const;
  try {
    const given = nullMeansAbsent ? withoutAbsentNulls(args, WAIT_INPUT.nullMeansAbsent) : args;
    const { batch_reference: reference, timeout = WAIT_DEFAULT_MS } = parseOrThrow(arguments_, given ?? {}, 'Invalid arguments for transfers_wait');
    const customer = session();
    try {
      return toolResult(tool, await withProgress(ctx, timeout, () => customer.transfers.waitForCompletion(reference, { timeout, signal: ctx.mcpReq.signal })), undefined, secrets);
    } catch (error) {
      if (!isTransferPendingError(error)) throw error;
      const last: Record<string, unknown> = { ...error.lastStatus };
      const status = typeof last.status === 'string' ? last.status : 'PENDING';
      const note = `Still ${status} after ${timeout / 1000} s: nothing failed and nothing was sent again. Call transfers_wait again with batch_reference ${JSON.stringify(String(reference))}.`;
      return toolResult(tool, { ...last, status, pending: true }, undefined, secrets, note);
    }
  } catch (error) {
    return toolError(error, secrets);
  }
}
