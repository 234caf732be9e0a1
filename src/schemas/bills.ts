import * as z from 'zod/mini';
import { once } from '../core/validation.js';
import { byOperation, customPropertiesOut, customPropertiesSchema, id, jsonType, maybe, maybeNumber, maybeText, pathParams, positive, text } from './common.js';

/*
 * The zod schemas of the bill-payment operations (§9 of the provider reference), loaded with the
 * first bills call. Ids are strings on some pages and numbers on others: both are accepted.
 */

/** One biller category (`id` is a number in the provider's guide, a string elsewhere). */
export const billerCategorySchema = once(() => z.looseObject({
  /** Category id, string or number. */
  id: maybe(id()),
  /** Name, e.g. `'Airtime'`. */
  name: maybeText(),
  /** Description. */
  description: maybeText(),
}));

/**
 * `data` of `GET /bills/categories`: a bare array in the provider's guide. An object whose only
 * array member is the list is accepted too, whatever that member's name.
 */
export const billerCategoryListSchema = once(() => z.array(billerCategorySchema()));

/** An object whose one array member is the category list, read as that list. */
const categoryList = (value: unknown): unknown => {
  if (Array.isArray(value) || typeof value !== 'object' || value === null) return value;
  const lists = Object.values(value).filter(Array.isArray);
  return lists.length === 1 ? lists[0] : value;
};

/** A product a biller sells. */
export const billerProductSchema = once(() => z.looseObject({
  /** Product id. */
  id: maybe(id()),
  /** Name. */
  name: maybeText(),
  /** What to ask the payer for, e.g. `'Smartcard number'`. */
  reference_prompt: maybeText(),
  /** ISO 4217 currency. */
  currency: maybeText(),
  /** Fee in major units. */
  fee: maybeNumber(),
  /** The product's fixed amount, or whether its amount is fixed (the reference does not say which). */
  fixed_amount: maybe(jsonType('number', 'boolean')),
}));

/** One biller of a category. */
export const billerSchema = once(() => z.looseObject({
  /** Category id. */
  category_id: maybe(id()),
  /** Biller id. */
  id: maybe(id()),
  /** Name. */
  name: maybeText(),
  /** What it sells. */
  products: maybe(z.array(billerProductSchema())),
}));

/** `data` of `GET /bills/{category_id}/billers`. */
export const billerListSchema = once(() => z.looseObject({
  /** The category's billers. */
  billers: z.array(billerSchema()),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** `{ name, email, phone }` of the payer, as validation returns it and payment takes it. */
const payerInfo = once(() => z.looseObject({
  /** Payer's name. */
  name: maybeText(),
  /** Payer's email. */
  email: maybeText(),
  /** Payer's phone. */
  phone: maybeText(),
}));

/** `{ category_id, biller_id, product_id }`, as validation returns it and payment takes it. */
const productInfo = once(() => z.looseObject({
  /** Category id. */
  category_id: maybe(id()),
  /** Biller id. */
  biller_id: maybe(id()),
  /** Product id. */
  product_id: maybe(id()),
}));

/** `data` of `GET /bills/{category_id}/billers/{biller_id}/reference/{bill_reference}`. */
export const billValidationSchema = once(() => z.looseObject({
  /** Amount due, major units. */
  amount: maybeNumber(),
  /** The bill reference. */
  reference: maybeText(),
  /** ISO 4217 currency. */
  currency: maybeText(),
  /** Fee, major units. */
  fee: maybeNumber(),
  /** What is paid. */
  product_info: maybe(productInfo()),
  /** Who the bill is for. */
  payer_info: maybe(payerInfo()),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/**
 * Body of `POST /bills/{category_id}/billers/{biller_id}/reference/{bill_reference}`. The members of
 * `payer_info` and `product_info` are optional and passed through, so the objects a validation
 * returned can be copied in as they are.
 */
export const payBillSchema = once(() => z.strictObject({
  /** Amount in major units. */
  amount: positive(),
  /** The account to debit. */
  source_account_number: text(),
  /** Who the bill is for: `{ name, email, phone }`. */
  payer_info: payerInfo(),
  /** What is paid: `{ category_id, biller_id, product_id }`. */
  product_info: z.optional(productInfo()),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** `data` of paying a bill (the reference shows no transaction reference or status). */
export const billPaymentSchema = once(() => z.looseObject({
  /** Amount paid, major units. */
  amount: maybeNumber(),
  /** Fee charged, major units. */
  fee: maybeNumber(),
  /** Extension items. */
  custom_properties: customPropertiesOut(),
}));

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'bills.categories.list': () => ({ response: billerCategoryListSchema(), reshape: categoryList }),
  'bills.billers.list': () => ({ params: pathParams('category_id'), response: billerListSchema() }),
  'bills.validate': () => ({ params: pathParams('category_id', 'biller_id', 'bill_reference'), response: billValidationSchema() }),
  'bills.pay': () => ({ params: pathParams('category_id', 'biller_id', 'bill_reference'), body: payBillSchema(), response: billPaymentSchema() }),
});
