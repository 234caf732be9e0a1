import * as z from 'zod/mini';
import { once } from '../core/validation.js';
import { anyObject, byOperation, customPropertiesOut, customPropertiesSchema, id, isoDate, jsonType, maybe, maybeNumber, maybeText, oneOf, openEnum, pageNumber, pathParams, positive, text } from './common.js';

/*
 * The zod schemas of the account operations (§7 of the provider reference).
 * Requests check what the reference flags as required; responses keep unknown
 * fields and take every member as optional (samples carry `null`).
 */

const looseRecord = () => z.optional(anyObject());

/** Body of `POST /accounts`: the reference flags no field as required. */
export const openAccountSchema = once(() => z.strictObject({
  /** The customer the account is for. */
  customer_ref: z.optional(text()),
  /** Product identifier, e.g. `'SBA123'`. */
  product_id: z.optional(text()),
  /** Name on the account. */
  name_on_account: z.optional(text()),
  /** Date of birth, `YYYY-MM-DD`. */
  dob: z.optional(isoDate()),
  /** First name. */
  first_name: z.optional(text()),
  /** Middle name. */
  middle_name: z.optional(text()),
  /** Surname. */
  surname: z.optional(text()),
  /** `M` or `F`. */
  gender: z.optional(oneOf(['M', 'F'])),
  /** Email address. */
  email: z.optional(text()),
  /** Phone number. */
  phone: z.optional(text()),
  /** Proof of identity `{ document_type, document }` (members as on `customers.retrieve`). */
  proof_of_id: looseRecord(),
  /** Proof of address `{ document_type, document }`. */
  proof_of_address: looseRecord(),
  /** Postal address `{ street, area, city, local_government, country }`. */
  address: looseRecord(),
  /** Next of kin. */
  next_of_kin: looseRecord(),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** `data` of `POST /accounts`: no `account_number` (the bank sends it to the customer later). */
export const openedAccountSchema = once(() => z.looseObject({
  /** Customer identifier. */
  customer_id: maybeText(),
  /** Account type, e.g. `'SBA'`. */
  account_type: maybeText(),
  /** Status, e.g. `'ACTIVE'`. */
  status: maybe(openEnum(['ACTIVE', 'INACTIVE'])),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** One account of `GET /accounts`. */
export const accountSchema = once(() => z.looseObject({
  /** NUBAN account number. */
  account_number: maybeText(),
  /** Customer identifier. */
  customer_id: maybeText(),
  /** Account name. */
  account_name: maybeText(),
  /** ISO 4217 currency, e.g. `'NGN'`. */
  currency_code: maybeText(),
  /** Opening date, as sent. */
  account_opening_date: maybeText(),
  /** Time of the last transaction, as sent. */
  last_transaction_time: maybeText(),
  /** Account type, free text. */
  account_type: maybeText(),
  /** Bank verification number. */
  bvn: maybeText(),
  /** Phone number. */
  phone_number: maybeText(),
  /** Email address. */
  email: maybeText(),
  /** Status, e.g. `'ACTIVE'`. */
  status: maybe(openEnum(['ACTIVE', 'INACTIVE'])),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** `data` of `GET /accounts`. */
export const accountListSchema = once(() => z.looseObject({
  /** The customer's accounts. */
  accounts: z.array(accountSchema()),
}));

/** `data` of `GET /accounts/{account_number}/balances`: amounts in major units. */
export const balancesSchema = once(() => z.looseObject({
  /** NUBAN account number. */
  account_number: maybeText(),
  /** ISO 4217 currency. */
  currency: maybeText(),
  /** Available balance. */
  available_balance: maybeNumber(),
  /** Cleared balance. */
  cleared_balance: maybeNumber(),
  /** Uncleared balance. */
  uncleared_balance: maybeNumber(),
  /** Amount on hold. */
  hold_balance: maybeNumber(),
  /** Minimum balance. */
  minimum_balance: maybeNumber(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** Query of `GET /accounts/{account_number}/transactions`. */
export const transactionsQuerySchema = once(() => z.strictObject({
  /** Start of the range, `YYYY-MM-DD`. */
  from: isoDate(),
  /** End of the range, `YYYY-MM-DD`. */
  to: isoDate(),
  /** Page to start from (≥ 1). Default 1. */
  page: z.optional(pageNumber()),
}));

/** The `summary` of a transaction page. `pages` is what iteration follows. */
export const transactionSummarySchema = once(() => z.looseObject({
  /** NUBAN account number. */
  account_number: maybeText(),
  /** ISO 4217 currency. */
  currency_code: maybeText(),
  /** Start of the range. */
  from: maybeText(),
  /** End of the range. */
  to: maybeText(),
  /** First transaction in the range. */
  first_transaction: maybeText(),
  /** Last transaction in the range. */
  last_transaction: maybeText(),
  /** Balance at the start of the range. */
  opening_balance: maybeNumber(),
  /** Balance at the end of the range. */
  closing_balance: maybeNumber(),
  /** Number of debits. */
  total_debit_count: maybeNumber(),
  /** Number of credits. */
  total_credit_count: maybeNumber(),
  /** Sum of the debits. */
  total_debit_value: maybeNumber(),
  /** Sum of the credits. */
  total_credit_value: maybeNumber(),
  /** How many pages there are. */
  pages: maybe(jsonType('number', 'string')),
  /** Items per page. */
  records_per_page: maybe(jsonType('number', 'string')),
}));

/** One transaction of an account. */
/** The members account and savings transactions share (savings: no `authorization_token`, plus `status`). */
export const transactionFields = once(() => ({
  /** Transaction identifier: a string or a whole number (one of 2^53 or more was rounded by JSON parsing, and is refused). */
  id: maybe(id()),
  /** Amount, major units. */
  amount: maybeNumber(),
  /** Channel, e.g. `'ATM'`. */
  channel: maybe(openEnum(['ATM', 'POS', 'WEB', 'MOBILE', 'BRANCH'])),
  /** Type, e.g. `'WITHDRAWAL'`. */
  transaction_type: maybeText(),
  /** `DEBIT` or `CREDIT`. */
  debit_credit: maybe(openEnum(['DEBIT', 'CREDIT'])),
  /** Narration. */
  narration: maybeText(),
  /** Reference. */
  reference: maybeText(),
  /** Time as sent (seven fractional digits, no zone, on the reference's example). */
  transaction_time: maybeText(),
  /** Value date. */
  value_date: maybeText(),
  /** Balance after the transaction. */
  balance_after: maybeNumber(),
}));

/** One transaction of an account. */
export const accountTransactionSchema = once(() => z.looseObject({
  ...transactionFields(),
  /** How it was authorised, e.g. `'ACCOUNT'`. */
  authorization_token: maybe(openEnum(['ACCOUNT', 'CARD'])),
}));

/** `data` of one page of `GET /accounts/{account_number}/transactions`. */
export const transactionPageSchema = once(() => z.looseObject({
  /** Totals of the range and the paging. */
  summary: maybe(transactionSummarySchema()),
  /** This page's transactions. */
  transactions: z.array(accountTransactionSchema()),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** One hold of `GET /accounts/{account_number}/holds` (dates named as the list answer names them). */
export const holdSchema = once(() => z.looseObject({
  /** NUBAN account number. */
  account_number: maybeText(),
  /** The hold's reference. */
  reference: maybeText(),
  /** Amount held, major units. */
  amount: maybeNumber(),
  /** Reason. */
  narration: maybeText(),
  /** Start of the hold. */
  start_hold_date: maybeText(),
  /** End of the hold. */
  end_hold_date: maybeText(),
  /** `ACTIVE` or `INACTIVE`. */
  status: maybe(openEnum(['ACTIVE', 'INACTIVE'])),
}));

/** `data` of `GET /accounts/{account_number}/holds`. */
export const holdListSchema = once(() => z.looseObject({
  /** The account's holds. */
  holds: z.array(holdSchema()),
}));

/** Body of `POST /accounts/{account_number}/holds` (dates named as the request names them). */
export const placeHoldSchema = once(() => z.strictObject({
  /** Your unique reference for the hold, e.g. `'HLD123456789'`. */
  reference: text(),
  /** Amount to hold, major units. */
  amount: positive(),
  /** Reason for the hold. */
  narration: text(),
  /** When the hold starts, `YYYY-MM-DD`. */
  hold_start_timestamp: text(),
  /** When the bank releases the funds if no payment is made against them, `YYYY-MM-DD`. */
  hold_end_timestamp: text(),
  /** `ACTIVE` or `INACTIVE`. */
  status: oneOf(['ACTIVE', 'INACTIVE']),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** Body of `PATCH /accounts/{account_number}/holds/{hold_reference}`: `INACTIVE` releases the hold. */
export const updateHoldSchema = once(() => z.strictObject({
  /** `INACTIVE` releases the hold. */
  status: oneOf(['ACTIVE', 'INACTIVE']),
}));

/** `data` of placing or releasing a hold. */
export const holdReferenceSchema = once(() => z.looseObject({
  /** The hold's reference. */
  reference: maybeText(),
}));

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'accounts.create': () => ({ body: openAccountSchema(), response: openedAccountSchema() }),
  'accounts.list': () => ({ response: accountListSchema() }),
  'accounts.balances.retrieve': () => ({ params: pathParams('account_number'), response: balancesSchema() }),
  'accounts.transactions.list': () => ({ params: pathParams('account_number'), query: transactionsQuerySchema(), response: transactionPageSchema() }),
  'accounts.holds.list': () => ({ params: pathParams('account_number'), response: holdListSchema() }),
  'accounts.holds.create': () => ({ params: pathParams('account_number'), body: placeHoldSchema(), response: holdReferenceSchema() }),
  'accounts.holds.update': () => ({ params: pathParams('account_number', 'hold_reference'), body: updateHoldSchema(), response: holdReferenceSchema() }),
});
