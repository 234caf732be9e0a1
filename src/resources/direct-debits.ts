import type * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import * as S from '../schemas/direct-debits.js';
import type { PathParam } from './accounts.js';
import { Resource } from '../core/call.js';

/** Body of `directDebits.create` (**partial**: from the provider's guide). @group Direct debits */
export interface CreateMandateParams extends z.input<ReturnType<typeof S.createMandateSchema>> {}
/** Body of `directDebits.update`. @group Direct debits */
export interface UpdateMandateParams extends z.input<ReturnType<typeof S.updateMandateSchema>> {}
/** Body of `directDebits.charge`: one debit on a mandate. @group Direct debits */
export interface ChargeMandateParams extends z.input<ReturnType<typeof S.chargeMandateSchema>> {}
/** What creating, updating or charging a mandate returns. @group Direct debits */
export interface MandateResult extends z.output<ReturnType<typeof S.mandateResultSchema>> {}
/** A direct-debit mandate. @group Direct debits */
export interface Mandate extends z.output<ReturnType<typeof S.mandateSchema>> {}
/** `data` of `directDebits.list`. @group Direct debits */
export interface MandateList extends z.output<ReturnType<typeof S.mandateListSchema>> {}

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  create: defineOperation({ name: 'directDebits.create', schemas: () => S.schemas['directDebits.create'], method: 'POST', path: '/direct-debits', token: 'customer', scopes: OPERATION_SCOPES['directDebits.create'], input: 'body', source: '§11.1', completeness: 'partial' }),
  list: defineOperation({ name: 'directDebits.list', schemas: () => S.schemas['directDebits.list'], method: 'GET', path: '/direct-debits', token: 'customer', scopes: OPERATION_SCOPES['directDebits.list'], input: 'none', source: '§11.2', completeness: 'full' }),
  update: defineOperation({ name: 'directDebits.update', schemas: () => S.schemas['directDebits.update'], method: 'PATCH', path: '/direct-debits/{mandate_id}', token: 'customer', scopes: OPERATION_SCOPES['directDebits.update'], input: 'body', source: '§11.3', completeness: 'full' }),
  charge: defineOperation({ name: 'directDebits.charge', schemas: () => S.schemas['directDebits.charge'], method: 'POST', path: '/direct-debits/{mandate_id}', token: 'customer', scopes: OPERATION_SCOPES['directDebits.charge'], input: 'body', source: '§11.4', completeness: 'full' }),
};

/**
 * Direct-debit mandates: `session.directDebits` (the customer's token).
 * @group Direct debits
 */
export class DirectDebits extends Resource {
  /** Creates a mandate (`POST /direct-debits`, customer token, scope `direct-debits.create`). */
  create(body: CreateMandateParams, options?: RequestOptions): APIPromise<MandateResult> {
    return this.run.call(operations.create, [], body, options);
  }

  /**
   * The customer's mandates (`GET /direct-debits`, customer token, scope `direct-debits.list`).
   * There is no call for one mandate: filter this list by `mandate_id`.
   */
  list(options?: RequestOptions): APIPromise<MandateList>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<MandateList>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<MandateList> {
    return this.run.call(operations.list, [], first, second);
  }

  /** Updates a mandate; `mandate_status: 'INACTIVE'` stops it (`PATCH /direct-debits/{mandate_id}`, scope `direct-debits.update`). */
  update(mandateId: PathParam, body: UpdateMandateParams, options?: RequestOptions): APIPromise<MandateResult> {
    return this.run.call(operations.update, [mandateId], body, options);
  }

  /**
   * Debits the customer's account once on a mandate (`POST /direct-debits/{mandate_id}`, customer
   * token, scope `direct-debits.transaction.create`). After a crash or a lost answer, call again
   * with the **same** `idempotencyKey`: the debit happens at most once.
   */
  charge(mandateId: PathParam, body: ChargeMandateParams, options?: RequestOptions): APIPromise<MandateResult> {
    return this.run.call(operations.charge, [mandateId], body, options);
  }
}
