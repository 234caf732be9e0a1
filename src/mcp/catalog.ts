import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { OperationName, TokenKind } from '../index.js';
import { operations } from '../schemas.js';
import { type JsonSchema, jsonSchemaOf, objectParts } from './json-schema.js';
import { IDEMPOTENCY_KEY, INSTRUMENT_OPERATIONS, MONEY_OPERATIONS, shownSchema } from './movement.js';
import { maskedSchema } from './results.js';

/**
 * What a tool does: reads, changes data at the bank, creates or redirects a way money can move
 * (an instrument), or moves money. Instruments and money are confirmed by the person.
 */
export type ToolKind = 'read' | 'write' | 'instrument' | 'money';

/** True for the tools the person confirms before every send. */
export const isConfirmed = (kind: ToolKind): boolean => kind === 'money' || kind === 'instrument';

/** One tool generated from an operation's declaration and its published schemas. */
export interface OperationTool {
  /** `accounts_balances_retrieve`: the operation's name with `_` for `.`. */
  readonly name: string;
  readonly operation: OperationName;
  readonly kind: ToolKind;
  readonly token: TokenKind;
  /** The path parameters, in the order the method takes them. */
  readonly params: readonly string[];
  /** The query's members (none when the operation takes no query). */
  readonly query: ReadonlySet<string>;
  /** What the method takes after the path parameters. */
  readonly input: 'body' | 'query' | 'none';
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  /** The answer is an array, given as `{ items }`. */
  readonly wrapsArray: boolean;
  readonly annotations: ToolAnnotations;
  readonly description: string;
}

const KEY_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x21-\\x7e]+$',
  description: 'Optional. The idempotency key to send under; minted and returned when absent. Repeat it, with the same arguments, to retry a call safely.',
};

/** The tool name of an operation: `.` becomes `_`. */
export const toolName = (operation: string): string => operation.replaceAll('.', '_');

/** The kind of an operation's tool. */
export function kindOf(name: OperationName): ToolKind {
  if (operations[name].method === 'GET') return 'read';
  if (MONEY_OPERATIONS.has(name)) return 'money';
  return INSTRUMENT_OPERATIONS.has(name) ? 'instrument' : 'write';
}

const ANNOTATIONS: Record<ToolKind, ToolAnnotations> = {
  read: { readOnlyHint: true, idempotentHint: true },
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  instrument: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  money: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

const TOKENS: Record<TokenKind, string> = {
  client: "the application's client credentials",
  customer: "the customer's consent",
  both: "the customer's consent when one is connected, else the application's client credentials",
};

/**
 * One JSON object schema of everything a call takes: path parameters by name (required), the
 * query's members, the body's members, and `idempotency_key` for writes. A name in two parts
 * would be ambiguous, so it stops generation.
 */
function inputSchemaOf(name: OperationName, params: readonly string[], kind: ToolKind): JsonSchema {
  // A confirmed tool takes exactly what the person is shown (movement.ts), nothing passes unseen.
  if (isConfirmed(kind)) return withParamsDescribed(jsonSchemaOf(shownSchema(name), 'input'), params);
  const op = operations[name];
  const parts = [op.params, op.query, op.body].map((schema) => (schema ? objectParts(jsonSchemaOf(schema, 'input')) : undefined));
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const part of parts) {
    if (!part) continue;
    for (const [key, value] of Object.entries(part.properties)) {
      if (key in properties) throw new Error(`${name}: the argument ${key} is both a path parameter, a query member or a body field`);
      properties[key] = value;
    }
    required.push(...part.required);
  }
  if (kind !== 'read') {
    if (IDEMPOTENCY_KEY in properties) throw new Error(`${name}: a field is named ${IDEMPOTENCY_KEY}`);
    properties[IDEMPOTENCY_KEY] = KEY_SCHEMA;
  }
  // Extra members pass only where the body lets them through (transfers.create).
  const body = parts[2];
  return withParamsDescribed({ type: 'object', properties, ...(required.length > 0 ? { required: [...new Set(required)] } : {}), additionalProperties: body?.additional ?? false }, params);
}

/** The path parameters described, and `idempotency_key` described, in an input schema. */
function withParamsDescribed(schema: JsonSchema, params: readonly string[]): JsonSchema {
  const properties = { ...objectParts(schema).properties };
  for (const param of params) properties[param] = { ...properties[param], description: `Path parameter {${param}}.` };
  if (IDEMPOTENCY_KEY in properties) properties[IDEMPOTENCY_KEY] = KEY_SCHEMA;
  return { ...schema, properties };
}

/** The response schema as a tool's object `outputSchema`: arrays as `{ items }`, writes with their key. */
function outputSchemaOf(name: OperationName, kind: ToolKind): { schema: JsonSchema; wrapsArray: boolean } {
  const response = operations[name].response;
  const json = response ? (maskedSchema(jsonSchemaOf(response, 'output')) as JsonSchema) : { type: 'object' };
  const wrapsArray = json.type === 'array';
  let schema: JsonSchema = wrapsArray ? { type: 'object', properties: { items: json }, required: ['items'], additionalProperties: false } : json;
  if (schema.type !== 'object') throw new Error(`${name}: the response is not an object or an array`);
  if (kind !== 'read') {
    const { properties, required } = objectParts(schema);
    schema = { ...schema, properties: { ...properties, [IDEMPOTENCY_KEY]: { type: 'string', description: 'The idempotency key the call was sent under.' } }, required: [...required, IDEMPOTENCY_KEY] };
  }
  return { schema, wrapsArray };
}

function describe(name: OperationName, kind: ToolKind): string {
  const op = operations[name];
  const lines = [`${name}: ${op.method} ${op.path}${op.unofficial ? ' (unofficial path)' : ''}, with ${TOKENS[op.token]}.`];
  if (kind === 'read') lines.push('Reads only.');
  if (kind === 'write') lines.push('Changes data at the bank. Retry with the same idempotency_key and the same arguments; the bank answers a repeat without acting twice.');
  if (kind === 'instrument') {
    lines.push('Creates or redirects a way money can move: the person is asked to confirm every field before each call is sent.');
    lines.push('Retry with the same idempotency_key and the same arguments: it is sent again without asking again.');
  }
  if (kind === 'money') {
    lines.push('Moves money: the person is asked to confirm the amount, source, destination and narration, and the server refuses amounts over its per-call and daily limits before anything is sent. Amounts are in naira with at most two decimals; the currency, when given, is NGN.');
    lines.push('Retry with the same idempotency_key and the same arguments: it is sent again without asking or counting again, and the bank does not move the money twice.');
  }
  return lines.join(' ');
}

/** Every operation as a tool, in the order of the provider reference. */
export function operationTools(): OperationTool[] {
  return (Object.keys(operations) as OperationName[]).map((name) => {
    const op = operations[name];
    const kind = kindOf(name);
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const query = op.query ? new Set(Object.keys(objectParts(jsonSchemaOf(op.query, 'input')).properties)) : new Set<string>();
    const output = outputSchemaOf(name, kind);
    return {
      name: toolName(name),
      operation: name,
      kind,
      token: op.token,
      params,
      query,
      input: op.body ? 'body' : op.query ? 'query' : 'none',
      inputSchema: inputSchemaOf(name, params, kind),
      outputSchema: output.schema,
      wrapsArray: output.wrapsArray,
      annotations: ANNOTATIONS[kind],
      description: describe(name, kind),
    };
  });
}
