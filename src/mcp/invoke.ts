import type { CustomerSession, OpenBanking, RequestOptions } from '../index.js';
import type { OperationTool } from './catalog.js';
import { IDEMPOTENCY_KEY } from './fields.js';
import { checkArguments } from './inputs.js';

/** A tool's arguments as the operation's method takes them. */
export interface CallInput {
  /** The path parameters, in the method's order. */
  params: unknown[];
  /** The body or the query (undefined: the operation takes neither). */
  payload: Record<string, unknown> | undefined;
  /** The `idempotency_key` argument of a write tool. */
  idempotencyKey: string | undefined;
}

/**
 * Checks the arguments once against the tool's schema (a `ValidationError` naming every bad one,
 * nothing sent), then splits them into path parameters, query or body, and the idempotency key.
 */
export function splitArguments(tool: OperationTool, args: Record<string, unknown>): CallInput {
  const { [IDEMPOTENCY_KEY]: key, ...checked } = checkArguments(tool, args);
  const payload = Object.fromEntries(Object.entries(checked).filter(([name]) => !tool.params.includes(name)));
  // A query is always given (maybe empty), as the method takes it.
  return { params: tool.params.map((name) => checked[name]), payload: tool.takes === 'none' ? undefined : payload, idempotencyKey: key as string | undefined };
}

type Method = (...args: unknown[]) => PromiseLike<unknown>;

/** Calls the operation's method on the customer session or the client: `session.accounts.balances.retrieve(…)`. */
export async function invoke(target: OpenBanking | CustomerSession, tool: OperationTool, input: CallInput, options: RequestOptions): Promise<unknown> {
  const path = tool.operation.split('.');
  let owner: unknown = target;
  for (const part of path.slice(0, -1)) owner = (owner as Record<string, unknown>)[part];
  const method = (owner as Record<string, Method>)[path.at(-1)!]!;
  const args = tool.takes === 'none' ? [...input.params, options] : [...input.params, input.payload, options];
  return await method.apply(owner, args);
}
