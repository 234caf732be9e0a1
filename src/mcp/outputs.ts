import type * as z from 'zod/mini';
import { isRecord } from '../core/validation.js';
import { type JsonSchema, toJsonSchema } from '../schemas.js';
import { IDEMPOTENCY_KEY } from './fields.js';
import { maskedSchema } from './results.js';

// A tool's `outputSchema` (DESIGN "Agents", row "tools"): the response schema's top-level members,
// typed as `structuredContent` carries them (masked members as the strings they are shown as, an
// array answer as `{ items }`, a write's `idempotency_key`); an object or a list of objects within
// is said to be one without its members, which keeps the default listing under 16 KiB. Open
// objects stay open: `structuredContent` carries every member the client returned.

/** An object or list member as a bare `{ type: 'object' }` (or a list of them), its members left out. */
function bare(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(bare);
  if (!isRecord(schema)) return schema;
  const { properties: _p, required: _r, additionalProperties: _a, ...rest } = schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema.type === 'object' ? rest : schema)) out[key] = key === 'anyOf' || key === 'items' ? bare(value) : value;
  return out;
}

/** The top level of an output schema, every member bare. */
function topLevel(schema: JsonSchema): JsonSchema {
  const { additionalProperties: _open, properties, ...rest } = schema;
  const members = Object.entries((properties as Record<string, unknown> | undefined) ?? {}).map(([name, member]) => [name, bare(member)]);
  return { ...rest, properties: Object.fromEntries(members) };
}

/** A tool's output schema from its response schema: `{ items }` for an array answer, the idempotency key for a write. */
export function outputSchemaOf(response: z.ZodMiniType | undefined, write: boolean): { schema: JsonSchema; wrapsArray: boolean } {
  const json = response ? (maskedSchema(toJsonSchema(response, { io: 'output' })) as JsonSchema) : { type: 'object' };
  const wrapsArray = json.type === 'array';
  let schema = topLevel(wrapsArray ? { type: 'object', properties: { items: json }, required: ['items'] } : json);
  if (schema.type !== 'object') throw new Error('a response that is neither an object nor an array');
  if (write) {
    const required = (schema.required as string[] | undefined) ?? [];
    schema = { ...schema, properties: { ...(schema.properties as object), [IDEMPOTENCY_KEY]: { type: 'string', description: 'The idempotency key the call was sent under.' } }, required: [...required, IDEMPOTENCY_KEY] };
  }
  return { schema, wrapsArray };
}
