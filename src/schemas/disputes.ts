import * as z from 'zod/mini';
import { once } from '../core/validation.js';
import { byOperation, customPropertiesOut, customPropertiesSchema, id, maybe, maybeText, openEnum, pathParams, positive, text } from './common.js';

// The zod schemas of the dispute operations (§10 of the provider reference).

/** One dispute category. */
export const disputeCategorySchema = once(() => z.looseObject({
  /** Category id (pass it, as a string, as `dispute_category_id`). */
  id: maybe(id()),
  /** Name. */
  name: maybeText(),
  /** Description. */
  description: maybeText(),
}));

/** `data` of `GET /disputes/categories`. */
export const disputeCategoryListSchema = once(() => z.looseObject({
  /** The categories. */
  dispute_categories: z.array(disputeCategorySchema()),
}));

/** Body of `POST /disputes`: every field but `custom_properties` is required. */
export const createDisputeSchema = once(() => z.strictObject({
  /** Your reference for the report, e.g. `'DISP1234567890'`. */
  reference: text(),
  /** What went wrong. */
  description: text(),
  /** The customer reporting it. */
  customer_id: text(),
  /** A category id from `disputes.categories.list()`. */
  dispute_category_id: text(),
  /** The disputed amount, major units. */
  amount: positive(),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** A dispute report and where it stands. */
export const disputeSchema = once(() => z.looseObject({
  /** The report's reference (for `disputes.retrieve`). */
  report_reference: maybeText(),
  /** Status, e.g. `'LOGGED'` (no full list is published). */
  report_status: maybe(openEnum(['LOGGED', 'IN_PROGRESS', 'RESOLVED', 'CLOSED'])),
  /** When a first answer is due, e.g. `'24 hours'`. */
  first_response_sla: maybeText(),
  /** When a resolution is due, e.g. `'7 days'`. */
  resolution_sla: maybeText(),
  /** Where to follow up by email. */
  follow_up_email: maybeText(),
  /** Where to follow up by phone. */
  follow_up_phone: maybeText(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** `data` of `GET /disputes/{report_reference}`: a bare array; a lone object is wrapped into one. */
export const disputeListSchema = once(() => z.array(disputeSchema()));

/** A lone dispute, read as a list of one. */
const asList = (value: unknown): unknown => (typeof value === 'object' && value !== null && !Array.isArray(value) ? [value] : value);

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'disputes.categories.list': () => ({ response: disputeCategoryListSchema() }),
  'disputes.create': () => ({ body: createDisputeSchema(), response: disputeSchema() }),
  'disputes.retrieve': () => ({ params: pathParams('report_reference'), response: disputeListSchema(), reshape: asList }),
});
