import { isRecord } from '../core/validation.js';
import type { JsonSchema } from '../schemas.js';

// An input schema in the form OpenAI's strict function calling takes unchanged (`schemas: 'strict'`,
// `--strict-schemas`): every object lists all its properties in `required` and says
// `additionalProperties: false`; an optional property becomes `anyOf [T, { type: 'null' }]`, where
// `null` means absent; only the keywords that mode supports remain (a length limit moves into the
// description); an object open to any member cannot be said there, so it is left out.

/** The keywords strict mode supports. */
const SUPPORTED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);

/** The string formats strict mode supports. */
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** A length limit said in words, for the description that replaces it. */
function lengthNote(node: JsonSchema): string | undefined {
  const min = typeof node.minLength === 'number' ? node.minLength : 0;
  const max = typeof node.maxLength === 'number' ? node.maxLength : undefined;
  if (max !== undefined) return min > 0 ? `${min} to ${max} characters` : `at most ${max} characters`;
  return min > 0 ? `at least ${min} character${min === 1 ? '' : 's'}` : undefined;
}

const acceptsNull = (node: JsonSchema): boolean => node.type === 'null' || (Array.isArray(node.anyOf) && (node.anyOf as JsonSchema[]).some(acceptsNull));

/** An object of any members, none declared: strict mode has no way to say it. */
const openObject = (node: JsonSchema): boolean => node.type === 'object' && node.additionalProperties !== false && Object.keys(isRecord(node.properties) ? node.properties : {}).length === 0;

/** `node` in strict form, or undefined when it cannot be said there; `absent` collects where `null` means absent. */
function strictNode(node: JsonSchema, path: string, absent: string[]): JsonSchema | undefined {
  if (openObject(node)) return undefined;
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (!SUPPORTED.has(key)) continue;
    if (key === 'format' && !FORMATS.has(String(value))) continue;
    out[key] = value;
  }
  const length = lengthNote(node);
  if (length) notes.push(length);
  if (Array.isArray(node.anyOf)) {
    const branches = (node.anyOf as JsonSchema[]).map((branch) => strictNode(branch, path, absent)).filter((b): b is JsonSchema => b !== undefined);
    if (branches.length === 0) return undefined;
    out.anyOf = branches;
  }
  if (isRecord(node.items)) {
    const items = strictNode(node.items, `${path}*.`, absent);
    if (!items) return undefined;
    out.items = items;
  }
  if (node.type === 'object') {
    const properties: Record<string, JsonSchema> = {};
    const required = new Set((node.required as string[] | undefined) ?? []);
    for (const [name, member] of Object.entries((node.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      const converted = strictNode(member, `${path}${name}.`, absent);
      if (!converted) continue;
      if (required.has(name) || acceptsNull(converted)) properties[name] = converted;
      else {
        properties[name] = nullable(converted);
        absent.push(`${path}${name}`);
      }
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (notes.length > 0) out.description = [out.description, `(${notes.join('; ')})`].filter(Boolean).join(' ');
  return out;
}

/** `T` or `null`, its description kept outside. */
function nullable(schema: JsonSchema): JsonSchema {
  const { description, ...rest } = schema;
  const branches = Array.isArray(rest.anyOf) && Object.keys(rest).length === 1 ? (rest.anyOf as JsonSchema[]) : [rest];
  return { anyOf: [...branches, { type: 'null' }], ...(description === undefined ? {} : { description }) };
}

/**
 * An object input schema in strict form, and the paths (dotted, `*` for array items) where its
 * `null` stands for an argument left out.
 */
export function strictForm(schema: JsonSchema): { schema: JsonSchema; nullMeansAbsent: string[] } {
  const absent: string[] = [];
  const converted = strictNode(schema, '', absent) ?? { type: 'object', properties: {}, required: [], additionalProperties: false };
  return { schema: converted, nullMeansAbsent: absent };
}
