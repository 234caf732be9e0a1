import type * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import * as S from '../schemas/customers.js';
import { Resource } from '../core/call.js';

/** The customer a token belongs to: every member optional and nullable, unknown fields kept. @group Customers */
export interface Customer extends z.output<ReturnType<typeof S.customerSchema>> {}

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  retrieve: defineOperation({ name: 'customers.retrieve', schemas: () => S.schemas['customers.retrieve'], method: 'GET', path: '/customers', token: 'customer', scopes: OPERATION_SCOPES['customers.retrieve'], input: 'none', source: '§6.1', completeness: 'full' }),
};

/**
 * The customer behind a session's token: `session.customers` (customer token only).
 * @group Customers
 */
export class Customers extends Resource {
  /**
   * The customer's details (`GET {base_url}/customers`, scope `customers.readonly`): the customer
   * is the one whose token the session carries. On `ob` it rejects with `ValidationError`
   * (`customer_token_required`) and sends nothing.
   *
   * @example
   * ```ts
   * declare const session: import('openbanking-ng').CustomerSession;
   * const me = await session.customers.retrieve();
   * console.log(me.first_name, me.surname);
   * ```
   */
  retrieve(options?: RequestOptions): APIPromise<Customer>;
  retrieve(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<Customer>;
  retrieve(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<Customer> {
    return this.run.call(operations.retrieve, [], first, second);
  }
}
