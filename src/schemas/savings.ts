import * as z from 'zod/mini';
import { transactionFields, transactionSummarySchema } from './accounts.js';
import { once } from '../core/validation.js';
import { byOperation, customPropertiesOut, id, maybe, maybeNumber, maybeText, openEnum, pageNumber, pathParams, text } from './common.js';

// The zod schemas of the savings operations (§14 of the provider reference).

/** One savings plan. */
export const savingsSchema = once(() => z.looseObject({
  /** The plan's id (for `savings.transactions.list`). */
  savings_id: maybe(id()),
  /** Customer identifier. */
  customer_id: maybe(id()),
  /** Product identifier. */
  product_id: maybe(id()),
  /** When saving started. */
  start_date: maybeText(),
  /** ISO 4217 currency. */
  currency: maybeText(),
  /** Amount per saving, major units. */
  savings_amount: maybeNumber(),
  /** `DAILY`, `WEEKLY`, `MONTHLY`, `QUARTERLY` or `YEARLY`. */
  frequency: maybe(openEnum(['DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY'])),
  /** Saved so far, major units. */
  total_savings_amount: maybeNumber(),
  /** Savings made so far. */
  total_savings_transactions: maybeNumber(),
  /** Missed so far, major units. */
  missed_savings_amount: maybeNumber(),
  /** Savings missed so far. */
  missed_savings_transactions: maybeNumber(),
  /** When the next saving is due. */
  next_savings_due_date: maybeText(),
  /** How much is due then. */
  next_savings_due_amount: maybeNumber(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/**
 * `data` of `GET /savings`: `{ savings }`. The API reference names the list `loans`, the guide
 * `savings`; a `loans` list is copied into `savings` when `savings` is absent.
 */
export const savingsListSchema = once(() => z.looseObject({
  /** The customer's savings plans. */
  savings: z.array(savingsSchema()),
}));

/** A `loans` list, when `savings` is absent, read as `savings`. */
const loansAsSavings = (value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const data = value as Record<string, unknown>;
  return data.savings === undefined && Array.isArray(data.loans) ? { ...data, savings: data.loans } : data;
};

/** Query of `GET /savings/{savings_id}/transactions`: every member optional. */
export const savingsTransactionsQuerySchema = once(() => z.optional(
  z.strictObject({
    /** Start of the range (the format is not stated; `YYYY-MM-DD` works on the sandbox). */
    from: z.optional(text()),
    /** End of the range. */
    to: z.optional(text()),
    /** Page to start from (≥ 1). Default 1. */
    page: z.optional(pageNumber()),
  }),
));

/** One transaction of a savings plan. */
export const savingsTransactionSchema = once(() => z.looseObject({
  ...transactionFields(),
  /** Type, e.g. `'SAVINGS'` or `'WITHDRAWAL'`. */
  transaction_type: maybe(openEnum(['WITHDRAWAL', 'DEPOSIT', 'TRANSFER', 'PAYMENT', 'BILL_PAYMENT', 'AIRTIME', 'LOAN', 'SAVINGS', 'INVESTMENT', 'OTHER'])),
  /** Status, e.g. `'SUCCESSFUL'`. */
  status: maybe(openEnum(['SUCCESSFUL', 'FAILED', 'PENDING'])),
}));

/** `data` of one page of `GET /savings/{savings_id}/transactions`: the summary and the transactions (§14.2 shows nothing else; other members are kept). */
export const savingsTransactionPageSchema = once(() => z.looseObject({
  /** Totals of the range and the paging. */
  summary: maybe(transactionSummarySchema()),
  /** This page's transactions. */
  transactions: z.array(savingsTransactionSchema()),
}));

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'savings.list': () => ({ response: savingsListSchema(), reshape: loansAsSavings }),
  'savings.transactions.list': () => ({ params: pathParams('savings_id'), query: savingsTransactionsQuerySchema(), response: savingsTransactionPageSchema() }),
});
