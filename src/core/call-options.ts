import type { ValidationIssue } from '../errors/index.js';
import { checkNumber, checkTimeout, describeType, HEADER_VALUE, IssueList } from './checks.js';

/**
 * Options every API method takes as its last argument.
 * @group Client
 */
export interface RequestOptions {
  /** Your own idempotency key; by default a fresh UUID v4 per logical call. */
  idempotencyKey?: string;
  /** `connection-id` (or the `headerNames` option's name) for this call, overriding the client's default. */
  connectionId?: string;
  /** Aborts the call (no retry follows); rejects with `AbortError`. */
  signal?: AbortSignal;
  /** Per-attempt timeout (ms) for this call. */
  timeout?: number;
  /** Retries after the first attempt, for this call. */
  maxRetries?: number;
  /** Extra headers for this call. They cannot replace the SDK's authorization, signature or idempotency headers. */
  headers?: Record<string, string> | Headers;
  /**
   * Attributes for this call's span (`instrument(ob)` from `openbanking-ng/otel`), naming what in
   * your app made the call, e.g. `{ 'openbanking.mcp.tool': 'accounts_list' }`: string values, never
   * sent, never on metrics or events.
   */
  spanAttributes?: Readonly<Record<string, string>>;
}

/** Headers the SDK sets itself; a caller's `headers` option cannot replace them. */
export const PROTECTED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'signature', 'idempotency-key', 'content-type']);
const CALL_OPTION_KEYS = new Set(['idempotencyKey', 'connectionId', 'signal', 'timeout', 'maxRetries', 'headers', 'spanAttributes']);
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Checks per-call options; returns the problems. `idempotencyHeader`: the client's name for the key's header, protected too. */
export function checkCallOptions(options: RequestOptions | undefined, idempotencyHeader = 'idempotency-key'): ValidationIssue[] {
  if (options === undefined) return [];
  const issues = new IssueList();
  if (typeof options !== 'object' || options === null) {
    issues.add('', `request options must be an object, got ${describeType(options)}`, 'invalid_type');
    return issues.issues;
  }
  for (const key of Object.keys(options)) {
    if (!CALL_OPTION_KEYS.has(key)) issues.add(key, 'is not a request option', 'unrecognized_keys');
  }
  const key = options.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key))) {
    issues.add('idempotencyKey', 'must be 1–255 visible ASCII characters', 'invalid_format');
  }
  const conn = options.connectionId;
  if (conn !== undefined && (typeof conn !== 'string' || conn.length === 0 || !HEADER_VALUE.test(conn))) {
    issues.add('connectionId', 'must be a non-empty string without line breaks', 'invalid_format');
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) issues.add('signal', 'must be an AbortSignal', 'invalid_type');
  checkTimeout(issues, 'timeout', options.timeout, 0);
  checkNumber(issues, 'maxRetries', options.maxRetries, 0, { min: 0, integer: true });
  if (options.headers !== undefined) {
    if (typeof options.headers !== 'object' || options.headers === null) issues.add('headers', 'must be an object or Headers', 'invalid_type');
    else {
      const entries = options.headers instanceof Headers ? [...options.headers.entries()] : Object.entries(options.headers);
      for (const [name, value] of entries) {
        const lower = name.toLowerCase();
        if (!HEADER_NAME.test(name)) issues.add(`headers.${name}`, 'is not a valid header name', 'invalid_format');
        else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) issues.add(`headers.${name}`, 'must be a string without line breaks', 'invalid_format');
        else if (PROTECTED_HEADERS.has(lower) || lower === idempotencyHeader) issues.add(`headers.${name}`, 'is set by the SDK and cannot be overridden (use the idempotencyKey option for the key)', 'protected_header');
      }
    }
  }
  const attributes = options.spanAttributes;
  if (attributes !== undefined && (typeof attributes !== 'object' || attributes === null || Object.values(attributes).some((v) => typeof v !== 'string'))) {
    issues.add('spanAttributes', 'must be an object of strings', 'invalid_type');
  }
  return issues.issues;
}
