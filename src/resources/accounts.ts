import type * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import type { PagePromise } from '../core/promise.js';
import * as S from '../schemas/accounts.js';
import { Resource } from '../core/call.js';

/** Body of `ob.accounts.create` (no field is flagged required by the provider). @group Accounts */
export interface OpenAccountParams extends z.input<ReturnType<typeof S.openAccountSchema>> {}
/** What opening an account returns: **no `account_number`** (it arrives later, in `accounts.list()`). @group Accounts */
export interface OpenedAccount extends z.output<ReturnType<typeof S.openedAccountSchema>> {}
/** One of the customer's accounts. @group Accounts */
export interface Account extends z.output<ReturnType<typeof S.accountSchema>> {}
/** `data` of `accounts.list`. @group Accounts */
export interface AccountList extends z.output<ReturnType<typeof S.accountListSchema>> {}
/** An account's balances, in major units. @group Accounts */
export interface AccountBalances extends z.output<ReturnType<typeof S.balancesSchema>> {}
/** Query of `accounts.transactions.list`: `from` and `to` (`YYYY-MM-DD`) required, `page` to start from. @group Accounts */
export interface TransactionListParams extends z.input<ReturnType<typeof S.transactionsQuerySchema>> {}
/** Totals of a transaction range, and its paging (`pages`, `records_per_page`). @group Accounts */
export interface TransactionSummary extends z.output<ReturnType<typeof S.transactionSummarySchema>> {}
/** One transaction of an account. @group Accounts */
export interface AccountTransaction extends z.output<ReturnType<typeof S.accountTransactionSchema>> {}
/** `data` of one page of `accounts.transactions.list`. @group Accounts */
export interface AccountTransactionPage extends z.output<ReturnType<typeof S.transactionPageSchema>> {}
/** A hold on an account. @group Accounts */
export interface Hold extends z.output<ReturnType<typeof S.holdSchema>> {}
/** `data` of `accounts.holds.list`. @group Accounts */
export interface HoldList extends z.output<ReturnType<typeof S.holdListSchema>> {}
/** Body of `accounts.holds.create`. @group Accounts */
export interface PlaceHoldParams extends z.input<ReturnType<typeof S.placeHoldSchema>> {}
/** Body of `accounts.holds.update`: `{ status: 'INACTIVE' }` releases the hold. @group Accounts */
export interface UpdateHoldParams extends z.input<ReturnType<typeof S.updateHoldSchema>> {}
/** `data` of placing or releasing a hold. @group Accounts */
export interface HoldReference extends z.output<ReturnType<typeof S.holdReferenceSchema>> {}

/** A path parameter: a string or a number, encoded by the SDK. @group Client */
export type PathParam = string | number;

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  create: defineOperation({ name: 'accounts.create', schemas: () => S.schemas['accounts.create'], method: 'POST', path: '/accounts', token: 'client', scopes: OPERATION_SCOPES['accounts.create'], input: 'body', source: '§7.1', completeness: 'full' }),
  list: defineOperation({ name: 'accounts.list', schemas: () => S.schemas['accounts.list'], method: 'GET', path: '/accounts', token: 'customer', scopes: OPERATION_SCOPES['accounts.list'], input: 'none', source: '§7.2', completeness: 'full' }),
  balances: defineOperation({ name: 'accounts.balances.retrieve', schemas: () => S.schemas['accounts.balances.retrieve'], method: 'GET', path: '/accounts/{account_number}/balances', token: 'customer', scopes: OPERATION_SCOPES['accounts.balances.retrieve'], input: 'none', source: '§7.3', completeness: 'full' }),
  transactions: defineOperation({ name: 'accounts.transactions.list', schemas: () => S.schemas['accounts.transactions.list'], method: 'GET', path: '/accounts/{account_number}/transactions', token: 'customer', scopes: OPERATION_SCOPES['accounts.transactions.list'], input: 'query', pagedItems: 'transactions', source: '§7.4', completeness: 'full' }),
  holdsList: defineOperation({ name: 'accounts.holds.list', schemas: () => S.schemas['accounts.holds.list'], method: 'GET', path: '/accounts/{account_number}/holds', token: 'customer', scopes: OPERATION_SCOPES['accounts.holds.list'], input: 'none', source: '§7.5', completeness: 'full' }),
  holdsCreate: defineOperation({ name: 'accounts.holds.create', schemas: () => S.schemas['accounts.holds.create'], method: 'POST', path: '/accounts/{account_number}/holds', token: 'customer', scopes: OPERATION_SCOPES['accounts.holds.create'], input: 'body', source: '§7.6', completeness: 'full' }),
  holdsUpdate: defineOperation({ name: 'accounts.holds.update', schemas: () => S.schemas['accounts.holds.update'], method: 'PATCH', path: '/accounts/{account_number}/holds/{hold_reference}', token: 'customer', scopes: OPERATION_SCOPES['accounts.holds.update'], input: 'body', source: '§7.7', completeness: 'full' }),
};

/**
 * An account's balances: `session.accounts.balances`.
 * @group Accounts
 */
export class AccountBalancesResource extends Resource {
  /** The account's balances (`GET /accounts/{account_number}/balances`, customer token, scope `accounts.balance.readonly`). */
  retrieve(accountNumber: PathParam, options?: RequestOptions): APIPromise<AccountBalances> {
    return this.run.call(operations.balances, [accountNumber], undefined, options);
  }
}

/**
 * An account's transaction history: `session.accounts.transactions`.
 * @group Accounts
 */
export class AccountTransactions extends Resource {
  /**
   * The transactions between `from` and `to` (`GET /accounts/{account_number}/transactions`,
   * customer token, scope `accounts.transactions.readonly`). Awaiting gives the first page's
   * `data`; `for await` yields every transaction of every page; `.pages()` yields the pages.
   *
   * @example
   * ```ts
   * declare const session: import('openbanking-ng').CustomerSession;
   * for await (const tx of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-03-31' })) {
   *   console.log(tx.value_date, tx.debit_credit, tx.amount);
   * }
   * ```
   */
  list(accountNumber: PathParam, query: TransactionListParams, options?: RequestOptions): PagePromise<AccountTransactionPage, AccountTransaction> {
    return this.run.paged(operations.transactions, [accountNumber], query as unknown as Record<string, unknown>, options);
  }
}

/**
 * Holds on an account: `session.accounts.holds`.
 * @group Accounts
 */
export class AccountHolds extends Resource {
  /** The account's holds (`GET /accounts/{account_number}/holds`, customer token, scope `accounts.holds.readonly`). */
  list(accountNumber: PathParam, options?: RequestOptions): APIPromise<HoldList> {
    return this.run.call(operations.holdsList, [accountNumber], undefined, options);
  }

  /** Places a hold (`POST /accounts/{account_number}/holds`, customer token, scope `accounts.holds.create`). */
  create(accountNumber: PathParam, body: PlaceHoldParams, options?: RequestOptions): APIPromise<HoldReference> {
    return this.run.call(operations.holdsCreate, [accountNumber], body, options);
  }

  /** Updates a hold; `{ status: 'INACTIVE' }` releases it (`PATCH /accounts/{account_number}/holds/{hold_reference}`, scope `accounts.holds.update`). */
  update(accountNumber: PathParam, holdReference: PathParam, body: UpdateHoldParams, options?: RequestOptions): APIPromise<HoldReference> {
    return this.run.call(operations.holdsUpdate, [accountNumber, holdReference], body, options);
  }
}

/**
 * The customer's accounts: `session.accounts` (and `ob.accounts.create`, which needs no consent).
 * @group Accounts
 */
export class Accounts extends Resource {
  /** Balances of one account. */
  readonly balances: AccountBalancesResource = new AccountBalancesResource(this.run);
  /** Transaction history of one account, paged. */
  readonly transactions: AccountTransactions = new AccountTransactions(this.run);
  /** Holds on one account. */
  readonly holds: AccountHolds = new AccountHolds(this.run);

  /**
   * Opens an account (`POST /accounts`, client credentials, scope `accounts.create`; the provider's
   * guide says no scope is needed: `operationScopes: { 'accounts.create': [] }`). The answer has
   * **no account number**: the bank emails the customer to finish, and the number shows up later
   * in `accounts.list()` under the customer's consent.
   */
  create(body: OpenAccountParams, options?: RequestOptions): APIPromise<OpenedAccount> {
    return this.run.call(operations.create, [], body, options);
  }

  /** The customer's accounts (`GET /accounts`, customer token, scope `accounts.list.readonly`). */
  list(options?: RequestOptions): APIPromise<AccountList>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<AccountList>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<AccountList> {
    return this.run.call(operations.list, [], first, second);
  }
}
