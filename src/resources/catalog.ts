import type { Scope } from '../core/scopes.js';
import { ACCOUNT_OPERATIONS } from './accounts.js';
import { CARD_OPERATIONS } from './cards.js';
import { CUSTOMER_OPERATIONS } from './customers.js';
import type { OperationDescriptor } from './operation.js';

/** Every typed operation, in the order of the provider reference. */
export const OPERATIONS: readonly OperationDescriptor[] = [
  ...Object.values(CUSTOMER_OPERATIONS),
  ...Object.values(ACCOUNT_OPERATIONS),
  ...Object.values(CARD_OPERATIONS),
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
  | 'cards.create'
  | 'cards.list';

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
