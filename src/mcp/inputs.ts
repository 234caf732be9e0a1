import * as z from 'zod/mini';
import { isRecord, parseOrThrow } from '../core/validation.js';
import type { OperationName } from '../index.js';
import { type JsonSchema, operations, toJsonSchema } from '../schemas.js';
import { ACCOUNT_FIELDS, accountNumber, FIELD_REFINES, fieldDescription, IDEMPOTENCY_KEY, idempotencyKey } from './fields.js';
import { defOf, sameOptionality, shownSchema } from './movement.js';
import { strictForm } from './strict.js';

// A tool's input (DESIGN "Agents", rows "tools" and "written for a model"): one zod schema per tool,
// which every call's arguments are checked with once, and its JSON Schema as tools/list shows it,
// every property described; in OpenAI's strict form too, where `null` means absent.

/** A tool's arguments: the schema they are checked with, and how tools/list shows it. */
export interface ToolInput {
  /** Every argument the tool takes, checked once (path parameters, query, body, `idempotency_key`). */
  readonly schema: z.ZodMiniType<Record<string, unknown>>;
  /** Its JSON Schema, every property described. */
  readonly json: JsonSchema;
  /** The same in the form OpenAI's strict function calling takes unchanged. */
  readonly strict: JsonSchema;
  /** Where the strict form's `null` stands for an absent optional argument (dotted; `*` for array items). */
  readonly nullMeansAbsent: readonly string[];
}

/** The object schema inside an optional one (a query may be optional as a whole). */
const objectShape = (schema: z.ZodMiniType): Record<string, z.ZodMiniType> => {
  const def = defOf(schema);
  return def.type === 'optional' ? objectShape(def.innerType!) : def.shape!;
};

/**
 * Every argument of a tool that sends without asking: the operation's path parameters, query and
 * body members, account numbers as ten-digit strings, and `idempotency_key` on writes. A name in
 * two parts would be ambiguous, so it stops generation.
 */
function operationArguments(name: OperationName, write: boolean): z.ZodMiniType<Record<string, unknown>> {
  const op = operations[name];
  const shape: Record<string, z.ZodMiniType> = {};
  for (const part of [op.params, op.query, op.body]) {
    if (!part) continue;
    for (const [key, member] of Object.entries(objectShape(part))) {
      if (key in shape || key === IDEMPOTENCY_KEY) throw new Error(`${name}: the argument ${key} is named twice (path parameter, query member, body field or ${IDEMPOTENCY_KEY})`);
      shape[key] = ACCOUNT_FIELDS.has(key) ? sameOptionality(member, accountNumber()) : member;
    }
  }
  if (write) shape[IDEMPOTENCY_KEY] = z.optional(idempotencyKey());
  return z.strictObject(shape) as unknown as z.ZodMiniType<Record<string, unknown>>;
}

/** Each object's properties described from the table, nested members as `parent.member`. */
function described(schema: unknown, operation: OperationName | 'transfers_wait', prefix = ''): unknown {
  if (Array.isArray(schema)) return schema.map((item) => described(item, operation, prefix));
  if (!isRecord(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([member, sub]) => {
          const path = `${prefix}${member}`;
          const text = fieldDescription(operation, path);
          const inner = described(sub, operation, `${path}.`) as JsonSchema;
          return [member, text ? { ...inner, description: text } : inner];
        }),
      );
    } else out[key] = key === 'items' || key === 'anyOf' ? described(value, operation, prefix) : value;
  }
  return out;
}

const inputs = new Map<string, ToolInput>();

/** The input of an operation's tool (`confirmed`: a money or instrument tool, which takes what the person is shown). */
export function operationInput(name: OperationName, write: boolean, confirmed: boolean): ToolInput {
  let input = inputs.get(name);
  if (!input) inputs.set(name, (input = toolInput(confirmed ? shownSchema(name) : operationArguments(name, write), name)));
  return input;
}

/** A tool's input from the zod schema of its arguments. */
export function toolInput(schema: z.ZodMiniType<Record<string, unknown>>, operation: OperationName | 'transfers_wait'): ToolInput {
  const json = described(toJsonSchema(schema, { io: 'input', refines: FIELD_REFINES }), operation) as JsonSchema;
  const { schema: strict, nullMeansAbsent } = strictForm(json);
  return { schema, json, strict, nullMeansAbsent };
}

/** `args` with a `null` left out wherever the strict form's `null` means absent. */
export function withoutAbsentNulls(args: unknown, paths: readonly string[]): unknown {
  if (!isRecord(args) || paths.length === 0) return args;
  const drop = (value: unknown, path: readonly string[]): unknown => {
    const [head, ...rest] = path;
    if (head === '*' && Array.isArray(value)) return value.map((item) => drop(item, rest));
    if (!isRecord(value) || head === undefined || !(head in value)) return value;
    if (rest.length === 0) {
      if (value[head] !== null) return value;
      const { [head]: _absent, ...kept } = value;
      return kept;
    }
    return { ...value, [head]: drop(value[head], rest) };
  };
  return paths.reduce<unknown>((value, path) => drop(value, path.split('.')), args);
}

/** The arguments of a call, checked once against the tool's schema: a `ValidationError` naming every bad one. */
export function checkArguments(tool: { name: string; input: ToolInput }, args: unknown): Record<string, unknown> {
  return parseOrThrow(tool.input.schema, args ?? {}, `Invalid arguments for ${tool.name}`);
}
