import * as z from 'zod/mini';
import { once } from '../core/validation.js';
import { byOperation, customPropertiesOut, customPropertiesSchema, id, maybe, maybeText, openEnum, pathParams, positive, text } from './common.js';

/*
 * The zod schemas of the transfer operations (§8 of the provider reference).
 * The name enquiry flags no field as required; the bank code and account number are
 * checked for presence and type only (the reference's example account number has 11 digits).
 */

/** Body of `POST /transactions/enquiry`: whose account is this? */
export const nameEnquirySchema = once(() => z.strictObject({
  /** The destination bank's code, e.g. `'000007'`. */
  destination_bank_code: text(),
  /** The destination account number (no length is enforced: the reference's example has 11 digits). */
  destination_account_number: text(),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** `data` of `POST /transactions/enquiry`. */
export const nameEnquiryResultSchema = once(() => z.looseObject({
  /** The name the destination bank holds for the account. */
  name_on_account: maybeText(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/**
 * Body of the transfer (**unofficial**: the provider's page shows no body; these fields are the
 * ones a working integration sends). Fields not listed here are passed through unchecked.
 */
export const createTransferSchema = once(() => z.looseObject({
  /** Amount in major units (`100` is ₦100.00). */
  amount: positive(),
  /** The account to debit. */
  source_account_number: text(),
  /** The destination bank's code. */
  destination_bank_code: text(),
  /** The destination account number. */
  destination_account_number: text(),
  /** Shown on both statements. */
  narration: z.optional(text()),
  /** Your reference for the transfer. */
  reference: z.optional(text()),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** `data` of the transfer: kept as returned; `batch_reference` (for `transfers.retrieve`) when the provider sends one. */
export const transferResultSchema = once(() => z.looseObject({
  /** The batch reference to ask `transfers.retrieve` about. */
  batch_reference: maybe(id()),
}));

/** `data` of `GET /transactions/{batch_reference}`. */
export const transferStatusSchema = once(() => z.looseObject({
  /** The transfer's reference. */
  reference: maybeText(),
  /** Its status: `SUCCESSFUL` is the only value the reference shows; the sandbox also answers `PENDING`. */
  status: maybe(openEnum(['PENDING', 'SUCCESSFUL', 'FAILED'])),
  /** A description of the status. */
  status_message: maybeText(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'transfers.enquiry': () => ({ body: nameEnquirySchema(), response: nameEnquiryResultSchema() }),
  'transfers.create': () => ({ body: createTransferSchema(), response: transferResultSchema() }),
  'transfers.retrieve': () => ({ params: pathParams('batch_reference'), response: transferStatusSchema() }),
});
