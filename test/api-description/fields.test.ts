import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { operations } from '../../src/schemas.js';

// OPERATIONS.md §1, row by row: the members of every published body, query and `data` schema, and
// which of them are required, as the table and its "Types named above" list them. Nothing more
// (the table adds no field the provider's reference does not show), nothing less.

type Json = { type?: string; properties?: Record<string, Json>; required?: string[]; items?: Json; anyOf?: Json[]; additionalProperties?: unknown };

/** The object schema a JSON Schema describes: itself, an array's items, or the object branch of a nullable member. */
function objectOf(json: Json | undefined): Json {
  if (!json) return {};
  if (json.type === 'array') return objectOf(json.items);
  const branch = json.anyOf?.find((b) => b.type === 'object' || b.type === 'array');
  return branch ? objectOf(branch) : json;
}

/** `{ members, required }` of a schema, or of the object at `path` (dotted member names) inside it. */
function shape(schema: z.ZodMiniType | undefined, io: 'input' | 'output', path = '') {
  let json = objectOf(schema ? (z.toJSONSchema(schema, { io }) as Json) : undefined);
  for (const member of path.split('.').filter(Boolean)) json = objectOf(json.properties?.[member]);
  return { members: Object.keys(json.properties ?? {}).sort(), required: [...(json.required ?? [])].sort() };
}

const row = (members: string, required = '') => ({ members: members.split(/\s+/).filter(Boolean).sort(), required: required.split(/\s+/).filter(Boolean).sort() });

const CUSTOMER = 'customer_id first_name middle_name surname gender email bvn phone image proof_of_id proof_of_address address next_of_kin custom_properties';
const ACCOUNT = 'account_number customer_id account_name currency_code account_opening_date last_transaction_time account_type bvn phone_number email status custom_properties';
const SUMMARY =
  'account_number currency_code from to first_transaction last_transaction opening_balance closing_balance total_debit_count total_credit_count total_debit_value total_credit_value pages records_per_page';
const TRANSACTION = 'id amount channel transaction_type debit_credit narration reference transaction_time value_date balance_after';
const DISPUTE = 'report_reference report_status first_response_sla resolution_sla follow_up_email follow_up_phone custom_properties';
const MANDATE_RESULT = 'mandate_status mandate_id next_possible_charge_date custom_properties';
const CARD =
  'card_id customer_id product_id account_number card_scheme card_type card_mode card_status card_currency card_holder_name card_number card_cvv2 card_default_pin card_token card_expiry card_address custom_properties';
const MANDATE_BODY = 'reference narration amount start_date end_date frequency destination_bank_code destination_account destination_account_name callback_url';

/** Request bodies: the table's "request body" column, required fields in bold (starred inferences included). */
const BODIES: Record<string, ReturnType<typeof row>> = {
  'accounts.create': row('customer_ref product_id name_on_account dob first_name middle_name surname gender email phone proof_of_id proof_of_address address next_of_kin custom_properties'),
  'accounts.holds.create': row('reference amount narration hold_start_timestamp hold_end_timestamp status custom_properties', 'reference amount narration hold_start_timestamp hold_end_timestamp status'),
  'accounts.holds.update': row('status', 'status'),
  'transfers.enquiry': row('destination_bank_code destination_account_number custom_properties', 'destination_bank_code destination_account_number'),
  'transfers.create': row(
    'amount source_account_number destination_bank_code destination_account_number narration reference custom_properties',
    'amount source_account_number destination_bank_code destination_account_number',
  ),
  'bills.pay': row('amount source_account_number payer_info product_info custom_properties', 'amount source_account_number payer_info'),
  'disputes.create': row('reference description customer_id dispute_category_id amount custom_properties', 'reference description customer_id dispute_category_id amount'),
  'directDebits.create': row(`${MANDATE_BODY} custom_properties`, 'reference narration amount'),
  // §11.3's table: no custom_properties on an update.
  'directDebits.update': row(`${MANDATE_BODY} mandate_status`, 'reference narration amount'),
  'directDebits.charge': row('amount reference narration custom_properties', 'amount'),
  'cards.create': row(
    'card_status account_number card_holder_name card_default_pin card_expiry product_id card_type card_mode card_currency card_address custom_properties',
    'card_status account_number card_holder_name card_default_pin card_expiry',
  ),
};

const QUERIES: Record<string, ReturnType<typeof row>> = {
  'accounts.transactions.list': row('from to page', 'from to'),
  'savings.transactions.list': row('from to page'),
};

/**
 * `data` as the client returns it, and the objects inside it: [operation, member path, members,
 * required]. Every member of a named type is optional; a list the `data` object wraps is required.
 */
const RESPONSES: Array<[string, string, string, string?]> = [
  ['customers.retrieve', '', CUSTOMER],
  ['accounts.create', '', 'customer_id account_type status custom_properties'],
  ['accounts.list', 'accounts', ACCOUNT],
  ['accounts.balances.retrieve', '', 'account_number currency available_balance cleared_balance uncleared_balance hold_balance minimum_balance custom_properties'],
  ['accounts.transactions.list', '', 'summary transactions custom_properties', 'transactions'],
  ['accounts.transactions.list', 'summary', SUMMARY],
  ['accounts.transactions.list', 'transactions', `${TRANSACTION} authorization_token`],
  ['accounts.holds.list', 'holds', 'account_number reference amount narration start_hold_date end_hold_date status'],
  ['accounts.holds.create', '', 'reference'],
  ['accounts.holds.update', '', 'reference'],
  ['transfers.enquiry', '', 'name_on_account custom_properties'],
  ['transfers.create', '', 'batch_reference'],
  ['transfers.retrieve', '', 'reference status status_message custom_properties'],
  ['bills.categories.list', '', 'id name description'],
  ['bills.billers.list', '', 'billers custom_properties', 'billers'],
  ['bills.billers.list', 'billers', 'category_id id name products'],
  ['bills.billers.list', 'billers.products', 'id name reference_prompt currency fee fixed_amount'],
  ['bills.validate', '', 'amount reference currency fee product_info payer_info custom_properties'],
  ['bills.validate', 'product_info', 'category_id biller_id product_id'],
  ['bills.validate', 'payer_info', 'name email phone'],
  ['bills.pay', '', 'amount fee custom_properties'],
  ['disputes.categories.list', 'dispute_categories', 'id name description'],
  ['disputes.create', '', DISPUTE],
  ['disputes.retrieve', '', DISPUTE],
  ['directDebits.create', '', MANDATE_RESULT],
  ['directDebits.update', '', MANDATE_RESULT],
  ['directDebits.charge', '', MANDATE_RESULT],
  [
    'directDebits.list',
    'mandates',
    'mandate_status mandate_id reference narration amount start_date end_date next_possible_charge_date frequency destination_bank_code destination_account destination_account_name callback_url custom_properties',
  ],
  ['cards.list', 'cards', CARD],
  [
    'savings.list',
    'savings',
    'savings_id customer_id product_id start_date currency savings_amount frequency total_savings_amount total_savings_transactions missed_savings_amount missed_savings_transactions next_savings_due_date next_savings_due_amount custom_properties',
  ],
  // §14.2: the summary and the transactions, nothing else.
  ['savings.transactions.list', '', 'summary transactions', 'transactions'],
  ['savings.transactions.list', 'summary', SUMMARY],
  ['savings.transactions.list', 'transactions', `${TRANSACTION} status`],
];

type Name = keyof typeof operations;
const op = (name: string) => operations[name as Name] as { body?: z.ZodMiniType; query?: z.ZodMiniType; response?: z.ZodMiniType };

describe('the published schemas have the fields of OPERATIONS.md', () => {
  it('every operation with a body is in the table, and only those', () => {
    expect(Object.keys(operations).filter((n) => op(n).body).sort()).toEqual(Object.keys(BODIES).sort());
    expect(Object.keys(operations).filter((n) => op(n).query).sort()).toEqual(Object.keys(QUERIES).sort());
  });

  for (const [name, expected] of Object.entries(BODIES)) {
    it(`${name} body: the row's fields, its required ones in bold`, () => {
      expect(shape(op(name).body, 'input')).toEqual(expected);
    });
  }

  for (const [name, expected] of Object.entries(QUERIES)) {
    it(`${name} query: from, to, page`, () => {
      expect(shape(op(name).query, 'input')).toEqual(expected);
    });
  }

  for (const [name, path, members, required = ''] of RESPONSES) {
    it(`${name} data${path ? `.${path}` : ''}: ${members.split(' ').length} members, required: ${required || 'none'}`, () => {
      expect(shape(op(name).response, 'output', path)).toEqual(row(members, required));
    });
  }

  it('cards.create data: the seed spec requires card_id and card_status, the rest is optional', () => {
    expect(shape(op('cards.create').response, 'output')).toEqual(row(CARD, 'card_id card_status'));
  });
});
