import * as z from 'zod/mini';
import { once } from '../core/validation.js';
import { byOperation, customPropertiesOut, maybe, maybeText, openEnum } from './common.js';

/*
 * The zod schemas of the customer operations (§6 of the provider reference), loaded with the
 * first customer call. Every member is optional and nullable: the guide's sample has `null`
 * nearly everywhere and no `customer_id`. Unknown fields are kept.
 */

/** A document: its type and the file, base64. */
export const documentSchema = once(() => z.looseObject({
  /** What the document is, e.g. `"Driver's licence"`, `'Utility bill'`. */
  document_type: maybeText(),
  /** The file, base64. */
  document: maybeText(),
}));

/** A postal address as the customer pages give it. */
export const addressSchema = once(() => z.looseObject({
  /** Street and number. */
  street: maybeText(),
  /** Area or district. */
  area: maybeText(),
  /** City. */
  city: maybeText(),
  /** Local government area. */
  local_government: maybeText(),
  /** Country, ISO 3166-1 alpha-2 (`NG`). */
  country: maybeText(),
}));

/** The customer's next of kin. */
export const nextOfKinSchema = once(() => z.looseObject({
  /** First name. */
  first_name: maybeText(),
  /** Middle name. */
  middle_name: maybeText(),
  /** Surname. */
  surname: maybeText(),
  /** `M` or `F`. */
  gender: maybe(openEnum(['M', 'F'])),
  /** Email address. */
  email: maybeText(),
  /** Phone number. */
  phone: maybeText(),
  /** How they are related to the customer. */
  relationship: maybeText(),
  /** Their address. */
  address: maybe(addressSchema()),
}));

/** `data` of `GET /customers`: the customer the token belongs to. */
export const customerSchema = once(() => z.looseObject({
  /** Customer identifier. */
  customer_id: maybeText(),
  /** First name. */
  first_name: maybeText(),
  /** Middle name. */
  middle_name: maybeText(),
  /** Surname. */
  surname: maybeText(),
  /** `M` or `F`. */
  gender: maybe(openEnum(['M', 'F'])),
  /** Email address. */
  email: maybeText(),
  /** Bank verification number (personal data: redacted from logs). */
  bvn: maybeText(),
  /** Phone number. */
  phone: maybeText(),
  /** Photo, base64. */
  image: maybeText(),
  /** Proof of identity. */
  proof_of_id: maybe(documentSchema()),
  /** Proof of address. */
  proof_of_address: maybe(documentSchema()),
  /** Postal address. */
  address: maybe(addressSchema()),
  /** Next of kin. */
  next_of_kin: maybe(nextOfKinSchema()),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'customers.retrieve': () => ({ response: customerSchema() }),
});
