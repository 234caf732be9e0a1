import type { CallToolResult } from '@modelcontextprotocol/server';
import { isApiError, isOpenBankingError } from '../index.js';
import { IDEMPOTENCY_KEY, type OperationTool } from './catalog.js';

/** Card secret fields: the number keeps at most its last four characters, the rest never show. */
const REDACTED_FIELDS = new Set(['card_cvv2', 'card_default_pin', 'card_token']);

/** `data` with every card secret field masked, at any depth. */
export function maskCardSecrets(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(maskCardSecrets);
  if (typeof data !== 'object' || data === null) return data;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === null || value === undefined) out[key] = value;
    else if (key === 'card_number') out[key] = String(value).slice(-4);
    else if (REDACTED_FIELDS.has(key)) out[key] = '[redacted]';
    else out[key] = maskCardSecrets(value);
  }
  return out;
}

/** Replaces every known secret (the customer's tokens) wherever it appears in `text`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join('[redacted]');
  return out;
}

/** A tool's answer: the masked data as `structuredContent` (`{ items }` for an array) and as text. */
export function toolResult(tool: Pick<OperationTool, 'kind' | 'wrapsArray'>, data: unknown, idempotencyKey: string | undefined, secrets: readonly string[]): CallToolResult {
  const masked = maskCardSecrets(data);
  const structured: Record<string, unknown> = tool.wrapsArray || Array.isArray(masked) ? { items: masked } : { ...(masked as Record<string, unknown>) };
  if (tool.kind !== 'read' && idempotencyKey !== undefined) structured[IDEMPOTENCY_KEY] = idempotencyKey;
  return { content: [{ type: 'text', text: scrub(JSON.stringify(structured), secrets) }], structuredContent: structured };
}

/**
 * A refusal of the server itself (a limit, a missing confirmation, no customer yet), shaped like
 * the SDK's errors in tool results.
 */
export class ToolRefusal extends Error {
  constructor(
    override readonly name: 'NotConfirmed' | 'NotConnected' | 'LimitUnavailable',
    message: string,
  ) {
    super(message);
  }
}

/** What a tool error shows of an error: its class, message and the fields a person acts on. */
function details(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  if (!isOpenBankingError(error)) return out;
  const e = error as unknown as Record<string, unknown>;
  if (isApiError(error)) {
    out.status = error.status;
    if (error.code !== undefined) out.code = error.code;
    if (error.errorCode !== undefined) out.error_code = error.errorCode;
    if (error.errors.length > 0) out.errors = error.errors;
  }
  for (const [from, to] of [
    ['issues', 'issues'],
    ['retryAfter', 'retry_after_ms'],
    ['error', 'error'],
    ['errorDescription', 'error_description'],
    ['scopes', 'scopes'],
    ['reason', 'reason'],
    ['field', 'field'],
    ['lastStatus', 'last_status'],
  ] as const) {
    if (e[from] !== undefined) out[to] = e[from];
  }
  if (error.idempotencyKey !== undefined) out[IDEMPOTENCY_KEY] = error.idempotencyKey;
  return out;
}

/**
 * A failure as a tool error (`isError: true`): the error's class and message on the first line,
 * then its status, idempotency key and the rest as JSON. No `structuredContent`: clients check it
 * against the tool's `outputSchema`, which describes the success.
 */
export function toolError(error: unknown, secrets: readonly string[]): CallToolResult {
  const d = details(error);
  const text = `${String(d.name)}: ${String(d.message)}\n${JSON.stringify({ error: d })}`;
  return { content: [{ type: 'text', text: scrub(text, secrets) }], isError: true };
}
