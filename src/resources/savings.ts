import type * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import type { PagePromise } from '../core/promise.js';
import * as S from '../schemas/savings.js';
import type { PathParam } from './accounts.js';
import { Resource } from '../core/call.js';

/** A savings plan. @group Savings */
export interface Savings extends z.output<ReturnType<typeof S.savingsSchema>> {}
/** `data` of `savings.list`: `{ savings }` (a `loans` list from the provider is copied into it). @group Savings */
export interface SavingsList extends z.output<ReturnType<typeof S.savingsListSchema>> {}
/** Query of `savings.transactions.list`: `from`, `to` and `page`, all optional. @group Savings */
export interface SavingsTransactionListParams extends NonNullable<z.input<ReturnType<typeof S.savingsTransactionsQuerySchema>>> {}
/** One transaction of a savings plan. @group Savings */
export interface SavingsTransaction extends z.output<ReturnType<typeof S.savingsTransactionSchema>> {}
/** `data` of one page of `savings.transactions.list`. @group Savings */
export interface SavingsTransactionPage extends z.output<ReturnType<typeof S.savingsTransactionPageSchema>> {}

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  list: defineOperation({ name: 'savings.list', schemas: () => S.schemas['savings.list'], method: 'GET', path: '/savings', token: 'customer', scopes: OPERATION_SCOPES['savings.list'], input: 'none', source: '§14.1', completeness: 'full' }),
  transactions: defineOperation({ name: 'savings.transactions.list', schemas: () => S.schemas['savings.transactions.list'], method: 'GET', path: '/savings/{savings_id}/transactions', token: 'customer', scopes: OPERATION_SCOPES['savings.transactions.list'], input: 'optional-query', pagedItems: 'transactions', source: '§14.2', completeness: 'full' }),
};

/**
 * A savings plan's transactions: `session.savings.transactions`.
 * @group Savings
 */
export class SavingsTransactions extends Resource {
  /**
   * The plan's transactions (`GET /savings/{savings_id}/transactions`, customer token, scope
   * `savings.transactions.list`); `from`, `to` and `page` are optional. Awaiting gives the first
   * page's `data`; `for await` yields every transaction of every page; `.pages()` yields the pages.
   * Pass options without a query as `list(id, undefined, options)`.
   *
   * @example
   * ```ts
   * declare const session: import('openbanking-ng').CustomerSession;
   * for await (const tx of session.savings.transactions.list('SAV-0001')) {
   *   console.log(tx.value_date, tx.amount, tx.status);
   * }
   * ```
   */
  list(savingsId: PathParam, query?: SavingsTransactionListParams, options?: RequestOptions): PagePromise<SavingsTransactionPage, SavingsTransaction> {
    return this.run.paged(operations.transactions, [savingsId], query as Record<string, unknown> | undefined, options);
  }
}

/**
 * The customer's savings plans: `session.savings`.
 * @group Savings
 */
export class SavingsResource extends Resource {
  /** A plan's transactions, paged. */
  readonly transactions: SavingsTransactions = new SavingsTransactions(this.run);

  /** The customer's savings plans (`GET /savings`, customer token, scope `savings.list`). */
  list(options?: RequestOptions): APIPromise<SavingsList>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<SavingsList>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<SavingsList> {
    return this.run.call(operations.list, [], first, second);
  }
}
