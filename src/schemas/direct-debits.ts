import * as z from 'zod/mini';
import { once } from '../core/validation.js';
import { byOperation, customPropertiesOut, customPropertiesSchema, id, maybe, maybeNumber, maybeText, oneOf, openEnum, pathParams, positive, text } from './common.js';

/*
 * The zod schemas of the direct-debit operations (§11 of the provider reference), loaded with the
 * first direct-debit call. `reference`, `narration` and `amount` are required on creation as on
 * update (the creation page flags nothing; the update page flags these three).
 */

/** How often a mandate may be charged. */
export const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY'] as const;

const mandateFields = once(() => ({
  /** Your external reference for the mandate. */
  reference: text(),
  /** Shown to the customer. */
  narration: text(),
  /** Amount per debit, major units. */
  amount: positive(),
  /** First day a debit may happen (a date, e.g. `'2025-01-01'`). */
  start_date: z.optional(text()),
  /** Debits attempted after this date fail. */
  end_date: z.optional(text()),
  /** `DAILY`, `WEEKLY`, `MONTHLY`, `QUARTERLY` or `YEARLY`. */
  frequency: z.optional(oneOf(FREQUENCIES)),
  /** The beneficiary's bank code. */
  destination_bank_code: z.optional(text()),
  /** The beneficiary's account number. */
  destination_account: z.optional(text()),
  /** The beneficiary's account name. */
  destination_account_name: z.optional(text()),
  /** Where the provider reports the status of each debit. */
  callback_url: z.optional(text(2048)),
}));

/** Body of `POST /direct-debits` (**partial**: from the provider's guide). */
export const createMandateSchema = once(() => z.strictObject({
  ...mandateFields(),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** Body of `PATCH /direct-debits/{mandate_id}`: the fields of the update page's table, which shows no `custom_properties`. */
export const updateMandateSchema = once(() => z.strictObject({
  ...mandateFields(),
  /** `INACTIVE` stops the mandate. */
  mandate_status: z.optional(oneOf(['ACTIVE', 'INACTIVE'])),
}));

/** Body of `POST /direct-debits/{mandate_id}`: one debit on the mandate. */
export const chargeMandateSchema = once(() => z.strictObject({
  /** Amount to debit, major units. */
  amount: positive(),
  /** Your reference for this debit. */
  reference: z.optional(text()),
  /** Shown to the customer. */
  narration: z.optional(text()),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

const mandateStatus = () => maybe(openEnum(['ACTIVE', 'INACTIVE']));

/** `data` of creating, updating or charging a mandate. */
export const mandateResultSchema = once(() => z.looseObject({
  /** `ACTIVE` or `INACTIVE`. */
  mandate_status: mandateStatus(),
  /** The mandate's id, e.g. `'MAN123456789'`. */
  mandate_id: maybe(id()),
  /** The earliest day the next debit may happen. */
  next_possible_charge_date: maybeText(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** One mandate of `GET /direct-debits`. */
export const mandateSchema = once(() => z.looseObject({
  /** `ACTIVE` or `INACTIVE`. */
  mandate_status: mandateStatus(),
  /** The mandate's id. */
  mandate_id: maybe(id()),
  /** Your external reference. */
  reference: maybeText(),
  /** Shown to the customer. */
  narration: maybeText(),
  /** Amount per debit, major units. */
  amount: maybeNumber(),
  /** First day a debit may happen. */
  start_date: maybeText(),
  /** Last day a debit may happen. */
  end_date: maybeText(),
  /** The earliest day the next debit may happen. */
  next_possible_charge_date: maybeText(),
  /** How often it may be charged. */
  frequency: maybe(openEnum(FREQUENCIES)),
  /** The beneficiary's bank code. */
  destination_bank_code: maybeText(),
  /** The beneficiary's account number. */
  destination_account: maybeText(),
  /** The beneficiary's account name. */
  destination_account_name: maybeText(),
  /** Status-notification URL. */
  callback_url: maybeText(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** `data` of `GET /direct-debits`. */
export const mandateListSchema = once(() => z.looseObject({
  /** The customer's mandates. */
  mandates: z.array(mandateSchema()),
}));

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'directDebits.create': () => ({ body: createMandateSchema(), response: mandateResultSchema() }),
  'directDebits.list': () => ({ response: mandateListSchema() }),
  'directDebits.update': () => ({ params: pathParams('mandate_id'), body: updateMandateSchema(), response: mandateResultSchema() }),
  'directDebits.charge': () => ({ params: pathParams('mandate_id'), body: chargeMandateSchema(), response: mandateResultSchema() }),
});
