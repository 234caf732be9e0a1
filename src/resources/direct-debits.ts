import type * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/call-options.js';
import { Lazy } from '../core/lazy.js';
import type * as S from '../schemas/direct-debits.js';
import type { PathParam } from './accounts.js';
import { defineOperation } from './operation.js';
import { noInput, Resource } from './resource.js';

/** Body of `directDebits.create` (**partial**: from the provider's guide). @group Direct debits */
export interface CreateMandateParams extends z.input<typeof S.createMandateSchema> {}
/** Body of `directDebits.update`. @group Direct debits */
export interface UpdateMandateParams extends z.input<typeof S.updateMandateSchema> {}
/** Body of `directDebits.charge`: one debit on a mandate. @group Direct debits */
export interface ChargeMandateParams extends z.input<typeof S.chargeMandateSchema> {}
/** What creating, updating or charging a mandate returns. @group Direct debits */
export interface MandateResult extends z.output<typeof S.mandateResultSchema> {}
/** A direct-debit mandate. @group Direct debits */
export interface Mandate extends z.output<typeof S.mandateSchema> {}
/** `data` of `directDebits.list`. @group Direct debits */
export interface MandateList extends z.output<typeof S.mandateListSchema> {}

const schemas = new Lazy(() => import('../schemas/direct-debits.js'));
const full = { schemas, completeness: 'full', token: 'customer', response: 'mandateResultSchema' } as const;

/** The direct-debit operations (§11 of the provider reference). */
export const DIRECT_DEBIT_OPERATIONS = {
  create: defineOperation({ ...full, completeness: 'partial', name: 'directDebits.create', method: 'POST', path: '/direct-debits', scopes: ['direct-debits.create'], input: 'body', request: 'createMandateSchema', source: '§11.1' }),
  list: defineOperation({ ...full, name: 'directDebits.list', method: 'GET', path: '/direct-debits', scopes: ['direct-debits.list'], input: 'none', response: 'mandateListSchema', source: '§11.2' }),
  update: defineOperation({ ...full, name: 'directDebits.update', method: 'PATCH', path: '/direct-debits/{mandate_id}', scopes: ['direct-debits.update'], input: 'body', request: 'updateMandateSchema', source: '§11.3' }),
  charge: defineOperation({ ...full, name: 'directDebits.charge', method: 'POST', path: '/direct-debits/{mandate_id}', scopes: ['direct-debits.transaction.create'], input: 'body', request: 'chargeMandateSchema', source: '§11.4' }),
};

/**
 * Direct-debit mandates: `session.directDebits` (the customer's token).
 * @group Direct debits
 */
export class DirectDebits extends Resource {
  /** Creates a mandate (`POST /direct-debits`, customer token, scope `direct-debits.create`). */
  create(body: CreateMandateParams, options?: RequestOptions): APIPromise<MandateResult> {
    return this.run.call(DIRECT_DEBIT_OPERATIONS.create, [], body, options);
  }

  /**
   * The customer's mandates (`GET /direct-debits`, customer token, scope `direct-debits.list`).
   * There is no call for one mandate: filter this list by `mandate_id`.
   */
  list(options?: RequestOptions): APIPromise<MandateList>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<MandateList>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<MandateList> {
    const [input, options] = noInput(first, second);
    return this.run.call(DIRECT_DEBIT_OPERATIONS.list, [], input, options);
  }

  /** Updates a mandate; `mandate_status: 'INACTIVE'` stops it (`PATCH /direct-debits/{mandate_id}`, scope `direct-debits.update`). */
  update(mandateId: PathParam, body: UpdateMandateParams, options?: RequestOptions): APIPromise<MandateResult> {
    return this.run.call(DIRECT_DEBIT_OPERATIONS.update, [mandateId], body, options);
  }

  /**
   * Debits the customer's account once on a mandate (`POST /direct-debits/{mandate_id}`, customer
   * token, scope `direct-debits.transaction.create`). After a crash or a lost answer, call again
   * with the **same** `idempotencyKey`: the debit happens at most once.
   */
  charge(mandateId: PathParam, body: ChargeMandateParams, options?: RequestOptions): APIPromise<MandateResult> {
    return this.run.call(DIRECT_DEBIT_OPERATIONS.charge, [mandateId], body, options);
  }
}
