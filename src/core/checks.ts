import { ValidationError, type ValidationIssue } from '../errors/index.js';
import { isLoopbackHost } from './loopback.js';
import { MAX_TIMER_MS } from './retry-timing.js';

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects option problems so the constructor reports all of them at once. */
export class IssueList {
  readonly issues: ValidationIssue[] = [];
  add(path: string, message: string, code = 'invalid_option'): void {
    this.issues.push({ path, message, code });
  }
  throwIfAny(what: string): void {
    if (this.issues.length > 0) throw new ValidationError(what, this.issues);
  }
}

/** Checks a string option; returns it trimmed of nothing (values are used as given). */
export function checkString(issues: IssueList, path: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) issues.add(path, 'is required', 'missing');
    return undefined;
  }
  if (typeof value !== 'string') {
    issues.add(path, `must be a string, got ${describeType(value)}`, 'invalid_type');
    return undefined;
  }
  if (value.trim() === '') {
    issues.add(path, 'must not be empty', 'too_small');
    return undefined;
  }
  if (/[\r\n\0]/.test(value)) {
    issues.add(path, 'must not contain line breaks or NUL characters', 'invalid_format');
    return undefined;
  }
  return value;
}

/** Checks a number option: finite, at least `min`, optionally an integer. */
export function checkNumber(issues: IssueList, path: string, value: unknown, fallback: number, opts: { min: number; integer?: boolean; allowInfinity?: boolean }): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (Number.isFinite(value) || (opts.allowInfinity === true && value === Infinity)) &&
    value >= opts.min &&
    (!opts.integer || Number.isInteger(value) || value === Infinity);
  if (!ok) {
    const kind = opts.integer ? 'an integer' : 'a number';
    issues.add(path, `must be ${kind} ≥ ${opts.min}, got ${typeof value === 'number' ? String(value) : describeType(value)}`, 'invalid_value');
    return fallback;
  }
  return value as number;
}

/**
 * Checks a timeout in milliseconds: at least 1 and at most {@link MAX_TIMER_MS}, since a timer
 * asked to wait longer fires after 1 ms and every attempt would time out at once.
 */
export function checkTimeout(issues: IssueList, path: string, value: unknown, fallback: number): number {
  const timeout = checkNumber(issues, path, value, fallback, { min: 1 });
  if (timeout > MAX_TIMER_MS) {
    issues.add(path, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days; a timer cannot wait longer), got ${timeout}`, 'invalid_value');
    return fallback;
  }
  // Whole milliseconds: AbortSignal.timeout (token requests, registration) refuses a fraction with a
  // RangeError, and timers do not resolve below 1 ms anyway.
  return Math.ceil(timeout);
}

/** Characters a header value may carry (Latin-1 without control characters other than tab). */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Checks a base or identity URL: absolute, http(s), https unless the host is loopback; no trailing slash. */
export function checkUrl(issues: IssueList, path: string, value: unknown): string | undefined {
  const text = checkString(issues, path, value, false);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    issues.add(path, `must be an absolute URL with a scheme, e.g. https://api.example.com (got "${text}")`, 'invalid_url');
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    issues.add(path, `must use https:// (got ${url.protocol}//)`, 'invalid_url');
    return undefined;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    issues.add(path, `must use https:// — the API requires TLS; plain http:// is allowed only for loopback hosts (got ${url.host})`, 'insecure_url');
    return undefined;
  }
  if (url.username || url.password) {
    issues.add(path, 'must not contain credentials', 'invalid_url');
    return undefined;
  }
  if (url.search || url.hash) {
    issues.add(path, 'must not contain a query or a fragment', 'invalid_url');
    return undefined;
  }
  return url.href.replace(/\/+$/, '');
}

/** A short name for a value's type, for messages (never the value itself). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
