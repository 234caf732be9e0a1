import * as z from 'zod/mini';
import { isSecretField } from '../errors/redact.js';
import { isRecord, parseOrThrow } from '../core/validation.js';
import { type CustomerSession, type OpenBanking, type OperationName, type RequestOptions, ValidationError } from '../index.js';
import { operations } from '../schemas.js';
import { ACCOUNT_FIELDS, accountNumber, amount, IDEMPOTENCY_KEY, idempotencyKey } from './fields.js';

// What the person confirms (DESIGN "Agents", rows "what asks a person" and "money input"): a money
// or instrument tool takes exactly the fields the person is shown, every shown text is one quoted
// line, and what is sent is what was shown.

/** Tools that move an amount: confirmed, and counted against the limits. */
export const MONEY_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>(['transfers.create', 'bills.pay', 'directDebits.charge', 'accounts.holds.create']);
/** Tools that create or redirect a way money can move: confirmed before every send, never in `'writes'`. */
export const INSTRUMENT_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>(['directDebits.create', 'directDebits.update', 'cards.create', 'accounts.holds.update']);
/** Instruments whose `amount` (per debit) may not exceed `limits.perCall`. */
export const MANDATE_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>(['directDebits.create', 'directDebits.update']);

/** Longest text shown (and sent) for one field. */
const SHOWN_LENGTH = 140;
/** Control and format characters, line and paragraph separators: none reaches the person's screen. */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

type Def = { type: string; shape?: Record<string, z.ZodMiniType>; innerType?: z.ZodMiniType };
/** A zod schema's definition: its type, and its shape or inner type. */
export const defOf = (schema: z.ZodMiniType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** `member` with its inner type replaced by `inner`, optional (or nullable) as it was. */
export function sameOptionality(member: z.ZodMiniType, inner: z.ZodMiniType): z.ZodMiniType {
  const def = defOf(member);
  if (def.type === 'optional') return z.optional(sameOptionality(def.innerType!, inner));
  if (def.type === 'nullable') return z.nullable(sameOptionality(def.innerType!, inner));
  return inner;
}

/** `schema` with every object strict and without `custom_properties` (never shown), amounts held to kobo, account numbers ten-digit strings. */
function shownCopy(schema: z.ZodMiniType): z.ZodMiniType {
  const def = defOf(schema);
  if (def.type === 'optional') return z.optional(shownCopy(def.innerType!));
  if (def.type === 'nullable') return z.nullable(shownCopy(def.innerType!));
  if (def.type !== 'object') return schema;
  const shape = Object.entries(def.shape!).filter(([name]) => name !== 'custom_properties');
  const copy = (name: string, member: z.ZodMiniType) => (name === 'amount' ? amount() : ACCOUNT_FIELDS.has(name) ? sameOptionality(member, accountNumber()) : shownCopy(member));
  return z.strictObject(Object.fromEntries(shape.map(([name, member]) => [name, copy(name, member)])));
}

const shownSchemas = new Map<OperationName, z.ZodMiniType<Record<string, unknown>>>();

/** The input of a money or instrument tool: path parameters and body fields, strict, plus `idempotency_key` (and `currency: 'NGN'` for a transfer). */
export function shownSchema(name: OperationName): z.ZodMiniType<Record<string, unknown>> {
  let schema = shownSchemas.get(name);
  if (schema) return schema;
  const op = operations[name];
  const body = op.body ? defOf(shownCopy(op.body)).shape! : {};
  const params = Object.entries(op.params ? defOf(op.params).shape! : {}).map(([name, member]) => [name, ACCOUNT_FIELDS.has(name) ? accountNumber() : member] as const);
  const shape: Record<string, z.ZodMiniType> = { ...Object.fromEntries(params), ...body };
  // The transfer's body declares no currency: one may be given, and only naira moves.
  if (name === 'transfers.create') shape.currency = z.optional(z.enum(['NGN']));
  shape[IDEMPOTENCY_KEY] = z.optional(idempotencyKey());
  schema = z.strictObject(shape) as unknown as z.ZodMiniType<Record<string, unknown>>;
  shownSchemas.set(name, schema);
  return schema;
}

/** A string as it may be shown: unshowable characters replaced by spaces, at most 140 characters. */
function showable(text: string): string {
  const clean = text.replace(UNSHOWABLE, ' ');
  const chars = [...clean];
  return chars.length > SHOWN_LENGTH ? chars.slice(0, SHOWN_LENGTH).join('') : clean;
}

/** Every string of `value` made showable (the idempotency key is checked, not changed). */
function cleaned(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return showable(value);
  if (Array.isArray(value)) return depth > 8 ? value : value.map((item) => cleaned(item, depth + 1));
  if (!isRecord(value) || depth > 8) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, depth === 0 && name === IDEMPOTENCY_KEY ? item : cleaned(item, depth + 1)]));
}

/** `₦45,000.00`: naira as a Nigerian reader writes them. */
export const naira = (value: number): string => new Intl.NumberFormat('en-NG', { style: 'currency', currency: 'NGN' }).format(value);

/** A shown value: text in quotes, anything else as JSON. */
const quote = (value: unknown): string => (value === undefined || value === null ? '(none)' : JSON.stringify(value));

/** What the person is shown of one call, and what it sends. */
export interface Movement {
  tool: string;
  operation: OperationName;
  /** The amount moved (money) or allowed per debit (a mandate), in naira. */
  amount: number | undefined;
  /** One line each: what happens, from where, to where. */
  summary: string[];
  /** Every field given, as `name: "value"`. */
  details: string[];
  /** The path parameters, in the method's order. */
  params: unknown[];
  /** The body as it is sent: the shown values, without `currency` and `idempotency_key`. */
  body: Record<string, unknown> | undefined;
  idempotencyKey: string | undefined;
  /** What the confirmation and the key's record are bound to: the tool's input as shown. */
  bound: Record<string, unknown>;
}

/** The beneficiary of a direct-debit mandate, as the provider reports it. */
export interface Beneficiary {
  account: unknown;
  bank: unknown;
  name: unknown;
}

const ACTIONS: Partial<Record<OperationName, string>> = {
  'directDebits.create': 'set up a direct-debit mandate that lets money be taken from your account',
  'directDebits.update': 'change a direct-debit mandate on your account',
  'cards.create': 'create a payment card on your account',
  'accounts.holds.update': 'change a hold on your account',
};

/** The summary lines of each confirmed operation: what happens, from where, to where. */
function summaryOf(name: OperationName, f: Record<string, unknown>, beneficiary: Beneficiary | undefined): string[] {
  const to = (b: Beneficiary) => `account ${quote(b.account)} at bank ${quote(b.bank)}, name ${quote(b.name)}`;
  switch (name) {
    case 'transfers.create':
      return [`From: account ${quote(f.source_account_number)}`, `To: account ${quote(f.destination_account_number)} at bank ${quote(f.destination_bank_code)}`];
    case 'bills.pay':
      return [`From: account ${quote(f.source_account_number)}`, `To: biller ${quote(f.biller_id)} (category ${quote(f.category_id)}), bill reference ${quote(f.bill_reference)}`];
    case 'directDebits.charge':
      return [`From: the account that mandate ${quote(f.mandate_id)} debits`, `To: ${beneficiary ? to(beneficiary) : '(not reported by the bank)'}, the beneficiary of mandate ${quote(f.mandate_id)} as the bank reports it`];
    case 'accounts.holds.create':
      return [`From: account ${quote(f.account_number)} (held there, not moved)`, `Until: ${quote(f.hold_end_timestamp)}`];
    case 'directDebits.create':
    case 'directDebits.update':
      return [`To: account ${quote(f.destination_account)} at bank ${quote(f.destination_bank_code)}, name ${quote(f.destination_account_name)}`];
    case 'cards.create':
      return [`On: account ${quote(f.account_number)}, for ${quote(f.card_holder_name)}, status ${quote(f.card_status)}`];
    default:
      return [`On: account ${quote(f.account_number)}, hold ${quote(f.hold_reference)}, status ${quote(f.status)}`];
  }
}

/** The fields each summary already shows. */
const SUMMARY_FIELDS: Record<string, readonly string[]> = {
  'transfers.create': ['source_account_number', 'destination_account_number', 'destination_bank_code'],
  'bills.pay': ['source_account_number', 'biller_id', 'category_id', 'bill_reference'],
  'directDebits.charge': ['mandate_id'],
  'accounts.holds.create': ['account_number', 'hold_end_timestamp'],
  'directDebits.create': ['destination_account', 'destination_bank_code', 'destination_account_name'],
  'directDebits.update': ['destination_account', 'destination_bank_code', 'destination_account_name'],
  'cards.create': ['account_number', 'card_holder_name', 'card_status'],
  'accounts.holds.update': ['account_number', 'hold_reference', 'status'],
};

/** Every other field given, dotted, quoted; a secret (a PIN) is said to be set, never shown. */
function detailLines(value: Record<string, unknown>, skip: readonly string[], prefix = ''): string[] {
  return Object.entries(value).flatMap(([name, item]) => {
    const path = `${prefix}${name}`;
    if (prefix === '' && (skip.includes(name) || name === 'amount' || name === 'currency' || name === IDEMPOTENCY_KEY)) return [];
    if (isRecord(item)) return detailLines(item, skip, `${path}.`);
    if (isSecretField(name)) return [`${path}: set by the agent (not shown here)`];
    return [`${path}: ${quote(item)}`];
  });
}

/**
 * Checks a money or instrument tool's arguments and describes the call: unknown fields, another
 * currency or an amount with more than two decimals are refused before anything is asked or sent;
 * a charge reads the mandate's beneficiary first (through `target`), so the person sees where the
 * money goes as the provider reports it.
 */
export async function movementOf(tool: { name: string; operation: OperationName; params: readonly string[] }, args: unknown, target: OpenBanking | CustomerSession, options: RequestOptions): Promise<Movement> {
  const fields = parseOrThrow(shownSchema(tool.operation), cleaned(args ?? {}), `Invalid arguments for ${tool.name}`);
  const beneficiary = tool.operation === 'directDebits.charge' ? await beneficiaryOf(target, fields.mandate_id, options) : undefined;
  const { [IDEMPOTENCY_KEY]: key, currency: _naira, ...rest } = fields;
  const body = operations[tool.operation].body ? Object.fromEntries(Object.entries(rest).filter(([name]) => !tool.params.includes(name))) : undefined;
  const value = typeof fields.amount === 'number' ? fields.amount : undefined;
  return {
    tool: tool.name,
    operation: tool.operation,
    amount: value,
    summary: summaryOf(tool.operation, fields, beneficiary),
    details: detailLines(rest, SUMMARY_FIELDS[tool.operation] ?? []),
    params: tool.params.map((name) => fields[name]),
    body,
    idempotencyKey: key as string | undefined,
    bound: { ...rest, ...(beneficiary ? { '@beneficiary': beneficiary } : {}) },
  };
}

/** The mandate's beneficiary, read from the customer's mandates before the person is asked. */
async function beneficiaryOf(target: OpenBanking | CustomerSession, mandateId: unknown, options: RequestOptions): Promise<Beneficiary> {
  const { idempotencyKey: _key, ...read } = options;
  const { mandates } = await target.directDebits.list(read);
  const mandate = mandates.find((m) => m.mandate_id !== undefined && m.mandate_id !== null && String(m.mandate_id) === String(mandateId));
  if (!mandate) {
    throw new ValidationError('Refused', [{ path: 'mandate_id', message: "is not one of the customer's mandates (see directDebits_list); nothing was sent", code: 'not_found' }]);
  }
  return { account: mandate.destination_account ?? null, bank: mandate.destination_bank_code ?? null, name: mandate.destination_account_name ?? null };
}

/** Where the day stands against the limits, for the confirmation (naira). */
export interface DayStanding {
  date: string;
  spent: number;
  perCall: number;
  perDay: number;
}

/** The confirmation as lines: a title, then `label: value` rows (details indented under the summary). */
export interface ConfirmationLines {
  title: string;
  rows: { label: string; value: string; detail?: boolean }[];
}

/** A summary line `From: …` as a row. */
const row = (line: string) => ({ label: line.slice(0, line.indexOf(': ')), value: line.slice(line.indexOf(': ') + 2) });

/** What the person is shown, line by line: what happens, every field, and for money where the day stands. */
export function confirmationLines(m: Movement, day: DayStanding | undefined): ConfirmationLines {
  const money = MONEY_OPERATIONS.has(m.operation);
  const title = money ? `Confirm ${m.tool}: an AI agent asks to move money for you.` : `Confirm ${m.tool}: an AI agent asks to ${ACTIONS[m.operation]} for you.`;
  const rows: ConfirmationLines['rows'] = [];
  if (m.amount !== undefined) rows.push({ label: money ? 'Amount' : 'Amount per debit', value: `${naira(m.amount)} (${m.amount} NGN)` });
  rows.push(...m.summary.map(row), ...m.details.map((line) => ({ ...row(line), detail: true })));
  if (day && money) rows.push({ label: `Today (${day.date}, Lagos)`, value: `${naira(day.spent)} sent of ${naira(day.perDay)} a day; at most ${naira(day.perCall)} per call.` });
  return { title, rows };
}

/** The confirmation's text: what happens, every field, and for money where the day stands. */
export function confirmationText(m: Movement, day: DayStanding | undefined): string {
  const { title, rows } = confirmationLines(m, day);
  return [title, ...rows.map((r) => `${r.detail ? '  ' : ''}${r.label}: ${r.value}`)].join('\n');
}
