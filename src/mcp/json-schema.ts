import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod/mini';

/** A JSON Schema object as tools/list carries it. */
export type JsonSchema = Record<string, unknown>;

/**
 * A published zod schema as JSON Schema (draft 2020-12 keywords that draft-07 validators read
 * the same way), without `$schema`: clients of the 2025 line validate with draft-07 Ajv, which
 * refuses a 2020-12 `$schema`.
 */
export function jsonSchemaOf(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonSchema;
  return portable(json) as JsonSchema;
}

/** zod writes an open object's other members as `additionalProperties: {}`; hosts read `true` more widely. */
function portable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(portable);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      key,
      key === 'additionalProperties' && typeof member === 'object' && member !== null && Object.keys(member).length === 0 ? true : portable(member),
    ]),
  );
}

/** The members of an object schema: its properties, required names and what it says of other members. */
export function objectParts(json: JsonSchema | undefined): { properties: Record<string, JsonSchema>; required: string[]; additional: unknown } {
  return {
    properties: (json?.properties as Record<string, JsonSchema> | undefined) ?? {},
    required: (json?.required as string[] | undefined) ?? [],
    additional: json?.additionalProperties ?? false,
  };
}

/**
 * A ready JSON Schema as the Standard Schema `registerTool` takes. Arguments pass as they are:
 * the client validates them with the operation's own zod schemas and answers a `ValidationError`
 * naming every bad field, which a check here would replace with a less precise message.
 */
export function asStandardSchema(json: JsonSchema): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'openbanking-ng',
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
