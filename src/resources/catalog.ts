import type { Scope } from '../core/scopes.js';
import { ACCOUNT_OPERATIONS } from './accounts.js';
import { BILL_OPERATIONS } from './bills.js';
import { CARD_OPERATIONS } from './cards.js';
import { CUSTOMER_OPERATIONS } from './customers.js';
import { DIRECT_DEBIT_OPERATIONS } from './direct-debits.js';
import { DISPUTE_OPERATIONS } from './disputes.js';
import type { OperationDescriptor } from './operation.js';
import { SAVINGS_OPERATIONS } from './savings.js';
import { TRANSFER_OPERATIONS } from './transfers.js';

/** Every typed operation, in the order of the provider reference. */
export const OPERATIONS: readonly OperationDescriptor[] = [
  ...Object.values(CUSTOMER_OPERATIONS),
  ...Object.values(ACCOUNT_OPERATIONS),
  ...Object.values(TRANSFER_OPERATIONS),
  ...Object.values(BILL_OPERATIONS),
  ...Object.values(DISPUTE_OPERATIONS),
  ...Object.values(DIRECT_DEBIT_OPERATIONS),
  ...Object.values(CARD_OPERATIONS),
  ...Object.values(SAVINGS_OPERATIONS),
];

/**
 * The name of a typed operation, as its method is called under the client: the keys of
 * {@link OPERATION_SCOPES} and of the `operationScopes` option.
 * @group Client
 */
export type OperationName =
  | 'customers.retrieve'
  | 'accounts.create'
  | 'accounts.list'
  | 'accounts.balances.retrieve'
  | 'accounts.transactions.list'
  | 'accounts.holds.list'
  | 'accounts.holds.create'
  | 'accounts.holds.update'
  | 'transfers.enquiry'
  | 'transfers.create'
  | 'transfers.retrieve'
  | 'bills.categories.list'
  | 'bills.billers.list'
  | 'bills.validate'
  | 'bills.pay'
  | 'disputes.categories.list'
  | 'disputes.create'
  | 'disputes.retrieve'
  | 'directDebits.create'
  | 'directDebits.list'
  | 'directDebits.update'
  | 'directDebits.charge'
  | 'cards.create'
  | 'cards.list'
  | 'savings.list'
  | 'savings.transactions.list';

/**
 * The scopes each typed operation asks for by default, keyed by its method name. Use it to build
 * the `scope` of a customer's consent request for the operations your app calls; override an entry
 * with the `operationScopes` client option when your provider wants another scope.
 *
 * @example
 * ```ts
 * import { OPERATION_SCOPES } from 'openbanking-ng';
 * const scope = [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']];
 * ```
 * @group Client
 */
export const OPERATION_SCOPES: Readonly<Record<OperationName, readonly Scope[]>> = Object.freeze(
  Object.fromEntries(OPERATIONS.map((op) => [op.name, op.scopes])) as Record<OperationName, readonly Scope[]>,
);
