import type { OperationDeclaration } from '../core/operation.js';
import type { Scope } from '../core/scopes.js';
import { operations as accounts } from './accounts.js';
import { operations as bills } from './bills.js';
import { operations as cards } from './cards.js';
import { operations as customers } from './customers.js';
import { operations as directDebits } from './direct-debits.js';
import { operations as disputes } from './disputes.js';
import { operations as savings } from './savings.js';
import { operations as transfers } from './transfers.js';

/** Every typed operation's declaration, in the order of the provider reference. */
export const OPERATIONS = [
  ...Object.values(customers),
  ...Object.values(accounts),
  ...Object.values(transfers),
  ...Object.values(bills),
  ...Object.values(disputes),
  ...Object.values(directDebits),
  ...Object.values(cards),
  ...Object.values(savings),
];

/**
 * The name of a typed operation, as its method is called under the client: the keys of
 * {@link OPERATION_SCOPES} and of the `operationScopes` option.
 * @group Client
 */
export type OperationName = (typeof OPERATIONS)[number]['name'];

/**
 * The scopes each typed operation asks for by default, keyed by its method name, read from the
 * operations' declarations. Use it to build the `scope` of a customer's consent request for the
 * operations your app calls; override an entry with the `operationScopes` client option when your
 * provider wants another scope.
 *
 * @example
 * ```ts
 * import { OPERATION_SCOPES } from 'openbanking-ng';
 * const scope = [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']];
 * ```
 * @group Client
 */
export const OPERATION_SCOPES: Readonly<Record<OperationName, readonly Scope[]>> = Object.freeze(
  Object.fromEntries(OPERATIONS.map((op: OperationDeclaration) => [op.name, op.scopes])) as Record<OperationName, readonly Scope[]>,
);
