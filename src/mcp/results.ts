import type { CallToolResult } from '@modelcontextprotocol/server';
import { isSecretField, maskText, REDACT_DEPTH } from '../errors/redact.js';
import { isApiError, isOpenBankingError } from '../index.js';
import type { JsonSchema } from '../schemas.js';
import { IDEMPOTENCY_KEY } from './fields.js';
import { summaryOf } from './summary.js';

// What results show (DESIGN "Agents", row "results"): data masked by the SDK's own redaction rule,
// in `structuredContent` and text alike; a card number and the customer's BVN and NIN keep their
// last four characters, so a person can still tell one from another.

/** Written in place of a secret value. */
const MASKED = '[redacted]';

/** The words of a normalized field name. */
const wordsOf = (name: string): string[] =>
  name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);

/** How a field of this name is shown: whole, its last four digits, its last four characters, or not at all. */
function maskOf(name: string): 'keep' | 'last4digits' | 'last4' | 'hide' {
  const words = wordsOf(name);
  if (words.includes('bvn') || words.includes('nin')) return 'last4digits';
  if (name.toLowerCase().replace(/[\s_.-]+/g, '').includes('cardnumber') || words.includes('pan')) return 'last4';
  // Magnetic-stripe track data carries the whole card number.
  if (words.some((word) => /^track[12]$/.test(word))) return 'hide';
  return isSecretField(name) ? 'hide' : 'keep';
}

/** `data` masked for a model to read: secret fields by name at any depth, and every string by the SDK's text rule. */
export function maskResult(data: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (typeof data === 'string') return scrub(maskText(data), secrets);
  if (typeof data !== 'object' || data === null) return data;
  if (depth >= REDACT_DEPTH) return MASKED;
  if (Array.isArray(data)) return data.map((item) => maskResult(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const mask = value === null || value === undefined ? 'keep' : maskOf(key);
    let shown: unknown;
    if (mask === 'keep') shown = maskResult(value, secrets, depth + 1);
    else if (mask === 'hide' || typeof value === 'object') shown = MASKED;
    else shown = mask === 'last4' ? String(value).slice(-4) : String(value).replace(/\D/g, '').slice(-4);
    Object.defineProperty(out, key, { value: shown, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** An output schema with every masked member declared as the string it is shown as (null where it may be null). */
export function maskedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(maskedSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'properties' || typeof value !== 'object' || value === null) {
      out[key] = maskedSchema(value);
      continue;
    }
    out.properties = Object.fromEntries(
      Object.entries(value as Record<string, JsonSchema>).map(([name, member]) => {
        if (maskOf(name) === 'keep') return [name, maskedSchema(member)];
        const nullable = JSON.stringify(member).includes('"null"');
        const string = { type: 'string', description: 'Masked: shown in part or as [redacted].' };
        return [name, nullable ? { anyOf: [string, { type: 'null' }] } : string];
      }),
    );
  }
  return out;
}

/** Replaces every known secret (the customer's tokens) wherever it appears in `text`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join(MASKED);
  return out;
}

/**
 * A tool's answer: the masked data as `structuredContent` (`{ items }` for an array), and as text
 * its summary (every value the next call may need, in fewer words), after `note` when given.
 */
export function toolResult(tool: { kind: string; wrapsArray: boolean }, data: unknown, idempotencyKey: string | undefined, secrets: readonly string[], note?: string): CallToolResult {
  const masked = maskResult(data, secrets);
  const structured: Record<string, unknown> = tool.wrapsArray || Array.isArray(masked) ? { items: masked } : { ...(masked as Record<string, unknown>) };
  if (tool.kind !== 'read' && idempotencyKey !== undefined) structured[IDEMPOTENCY_KEY] = idempotencyKey;
  const text = note === undefined ? summaryOf(structured) : `${note}\n${summaryOf(structured)}`;
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * A refusal of the server itself (a limit, a missing confirmation, no customer yet), shaped like
 * the SDK's errors in tool results.
 */
export class ToolRefusal extends Error {
  constructor(
    override readonly name: 'NotConfirmed' | 'NotConnected' | 'NotAllowed' | 'LimitUnavailable',
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
