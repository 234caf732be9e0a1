import { type CustomerSession, type OpenBanking, type RequestOptions, ValidationError, type ValidationIssue } from '../index.js';
import type { OperationTool } from './catalog.js';
import { IDEMPOTENCY_KEY, KEY_PATTERN } from './movement.js';

/** A tool's arguments as the operation's method takes them. */
export interface CallInput {
  /** The path parameters, in the method's order. */
  params: unknown[];
  /** The body or the query (undefined: none given, or the operation takes none). */
  payload: Record<string, unknown> | undefined;
  /** The `idempotency_key` argument of a write tool. */
  idempotencyKey: string | undefined;
}



/**
 * Splits arguments into path parameters, query or body, and the idempotency key. What no part of
 * the operation takes is refused here; everything else is checked by the client before sending.
 */
export function splitArguments(tool: OperationTool, args: Record<string, unknown>): CallInput {
  const issues: ValidationIssue[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args ?? {})) if (!tool.params.includes(key) && key !== IDEMPOTENCY_KEY) rest[key] = value;
  let idempotencyKey: string | undefined;
  if (tool.kind !== 'read' && args?.[IDEMPOTENCY_KEY] !== undefined) {
    const key = args[IDEMPOTENCY_KEY];
    if (typeof key === 'string' && KEY_PATTERN.test(key)) idempotencyKey = key;
    else issues.push({ path: IDEMPOTENCY_KEY, message: 'must be 1–255 visible ASCII characters', code: 'invalid_format' });
  } else if (tool.kind === 'read' && IDEMPOTENCY_KEY in (args ?? {})) rest[IDEMPOTENCY_KEY] = args[IDEMPOTENCY_KEY];
  if (tool.input === 'none') for (const key of Object.keys(rest)) issues.push({ path: key, message: 'is not a known field', code: 'unrecognized_keys' });
  if (tool.input === 'query') for (const key of Object.keys(rest)) if (!tool.query.has(key)) issues.push({ path: key, message: 'is not a known field', code: 'unrecognized_keys' });
  if (issues.length > 0) throw new ValidationError(`Invalid arguments for ${tool.name}`, issues);
  // A query is always given (maybe empty), so that the client names each missing member.
  const payload = tool.input === 'none' ? undefined : rest;
  return { params: tool.params.map((name) => args?.[name]), payload, idempotencyKey };
}

type Method = (...args: unknown[]) => PromiseLike<unknown>;

/** Calls the operation's method on the customer session or the client: `session.accounts.balances.retrieve(…)`. */
export async function invoke(target: OpenBanking | CustomerSession, tool: OperationTool, input: CallInput, options: RequestOptions): Promise<unknown> {
  const path = tool.operation.split('.');
  let owner: unknown = target;
  for (const part of path.slice(0, -1)) owner = (owner as Record<string, unknown>)[part];
  const method = (owner as Record<string, Method>)[path.at(-1)!]!;
  const args = tool.input === 'none' ? [...input.params, options] : [...input.params, input.payload, options];
  return await method.apply(owner, args);
}
