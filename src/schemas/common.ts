import ky from 'ky';
import * as z from 'zod/mini';

// Every schema module takes `defineOperation` from here, and the client takes ky from here (see
// `lazyHttpLayer` in core/http.ts): zod, these pieces, the descriptors' helper and ky are what
// every first call loads beyond the package's import, and so are one chunk in a code-splitting
// bundle rather than three.
export { defineOperation } from '../core/operation.js';
export { ky };

/*
 * Building blocks the namespaces' schema modules share. Every module under schemas/ except the
 * zod-free `*-values.ts` imports zod and loads with the first call of its namespace.
 */

// Types and checks as refinements: zod's own (`z.string`, `z.number`, `z.minLength`,
// `z.maxLength`, `z.regex`, `z.enum`, `z.literal`, number bounds, `z.record`, `z.union`) each add
// their code to the zod chunk that every namespace shares, so the first call of any namespace
// would pay for what one namespace uses (together about 2 kB gzip). A refinement adds nothing. It
// names its issue code in `params` (core/zod-issues.ts), so a caller sees the codes and messages
// zod's checks give.
const check = <T>(ok: (value: T) => boolean, error: string, code: string) => z.refine<T>(ok, { error, params: { code } });

/**
 * A value of JSON type `expected` that passes `ok`. A refinement too (see `check` above), which
 * reports `invalid_type` with the expected type as zod's own types do (`is required` when
 * missing), and stops there: the checks chained after it see only values of that type.
 */
const typed = <T>(ok: (value: unknown) => boolean, expected: string) => z.custom<T>(ok, { abort: true, params: { code: 'invalid_type', expected } });

/** A string. */
export const str = () => typed<string>((value) => typeof value === 'string', 'string');

/** A finite JSON number. */
const num = () => typed<number>((value) => typeof value === 'number' && Number.isFinite(value), 'number');

/** At most `max` characters. */
const longest = (max: number) => check<string>((v) => v.length <= max, `must have at most ${max} characters`, 'too_big');

/** A string of 1 to `max` characters. */
export const text = (max = 255) => str().check(check<string>((v) => v.length > 0, 'must have at least 1 character(s)', 'too_small'), longest(max));

/** A string of at most `max` characters, empty allowed. */
export const upTo = (max = 255) => str().check(longest(max));

/** A string matching `pattern` (no `g` or `y` flag); `error` says what is expected. */
export const matching = (pattern: RegExp, error: string) => str().check(check<string>((v) => pattern.test(v), error, 'invalid_format'));

/** One of `values` (a closed enum). */
export function oneOf<const T extends readonly string[]>(values: T): z.ZodMiniType<T[number]> {
  const ok = (value: unknown) => (values as readonly unknown[]).includes(value);
  return z.custom<T[number]>(ok, { error: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, params: { code: 'invalid_value' } });
}

/**
 * zod takes any object where an object schema stands: a Date, a Map or a RegExp passes as `{}`
 * (it has no own keys), so an all-optional object would be sent empty. This lets only plain
 * objects through to `schema`; anything else that is not an object is left to `schema`, which
 * reports it as missing or of the wrong type.
 */
export function plainObject<T extends z.ZodMiniType>(schema: T): z.ZodMiniPipe<z.ZodMiniCustom<z.input<T>, z.input<T>>, T> {
  const plain = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return true;
    const proto = Object.getPrototypeOf(value) as unknown;
    return Array.isArray(value) || proto === Object.prototype || proto === null;
  };
  return z.pipe(z.custom<z.input<T>>(plain, { error: 'must be a plain object' }), schema as never) as never;
}

/** One item of `custom_properties` in a request: `id`, `description`, `type` and `value`, all strings. */
export const customPropertySchema = plainObject(
  z.strictObject({
    /** Identifier. */
    id: text(),
    /** What it means. */
    description: upTo(),
    /** Its type, as the provider names it. */
    type: text(),
    /** Its value. */
    value: upTo(),
  }),
);

/** `custom_properties` of a request: extension items. */
export const customPropertiesSchema = z.optional(z.array(customPropertySchema));

/** A response member the provider may send as `null` or leave out. */
export const maybe = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

/** A string member of a response, possibly `null` or absent. */
export const maybeText = () => maybe(str());

/** A number member of a response (amounts are JSON numbers in major units), possibly `null` or absent. */
export const maybeNumber = () => maybe(num());

/**
 * An id that is a number on some pages and a string on others. A number id beyond 2^53 was
 * rounded by JSON parsing and would name another resource: refused, never used.
 */
export const id = () =>
  jsonType('string', 'number').check(check<string | number>((v) => typeof v === 'string' || Number.isSafeInteger(v), 'must be a string or a whole number below 2^53 (a larger number cannot be read exactly)', 'too_big'));

/**
 * An enum the provider has no full list of: the known values as hints, any other string accepted
 * (`'KNOWN' | (string & {})`).
 */
export function openEnum<const T extends readonly string[]>(_known: T): z.ZodMiniType<T[number] | (string & {})> {
  return str() as unknown as z.ZodMiniType<T[number] | (string & {})>;
}

/** One `custom_properties` item of a response, kept as sent. */
export const customPropertyOutSchema = z.looseObject({
  /** Identifier. */
  id: maybeText(),
  /** What it means. */
  description: maybeText(),
  /** Its type, as the provider names it. */
  type: maybeText(),
  /** Its value. */
  value: maybeText(),
});

/** `custom_properties` of a response: items kept as sent. */
export const customPropertiesOut = () => maybe(z.array(customPropertyOutSchema));

/** A calendar date, `YYYY-MM-DD`. */
export const isoDate = () => matching(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date YYYY-MM-DD');


/** A number greater than 0 (an amount). */
export const positive = () => num().check(check<number>((n) => n > 0, 'must be greater than 0', 'too_small'));

/** A page number: a whole number from 1. */
export const pageNumber = () => num().check(check<number>(Number.isSafeInteger, 'must be a whole number', 'invalid_type'), check<number>((n) => n >= 1, 'must be at least 1', 'too_small'));

/** Any JSON object, its members kept as sent. */
export const anyObject = () => z.looseObject({});

type JsonTypes = { string: string; number: number; boolean: boolean };

/**
 * A value of one of the given JSON types, e.g. an id the provider sends as a string or a number.
 * Checked with a refinement, not `z.union`, whose code every namespace's first call would load.
 */
export function jsonType<const T extends ReadonlyArray<keyof JsonTypes>>(...types: T): z.ZodMiniType<JsonTypes[T[number]]> {
  const ok = (value: unknown) => (types as readonly string[]).includes(typeof value) && (typeof value !== 'number' || Number.isFinite(value));
  return z.custom<JsonTypes[T[number]]>(ok, { error: `must be a ${types.join(' or a ')}`, params: { code: 'invalid_type' } });
}
