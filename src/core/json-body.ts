import type { ValidationIssue } from '../errors/index.js';

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

function walk(value: unknown, path: string[], seen: Set<object>, out: ValidationIssue[]): void {
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
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) out.push(issue(path, 'is an invalid Date'));
        return;
      }
      if (value instanceof String || value instanceof Number || value instanceof Boolean) return walk(value.valueOf(), path, seen, out);
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
          else walk(item, path, seen, out);
          path.pop();
        }
      } else {
        for (const key of Object.keys(value)) {
          const item = (value as Record<string, unknown>)[key];
          path.push(key);
          if (LONE_SURROGATE.test(key)) out.push(issue(path, 'is a key with an unpaired UTF-16 surrogate, which UTF-8 cannot carry'));
          // `undefined` members are left out of JSON: that is how an optional field is omitted.
          else if (item !== undefined) walk(item, path, seen, out);
          path.pop();
        }
      }
      seen.delete(value);
    }
  }
}

/**
 * What keeps `value` from reaching the server as JSON exactly as given: BigInt, functions,
 * symbols, non-finite numbers, invalid dates, cycles, holes or `undefined` in arrays (JSON sends
 * `null`), Maps, Sets, binary data and other built-ins JSON turns into `{}`, and strings or keys
 * with an unpaired surrogate (UTF-8 cannot encode one; it would arrive as U+FFFD or be refused).
 * Empty when the body is safe to send. Issues name the path, never the value.
 */
export function jsonIssues(value: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  walk(value, [], new Set(), out);
  return out;
}

/**
 * Objects in a typed body that are not plain (a Date, a Map, a RegExp, a class instance): zod
 * takes any object where an object schema stands and copies its own keys, so such a value would
 * go out as `{}`. zod's checks see only that copy, so this runs on the input, before the schema.
 */
export function nonPlainObjects(value: unknown, path: string[] = [], out: ValidationIssue[] = [], seen = new Set<object>()): ValidationIssue[] {
  if (typeof value !== 'object' || value === null || seen.has(value)) return out;
  seen.add(value);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    out.push({ path: path.join('.'), message: 'must be a plain object', code: 'invalid_type' });
    return out;
  }
  for (const [key, item] of Object.entries(value)) {
    path.push(key);
    nonPlainObjects(item, path, out, seen);
    path.pop();
  }
  return out;
}
