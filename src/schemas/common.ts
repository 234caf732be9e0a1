import * as z from 'zod/mini';

/*
 * Building blocks the namespaces' schema modules share, in zod's own terms (types, `z.minLength`,
 * `z.maxLength`, `z.regex`, `z.enum`, `z.union`, number bounds), so that `z.toJSONSchema` converts
 * every schema.
 */

import { once } from '../core/validation.js';

/**
 * A namespace's schemas by operation name, each operation's built on its first read. The members
 * are enumerable getters: spreading the table (as `openbanking-ng/schemas` does) builds them all.
 */
export function byOperation<const T extends Readonly<Record<string, () => object>>>(builders: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const table = {};
  for (const [name, build] of Object.entries(builders)) Object.defineProperty(table, name, { get: once(build), enumerable: true });
  return Object.freeze(table) as { readonly [K in keyof T]: ReturnType<T[K]> };
}

/** A string. */
export const str = () => z.string();

/** A finite JSON number (zod's `z.number()` refuses `Infinity` and `NaN`). */
const num = () => z.number();

/** A string of 1 to `max` characters. */
export const text = (max = 255) => z.string().check(z.minLength(1), z.maxLength(max));

/** A string of at most `max` characters, empty allowed. */
export const upTo = (max = 255) => z.string().check(z.maxLength(max));

/** A string matching `pattern` (no `g` or `y` flag); `error` says what is expected. */
export const matching = (pattern: RegExp, error: string) => z.string().check(z.regex(pattern, { error }));

/** One of `values` (a closed enum). */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values);

/** One item of `custom_properties` in a request: `id`, `description`, `type` and `value`, all strings. */
export const customPropertySchema = once(() => z.strictObject({
  /** Identifier. */
  id: text(),
  /** What it means. */
  description: upTo(),
  /** Its type, as the provider names it. */
  type: text(),
  /** Its value. */
  value: upTo(),
}));

/** `custom_properties` of a request: extension items. */
export const customPropertiesSchema = once(() => z.optional(z.array(customPropertySchema())));

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
  z.union([z.string(), z.number().check(z.refine(Number.isSafeInteger, 'must be a string or a whole number below 2^53 (a larger number cannot be read exactly)'))]);

/**
 * An enum the provider has no full list of: the known values as hints, any other string accepted
 * (`'KNOWN' | (string & {})`).
 */
export function openEnum<const T extends readonly string[]>(_known: T): z.ZodMiniType<T[number] | (string & {})> {
  return z.string() as z.ZodMiniType<T[number] | (string & {})>;
}

/** One `custom_properties` item of a response, kept as sent. */
export const customPropertyOutSchema = once(() => z.looseObject({
  /** Identifier. */
  id: maybeText(),
  /** What it means. */
  description: maybeText(),
  /** Its type, as the provider names it. */
  type: maybeText(),
  /** Its value. */
  value: maybeText(),
}));

/** `custom_properties` of a response: items kept as sent. */
export const customPropertiesOut = () => maybe(z.array(customPropertyOutSchema()));

/** A calendar date, `YYYY-MM-DD`. */
export const isoDate = () => matching(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date YYYY-MM-DD');

/** A number greater than 0 (an amount). */
export const positive = () => num().check(z.positive());

/** A page number: a whole number from 1. */
export const pageNumber = () => z.number().check(z.minimum(1), z.int());

/** Any JSON object, its members kept as sent. */
export const anyObject = () => z.looseObject({});

/** A value of one of the given JSON types, e.g. an id the provider sends as a string or a number. */
export function jsonType<const T extends ReadonlyArray<'string' | 'number' | 'boolean'>>(...types: T) {
  const of = { string: z.string(), number: z.number(), boolean: z.boolean() };
  return z.union(types.map((t) => of[t]) as unknown as [(typeof of)[T[number]], ...(typeof of)[T[number]][]]);
}

/**
 * A path parameter as the typed methods take it: a non-empty string that is not a dot segment
 * (`encodeURIComponent` leaves dots alone, and `..` would climb out of the operation's path), or a
 * finite number below 2^53 in size (a JSON number that large was already rounded, and would name
 * another resource). The SDK encodes it into the path.
 */
export const pathParameter = () =>
  z.union([
    // Written without look-ahead, so that every JSON Schema reader takes its pattern: `.` and `..`,
    // alone or before `;`, are refused; anything else (the empty string is minLength's) passes.
    z.string().check(z.minLength(1), z.regex(/^(?:$|[^.]|\.[^.;]|\.\.[^;])/, { error: 'must not be a dot segment' })),
    z.number().check(z.minimum(-Number.MAX_SAFE_INTEGER), z.maximum(Number.MAX_SAFE_INTEGER)),
  ]);

/** The path parameters of an operation, by the names of its path template: what the client checks them with. */
export const pathParams = <const N extends string>(...names: N[]) =>
  z.strictObject(Object.fromEntries(names.map((name) => [name, pathParameter()])) as Record<N, ReturnType<typeof pathParameter>>);
