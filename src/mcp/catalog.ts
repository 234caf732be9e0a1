import type { StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { OperationName, TokenKind } from '../index.js';
import { type JsonSchema, operations } from '../schemas.js';
import { CONSENT, PURPOSE } from './fields.js';
import { operationInput, type ToolInput } from './inputs.js';
import { INSTRUMENT_OPERATIONS, MANDATE_OPERATIONS, MONEY_OPERATIONS, naira } from './movement.js';
import { outputSchemaOf } from './outputs.js';

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
  /** What the method takes after the path parameters. */
  readonly takes: 'body' | 'query' | 'none';
  /** Its arguments: the schema every call is checked with, and their JSON Schemas. */
  readonly input: ToolInput;
  readonly outputSchema: JsonSchema;
  /** The answer is an array, given as `{ items }`. */
  readonly wrapsArray: boolean;
  readonly annotations: ToolAnnotations;
  readonly description: string;
}

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

/** The limits money descriptions name (naira). */
type Limits = { readonly perCall?: number; readonly perDay?: number };

/** What a call costs: nothing, a change at the bank, or a person's confirmation within the limits. */
function cost(name: OperationName, kind: ToolKind, limits: Limits | undefined): string {
  const retry = 'To retry, call again with the same idempotency_key and arguments: the bank does not act twice.';
  if (kind === 'read') return 'Read-only.';
  if (kind === 'write') return `May change data at the bank. ${retry}`;
  const perCall = limits?.perCall === undefined ? undefined : naira(limits.perCall);
  if (kind === 'instrument') {
    const mandate = MANDATE_OPERATIONS.has(name) && perCall ? ` Its amount per debit is at most ${perCall}.` : '';
    return `A person confirms every call before it is sent.${mandate} ${retry}`;
  }
  const perDay = limits?.perDay === undefined ? '' : ` or ${naira(limits.perDay)} a day (Lagos time)`;
  const within = perCall ? `, and the server refuses more than ${perCall} per call${perDay}` : '';
  return `Moves money: a person confirms every call before it is sent${within}. Amounts are in naira, two decimals at most. ${retry}`;
}

/** A tool's description for a model: what it does and when to use it, whose consent, what it costs. */
function describe(name: OperationName, kind: ToolKind, limits: Limits | undefined): string {
  return `${PURPOSE[name]} ${CONSENT[operations[name].token]} ${cost(name, kind, limits)}`;
}

/** Every operation as a tool, in the order of the provider reference; money descriptions name `limits`. */
export function operationTools(limits?: Limits): OperationTool[] {
  return (Object.keys(operations) as OperationName[]).map((name) => {
    const op = operations[name];
    const kind = kindOf(name);
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const output = outputSchemaOf(op.response, kind !== 'read');
    return {
      name: toolName(name),
      operation: name,
      kind,
      token: op.token,
      params,
      takes: op.body ? 'body' : op.query ? 'query' : 'none',
      input: operationInput(name, kind !== 'read', isConfirmed(kind)),
      outputSchema: output.schema,
      wrapsArray: output.wrapsArray,
      annotations: ANNOTATIONS[kind],
      description: describe(name, kind, limits),
    };
  });
}

/**
 * A listed JSON Schema as the Standard Schema `registerTool` takes. Arguments pass as they are: each
 * tool checks them itself, once, with the zod schema that JSON Schema was written from.
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
