import * as z from 'zod/mini';

// The one conversion of the published zod schemas to JSON Schema, for `openapi.json` (scripts/openapi)
// and the MCP server's tools alike: zod's own conversion, plus what it leaves out or writes in a
// form some readers refuse. A `refine` is dropped by `z.toJSONSchema`, so every refine a schema
// carries is either written here as the JSON Schema it means, or stops the conversion; a nullable
// value is written as `anyOf` with `{ "type": "null" }`, never as a type array (Gemini's function
// declarations and other single-`type` dialects refuse those); an open object's other members as
// `additionalProperties: true`.

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/**
 * How a refine is written in JSON Schema: given the zod type it checks (`'number'`) and the JSON
 * Schema zod wrote for it, adds the keywords the refine means and returns true, or returns false
 * when it cannot say it for that type.
 */
export type RefineWriter = (type: string, json: JsonSchema) => boolean;

/** What {@link toJsonSchema} takes besides the schema. */
export interface JsonSchemaOptions {
  /** `'input'`: what the schema accepts (default); `'output'`: what it returns after parsing. */
  io?: 'input' | 'output';
  /** Refines of your own schemas, by their check function, and how each is written. */
  refines?: ReadonlyMap<unknown, RefineWriter>;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The refines a JSON Schema can describe, by their function: `Number.isSafeInteger` on a number is
 * the client's id rule (a whole number within ±(2^53 − 1): one beyond was rounded by JSON parsing).
 */
const REFINES = new Map<unknown, RefineWriter>([
  [
    Number.isSafeInteger,
    (type, json) => {
      if (type !== 'number') return false;
      json.type = 'integer';
      json.minimum = Math.max((json.minimum as number | undefined) ?? -SAFE, -SAFE);
      json.maximum = Math.min((json.maximum as number | undefined) ?? SAFE, SAFE);
      return true;
    },
  ],
]);

interface Check {
  _zod: { def: { check: string; fn?: { name?: string } } };
}

/** zod's `override` hook: writes each known refine (the SDK's, then `own`) into the JSON Schema, and refuses any other. */
function describeRefines(own: ReadonlyMap<unknown, RefineWriter> | undefined) {
  return ({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: JsonSchema }): void => {
    const def = (zodSchema as { _zod: { def: { type: string; checks?: Check[] } } })._zod.def;
    for (const check of def.checks ?? []) {
      const { check: kind, fn } = check._zod.def;
      if (kind !== 'custom') continue;
      if (!(REFINES.get(fn) ?? own?.get(fn))?.(def.type, jsonSchema)) {
        throw new Error(`JSON Schema: a ${def.type} schema carries a refine the document cannot describe (${fn?.name || 'anonymous'}): add it to REFINES in src/schemas/json-schema.ts, or use zod's own checks`);
      }
    }
  };
}

/**
 * Written the way every function-calling API reads it: a type array as `anyOf` branches of one
 * type each, `{ anyOf: [{ anyOf: [a, b] }, c] }` as one list, `additionalProperties: {}` as `true`.
 */
function portable(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => portable(item));
  if (value === null || typeof value !== 'object') return value;
  if (key === 'additionalProperties' && Object.keys(value).length === 0) return true;
  let out: JsonSchema = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, portable(item, name)]));
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out;
    out = { anyOf: (type as string[]).map((t) => ({ type: t })), ...rest };
  }
  if (Array.isArray(out.anyOf)) {
    out.anyOf = (out.anyOf as JsonSchema[]).flatMap((branch) => (Object.keys(branch).length === 1 && Array.isArray(branch.anyOf) ? (branch.anyOf as JsonSchema[]) : [branch]));
  }
  return out;
}

/**
 * A published zod schema (`operations['cards.create'].body`) as JSON Schema, draft 2020-12 keywords
 * without `$schema`: the client's id rule as `integer` within ±(2^53 − 1), a nullable value as
 * `anyOf` with `{ "type": "null" }` (never a type array), an open object's other members as
 * `additionalProperties: true`. `openapi.json` and the MCP server's tools are written with it.
 * Throws when the schema carries a refine neither it nor `options.refines` can write.
 *
 * @example
 * ```ts
 * import { operations, toJsonSchema } from 'openbanking-ng/schemas';
 * const body = toJsonSchema(operations['transfers.create'].body);
 * console.log(Object.keys(body.properties as object));
 * ```
 * @group API description
 */
export function toJsonSchema(schema: z.ZodMiniType, options: JsonSchemaOptions = {}): JsonSchema {
  const json = z.toJSONSchema(schema, { io: options.io ?? 'input', target: 'draft-2020-12', override: describeRefines(options.refines) as never }) as JsonSchema;
  const { $schema: _dialect, ...rest } = json;
  return portable(rest) as JsonSchema;
}

/**
 * The schemas of a zod registry (`z.registry()`, each added with an `id`), converted by the same
 * rules as {@link toJsonSchema}: by id, what several share under `$defs` of `__shared`, referred to
 * through `uri`. `openapi.json` names its components from it.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { operations, toJsonSchemas } from 'openbanking-ng/schemas';
 * const registry = z.registry<{ id?: string }>();
 * registry.add(operations['cards.create'].body, { id: 'CardsCreateBody' });
 * const { CardsCreateBody } = toJsonSchemas(registry, { uri: (id) => `#/components/schemas/${id}` });
 * ```
 * @group API description
 */
export function toJsonSchemas(registry: z.core.$ZodRegistry<{ id?: string }>, options: JsonSchemaOptions & { uri: (id: string) => string }): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, { io: options.io ?? 'input', reused: 'ref', target: 'draft-2020-12', uri: options.uri, override: describeRefines(options.refines) as never });
  return portable(schemas) as Record<string, JsonSchema>;
}
