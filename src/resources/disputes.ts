import type * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import * as S from '../schemas/disputes.js';
import type { PathParam } from './accounts.js';
import { Resource } from '../core/call.js';

/** A dispute category. @group Disputes */
export interface DisputeCategory extends z.output<ReturnType<typeof S.disputeCategorySchema>> {}
/** `data` of `disputes.categories.list`. @group Disputes */
export interface DisputeCategoryList extends z.output<ReturnType<typeof S.disputeCategoryListSchema>> {}
/** Body of `disputes.create`. @group Disputes */
export interface CreateDisputeParams extends z.input<ReturnType<typeof S.createDisputeSchema>> {}
/** A dispute report and where it stands (`report_status` is open: `'LOGGED'`, …). @group Disputes */
export interface Dispute extends z.output<ReturnType<typeof S.disputeSchema>> {}

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  categories: defineOperation({ name: 'disputes.categories.list', schemas: () => S.schemas['disputes.categories.list'], method: 'GET', path: '/disputes/categories', token: 'client', scopes: OPERATION_SCOPES['disputes.categories.list'], input: 'none', source: '§10.1', completeness: 'full' }),
  create: defineOperation({ name: 'disputes.create', schemas: () => S.schemas['disputes.create'], method: 'POST', path: '/disputes', token: 'customer', scopes: OPERATION_SCOPES['disputes.create'], input: 'body', source: '§10.2', completeness: 'full' }),
  retrieve: defineOperation({ name: 'disputes.retrieve', schemas: () => S.schemas['disputes.retrieve'], method: 'GET', path: '/disputes/{report_reference}', token: 'customer', scopes: OPERATION_SCOPES['disputes.retrieve'], input: 'none', source: '§10.3', completeness: 'full' }),
};

/**
 * Dispute categories: `ob.disputes.categories` (client credentials).
 * @group Disputes
 */
export class DisputeCategories extends Resource {
  /** Every dispute category (`GET /disputes/categories`, client credentials, scope `disputes.categories.list`). */
  list(options?: RequestOptions): APIPromise<DisputeCategoryList>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<DisputeCategoryList>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<DisputeCategoryList> {
    return this.run.call(operations.categories, [], first, second);
  }
}

/**
 * Disputes: categories on `ob`, reports on a customer session.
 * @group Disputes
 */
export class Disputes extends Resource {
  /** Dispute categories. */
  readonly categories: DisputeCategories = new DisputeCategories(this.run);

  /** Reports a dispute (`POST /disputes`, customer token, scope `disputes.report.create`). */
  create(body: CreateDisputeParams, options?: RequestOptions): APIPromise<Dispute> {
    return this.run.call(operations.create, [], body, options);
  }

  /**
   * Where a report stands (`GET /disputes/{report_reference}`, customer token, scope
   * `disputes.report.readonly`). The provider answers with a list: this always resolves to an
   * array (a lone object is wrapped), and never picks an item for you.
   */
  retrieve(reportReference: PathParam, options?: RequestOptions): APIPromise<Dispute[]> {
    return this.run.call(operations.retrieve, [reportReference], undefined, options);
  }
}
