import type * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import * as S from '../schemas/bills.js';
import type { PathParam } from './accounts.js';
import { Resource } from '../core/call.js';

/** A biller category; `id` is a string or a number. @group Bills */
export interface BillerCategory extends z.output<ReturnType<typeof S.billerCategorySchema>> {}
/** A product a biller sells. @group Bills */
export interface BillerProduct extends z.output<ReturnType<typeof S.billerProductSchema>> {}
/** A biller, with its products. @group Bills */
export interface Biller extends z.output<ReturnType<typeof S.billerSchema>> {}
/** `data` of `bills.billers.list`. @group Bills */
export interface BillerList extends z.output<ReturnType<typeof S.billerListSchema>> {}
/** What validating a bill returns: the amount due, the fee, and who and what it is for. @group Bills */
export interface BillValidation extends z.output<ReturnType<typeof S.billValidationSchema>> {}
/** Body of `bills.pay`. @group Bills */
export interface PayBillParams extends z.input<ReturnType<typeof S.payBillSchema>> {}
/** What paying a bill returns. @group Bills */
export interface BillPayment extends z.output<ReturnType<typeof S.billPaymentSchema>> {}

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  categories: defineOperation({ name: 'bills.categories.list', schemas: () => S.schemas['bills.categories.list'], method: 'GET', path: '/bills/categories', token: 'client', scopes: OPERATION_SCOPES['bills.categories.list'], input: 'none', source: '§9.1', completeness: 'partial' }),
  billers: defineOperation({ name: 'bills.billers.list', schemas: () => S.schemas['bills.billers.list'], method: 'GET', path: '/bills/{category_id}/billers', token: 'client', scopes: OPERATION_SCOPES['bills.billers.list'], input: 'none', source: '§9.2', completeness: 'full' }),
  validate: defineOperation({ name: 'bills.validate', schemas: () => S.schemas['bills.validate'], method: 'GET', path: '/bills/{category_id}/billers/{biller_id}/reference/{bill_reference}', token: 'both', scopes: OPERATION_SCOPES['bills.validate'], input: 'none', source: '§9.3', completeness: 'full' }),
  pay: defineOperation({ name: 'bills.pay', schemas: () => S.schemas['bills.pay'], method: 'POST', path: '/bills/{category_id}/billers/{biller_id}/reference/{bill_reference}', token: 'customer', scopes: OPERATION_SCOPES['bills.pay'], input: 'body', source: '§9.4', completeness: 'full' }),
};

/**
 * Biller categories: `ob.bills.categories` (client credentials, no consent needed).
 * @group Bills
 */
export class BillerCategories extends Resource {
  /** Every biller category (`GET /bills/categories`, client credentials, scope `bills.categories.list`). */
  list(options?: RequestOptions): APIPromise<BillerCategory[]>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<BillerCategory[]>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<BillerCategory[]> {
    return this.run.call(operations.categories, [], first, second);
  }
}

/**
 * Billers: `ob.bills.billers` (client credentials, no consent needed).
 * @group Bills
 */
export class Billers extends Resource {
  /** The billers of a category, with their products (`GET /bills/{category_id}/billers`, scope `bills.billers.list`). */
  list(categoryId: PathParam, options?: RequestOptions): APIPromise<BillerList> {
    return this.run.call(operations.billers, [categoryId], undefined, options);
  }
}

/**
 * Bill payments: categories and billers on `ob`, validation on either, payment on a customer
 * session.
 * @group Bills
 */
export class Bills extends Resource {
  /** Biller categories. */
  readonly categories: BillerCategories = new BillerCategories(this.run);
  /** Billers of a category. */
  readonly billers: Billers = new Billers(this.run);

  /**
   * Looks a bill up: the amount due, the fee, the payer
   * (`GET /bills/{category_id}/billers/{biller_id}/reference/{bill_reference}`, scope
   * `bills.bill.validate`; client credentials on `ob`, the customer's token on a session).
   */
  validate(categoryId: PathParam, billerId: PathParam, billReference: PathParam, options?: RequestOptions): APIPromise<BillValidation> {
    return this.run.call(operations.validate, [categoryId, billerId, billReference], undefined, options);
  }

  /**
   * Pays a bill from the customer's account
   * (`POST /bills/{category_id}/billers/{biller_id}/reference/{bill_reference}`, customer token,
   * scope `bills.transactions.create`). The `payer_info` and `product_info` of a validation can be
   * passed as they are. After a crash or a lost answer, call again with the **same**
   * `idempotencyKey`: the bill is paid at most once.
   */
  pay(categoryId: PathParam, billerId: PathParam, billReference: PathParam, body: PayBillParams, options?: RequestOptions): APIPromise<BillPayment> {
    return this.run.call(operations.pay, [categoryId, billerId, billReference], body, options);
  }
}
