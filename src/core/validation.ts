import { ValidationError, type ValidationIssue } from '../errors/base.js';
import { MAX_TIMER_MS } from './retry-timing.js';
import { isLoopbackHost } from './config.js';
import * as z from 'zod/mini';

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Characters a header value may carry (Latin-1 without control characters other than tab). */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A rule zod has no check for, reported under the SDK's own issue code; the schema's later checks are skipped. */
export function rule<T>(ok: (value: T) => boolean, error: string | ((issue: { input: T }) => string), code: string, path?: PropertyKey[]) {
  return z.refine<T>(ok, { error: error as string, params: { code }, path, abort: true });
}

/** A string option: not blank, no line breaks or NUL (values are used as given, not trimmed). */
export const optionText = () =>
  z.string().check(rule((v: string) => v.trim() !== '', 'must not be empty', 'too_small'), rule((v: string) => !/[\r\n\0]/.test(v), 'must not contain line breaks or NUL characters', 'invalid_format'));

/** A string option sent as a header value. */
export const headerText = () => optionText().check(rule((v: string) => HEADER_VALUE.test(v), 'must contain only characters a header can carry (Latin-1, no control characters)', 'invalid_format'));

/** What is wrong with a base or identity URL, as [message, code]. */
function urlProblem(text: string): [string, string] | undefined {
  if (!URL.canParse(text)) return [`must be an absolute URL with a scheme, e.g. https://api.example.com (got "${text}")`, 'invalid_url'];
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return [`must use https:// (got ${url.protocol}//)`, 'invalid_url'];
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return [`must use https:// — the API requires TLS; plain http:// is allowed only for loopback hosts (got ${url.host})`, 'insecure_url'];
  if (url.username || url.password) return ['must not contain credentials', 'invalid_url'];
  if (url.search || url.hash) return ['must not contain a query or a fragment', 'invalid_url'];
  return undefined;
}

/** A base or identity URL: absolute, http(s), https unless the host is loopback; read without its trailing slash. */
export const urlOption = () =>
  z.pipe(
    optionText().check(
      z.superRefine((text: string, ctx) => {
        const problem = urlProblem(text);
        if (problem) ctx.addIssue({ code: 'custom', input: text, message: problem[0], params: { code: problem[1] } });
      }),
    ),
    z.transform((text: string) => new URL(text).href.replace(/\/+$/, '')),
  );

/** A path on a host: starts with one `/`. */
export const pathOption = () => z.string().check(rule((v: string) => v.startsWith('/') && !v.startsWith('//'), 'must be a path starting with /', 'invalid_format'));

/** A function option. */
export const functionOption = <F>() => z.custom<F>((v) => typeof v === 'function', { error: (issue) => `must be a function, got ${describeType(issue.input)}`, params: { code: 'invalid_type' } });

/** An object option with the given methods (a store, a logger, a cipher); `error` says what it must be. */
export const methodsOption = <T>(methods: readonly string[], error: string) =>
  z.custom<T>((v) => typeof v === 'object' && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'), { error, params: { code: 'invalid_type' } });

/** A timeout option in ms: at least 1, at most {@link MAX_TIMER_MS} (a timer asked to wait longer fires after 1 ms). */
export const timeoutMs = () => z.number().check(z.gte(1), z.lte(MAX_TIMER_MS, { error: `must be at most ${MAX_TIMER_MS} ms (about 24.8 days; a timer cannot wait longer)` }));

/**
 * A timeout read in whole milliseconds: AbortSignal.timeout (token requests, registration) refuses a
 * fraction with a RangeError, and timers do not resolve below 1 ms anyway.
 */
export const wholeTimeoutMs = () => z.pipe(timeoutMs(), z.transform(Math.ceil));

/** A `signal` option. */
export const abortSignal = () => z.instanceof(AbortSignal, { error: 'must be an AbortSignal' });

/** `value` through `schema`: its parsed output, or the SDK's issues (paths under `prefix`). */
export function parse<T>(schema: z.ZodMiniType<T>, value: unknown, prefix = ''): { data: T; issues: [] } | { data: undefined; issues: ValidationIssue[] } {
  const result = schema.safeParse(value); // the schema's own method: users (and tests) can watch it run
  return result.success ? { data: result.data, issues: [] } : { data: undefined, issues: toIssues(result.error, value, prefix) };
}

/** `value` through `schema`, or one {@link ValidationError} titled `what` listing every problem. */
export function parseOrThrow<T>(schema: z.ZodMiniType<T>, value: unknown, what: string, prefix = ''): T {
  const { data, issues } = parse(schema, value, prefix);
  if (issues.length > 0) throw new ValidationError(what, issues);
  return data as T;
}

/** A name as a message quotes it: a string in quotes, anything else by its type (`String()` throws on some objects). */
export function quoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : `a value of type ${describeType(value)}`;
}

/** A short name for a value's type, for messages (never the value itself). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

type RawIssue = z.core.$ZodIssue;

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function typeName(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return describeType(value);
}

/** A zod type name as a noun with its article: `a string`, `an array`, `a whole number`. */
function noun(type: string): string {
  const name = type === 'int' ? 'whole number' : type === 'record' ? 'object' : type;
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** The JSON types a value was expected to have: an `invalid_type` issue's, or every branch's of a union that failed on type alone. */
function expectedOf(issue: RawIssue): string | undefined {
  if (issue.code === 'invalid_type') return noun(issue.expected);
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return undefined;
  const types: string[] = [];
  for (const branch of issue.errors) {
    const only = branch.length === 1 ? branch[0] : undefined;
    if (only?.code !== 'invalid_type' || only.path.length > 0) return undefined;
    types.push(noun(only.expected));
  }
  return types.join(' or ');
}

function describe(issue: RawIssue, given: unknown, expected: string | undefined): string {
  if (expected !== undefined && given === undefined) return 'is required';
  if (issue.message && issue.message !== 'Invalid input') return issue.message; // the schema's own words
  if (expected === 'a whole number' && typeof given === 'number') return 'must be a whole number';
  if (expected !== undefined) return issue.code === 'invalid_union' ? `must be ${expected}` : `must be ${expected}, got ${typeName(given)}`;
  switch (issue.code) {
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string') return `must have at least ${String(issue.minimum)} character(s)`;
      return issue.inclusive === false ? `must be greater than ${String(issue.minimum)}` : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string' ? `must have at most ${String(issue.maximum)} characters` : `must be at most ${String(issue.maximum)}`;
    default:
      return 'is invalid';
  }
}

/** The one branch of a failed union that got past the type check (an object with a bad field), if only one did. */
function deeperBranch(issue: RawIssue): RawIssue[] | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const deeper = issue.errors.filter((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0));
  return deeper.length === 1 ? deeper[0] : undefined;
}

/**
 * zod issues → the SDK's issues: dotted paths, a message in words that never repeats the value,
 * zod's code (or a {@link rule}'s own); one issue per unknown key; a record's bad key and a union's
 * one near miss reported as their own issues.
 */
export function toIssues(error: z.core.$ZodError, input: unknown, prefix = ''): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const join = (path: readonly PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join('.');
  const collect = (issues: readonly RawIssue[], base: readonly PropertyKey[]) => {
    for (const issue of issues) {
      const path = [...base, ...issue.path];
      const inner = issue.code === 'invalid_key' ? issue.issues : deeperBranch(issue);
      if (inner) collect(inner, path);
      else if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) out.push({ path: join([...path, key]), message: 'is not a known field', code: issue.code });
      } else {
        const expected = expectedOf(issue);
        const given = expected === undefined ? null : valueAt(input, path);
        const own = issue.code === 'custom' ? (issue.params?.code as string | undefined) : undefined;
        out.push({ path: join(path), message: describe(issue, given, expected), code: own ?? (given === undefined ? 'missing' : expected !== undefined ? 'invalid_type' : issue.code) });
      }
    }
  };
  collect(error.issues, []);
  return out;
}

/** In Unicode mode a surrogate pair is one code point, so only an unpaired surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

const issue = (path: readonly string[], message: string): ValidationIssue => ({ path: path.join('.'), message, code: 'not_serialisable' });

/** Built-ins that `JSON.stringify` turns into `{}` (or refuses), silently dropping what they hold. */
function opaqueKind(value: object): string | undefined {
  if (value instanceof Map) return 'a Map';
  if (value instanceof Set) return 'a Set';
  if (value instanceof WeakMap || value instanceof WeakSet) return 'a weak collection';
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return 'binary data';
  if (value instanceof RegExp) return 'a RegExp';
  if (value instanceof Promise) return 'a Promise';
  if (value instanceof Error) return 'an Error';
  if (value instanceof BigInt) return 'a BigInt';
  return undefined;
}

/** Walks a body once; with `plain`, an object that is not plain is an issue of its own and is not entered. */
function walk(value: unknown, path: string[], seen: Set<object>, out: ValidationIssue[], plain: boolean): void {
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) out.push(issue(path, 'contains an unpaired UTF-16 surrogate, which UTF-8 cannot carry'));
      return;
    case 'number':
      if (!Number.isFinite(value)) out.push(issue(path, 'must be a finite number'));
      return;
    case 'bigint':
    case 'function':
    case 'symbol':
      out.push(issue(path, `cannot be sent as JSON (${typeof value})`));
      return;
    case 'object': {
      if (value === null) return;
      if (seen.has(value)) {
        out.push(issue(path, 'is a circular reference'));
        return;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (plain && !Array.isArray(value) && proto !== Object.prototype && proto !== null) {
        out.push({ path: path.join('.'), message: 'must be a plain object', code: 'invalid_type' });
        return;
      }
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) out.push(issue(path, 'is an invalid Date'));
        return;
      }
      if (value instanceof String || value instanceof Number || value instanceof Boolean) return walk(value.valueOf(), path, seen, out, plain);
      const opaque = opaqueKind(value);
      if (opaque) {
        out.push(issue(path, `is ${opaque}, which JSON cannot carry (convert it to a plain object, array or string)`));
        return;
      }
      // An object that serialises itself is taken at its word.
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return;
      seen.add(value);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path.push(String(i));
          const item: unknown = value[i];
          if (!(i in value) || item === undefined) out.push(issue(path, 'is missing (JSON would send null in its place)'));
          else walk(item, path, seen, out, plain);
          path.pop();
        }
      } else {
        for (const key of Object.keys(value)) {
          const item = (value as Record<string, unknown>)[key];
          path.push(key);
          if (LONE_SURROGATE.test(key)) out.push(issue(path, 'is a key with an unpaired UTF-16 surrogate, which UTF-8 cannot carry'));
          // `undefined` members are left out of JSON: that is how an optional field is omitted.
          else if (item !== undefined) walk(item, path, seen, out, plain);
          path.pop();
        }
      }
      seen.delete(value);
    }
  }
}

/**
 * What keeps a request body from reaching the server as JSON exactly as given, in one walk:
 * BigInt, functions, symbols, non-finite numbers, invalid dates, cycles, holes or `undefined` in
 * arrays (JSON sends `null`), Maps, Sets, binary data and other built-ins JSON turns into `{}`,
 * strings or keys with an unpaired surrogate (UTF-8 cannot encode one), code `not_serialisable`.
 * With `plain` (a typed body: zod takes any object where an object schema stands and copies its
 * own keys, so a Date or a class instance would go out as `{}`), every object that is not plain is
 * an `invalid_type` issue. Issues name the path, never the value.
 */
export function bodyIssues(value: unknown, plain: boolean): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  walk(value, [], new Set(), out, plain);
  return out;
}

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
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The `headers` request option: each entry a valid header that the SDK does not set itself. */
function headersOption(idempotencyHeader: string) {
  const headers = z.custom<Record<string, string> | Headers>((value) => typeof value === 'object' && value !== null, { error: 'must be an object or Headers', params: { code: 'invalid_type' } });
  return headers.check(
    z.superRefine((value, ctx) => {
      for (const [name, text] of value instanceof Headers ? value.entries() : Object.entries(value)) {
        const lower = name.toLowerCase();
        const problem = !HEADER_NAME.test(name)
          ? ['is not a valid header name', 'invalid_format']
          : typeof text !== 'string' || !HEADER_VALUE.test(text)
            ? ['must be a string without line breaks', 'invalid_format']
            : PROTECTED_HEADERS.has(lower) || lower === idempotencyHeader
              ? ['is set by the SDK and cannot be overridden (use the idempotencyKey option for the key)', 'protected_header']
              : undefined;
        if (problem) ctx.addIssue({ code: 'custom', input: text, path: [name], message: problem[0], params: { code: problem[1] } });
      }
    }),
  );
}

/** The request options, per name of the idempotency header (which a caller's `headers` may not set either). */
function callOptionsSchema(idempotencyHeader: string) {
  return z.strictObject({
    idempotencyKey: z.optional(z.string().check(z.regex(/^[\x21-\x7e]{1,255}$/, { error: 'must be 1–255 visible ASCII characters' }))),
    connectionId: z.optional(z.string().check(z.minLength(1), z.regex(HEADER_VALUE, { error: 'must be a non-empty string without line breaks' }))),
    signal: z.optional(abortSignal()),
    timeout: z.optional(timeoutMs()),
    maxRetries: z.optional(z.int().check(z.gte(0))),
    headers: z.optional(headersOption(idempotencyHeader)),
    spanAttributes: z.optional(z.record(z.string(), z.unknown()).check(rule((value) => Object.values(value).every((v) => typeof v === 'string'), 'must be an object of strings', 'invalid_type'))),
  });
}
const callOptionSchemas = new Map<string, ReturnType<typeof callOptionsSchema>>();

/** Checks per-call options; returns the problems. `idempotencyHeader`: the client's name for the key's header, protected too. */
export function checkCallOptions(options: RequestOptions | undefined, idempotencyHeader = 'idempotency-key'): ValidationIssue[] {
  if (options === undefined) return [];
  let schema = callOptionSchemas.get(idempotencyHeader);
  if (!schema) callOptionSchemas.set(idempotencyHeader, (schema = callOptionsSchema(idempotencyHeader)));
  return parse(schema, options).issues;
}

/**
 * A schema (or a group of them) built on its first use and kept: importing the SDK builds none of
 * the namespaces' schemas, a call builds what its operation needs.
 */
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
