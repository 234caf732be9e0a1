import type { TokenKind } from '../core/operation.js';
import type { Scope } from '../core/scopes.js';

/**
 * What must be known of each typed operation before its module loads: the token it is sent with
 * and the scopes it asks for by default. The rest of each operation (method, path, schemas) is
 * declared next to its schemas in `schemas/<namespace>.ts` and loads with the namespace's first
 * call, so a namespace adds little more than its method names to what a client loads up front.
 */
const OPERATION_TABLE = {
  'customers.retrieve': { token: 'customer', scopes: ['customers.readonly'] },
  'accounts.create': { token: 'client', scopes: ['accounts.create'] },
  'accounts.list': { token: 'customer', scopes: ['accounts.list.readonly'] },
  'accounts.balances.retrieve': { token: 'customer', scopes: ['accounts.balance.readonly'] },
  'accounts.transactions.list': { token: 'customer', scopes: ['accounts.transactions.readonly'] },
  'accounts.holds.list': { token: 'customer', scopes: ['accounts.holds.readonly'] },
  'accounts.holds.create': { token: 'customer', scopes: ['accounts.holds.create'] },
  'accounts.holds.update': { token: 'customer', scopes: ['accounts.holds.update'] },
  'transfers.enquiry': { token: 'both', scopes: ['transfers.transactions.enquiry'] },
  'transfers.create': { token: 'customer', scopes: ['transfers.transactions.create'] },
  'transfers.retrieve': { token: 'customer', scopes: ['transfers.transactions.query'] },
  'bills.categories.list': { token: 'client', scopes: ['bills.categories.list'] },
  'bills.billers.list': { token: 'client', scopes: ['bills.billers.list'] },
  'bills.validate': { token: 'both', scopes: ['bills.bill.validate'] },
  'bills.pay': { token: 'customer', scopes: ['bills.transactions.create'] },
  'disputes.categories.list': { token: 'client', scopes: ['disputes.categories.list'] },
  'disputes.create': { token: 'customer', scopes: ['disputes.report.create'] },
  'disputes.retrieve': { token: 'customer', scopes: ['disputes.report.readonly'] },
  'directDebits.create': { token: 'customer', scopes: ['direct-debits.create'] },
  'directDebits.list': { token: 'customer', scopes: ['direct-debits.list'] },
  'directDebits.update': { token: 'customer', scopes: ['direct-debits.update'] },
  'directDebits.charge': { token: 'customer', scopes: ['direct-debits.transaction.create'] },
  'cards.create': { token: 'both', scopes: ['cards.create'] },
  'cards.list': { token: 'both', scopes: ['cards.list'] },
  'savings.list': { token: 'customer', scopes: ['savings.list'] },
  'savings.transactions.list': { token: 'customer', scopes: ['savings.transactions.list'] },
} as const satisfies Record<string, { token: TokenKind; scopes: readonly Scope[] }>;

/**
 * The name of a typed operation, as its method is called under the client: the keys of
 * {@link OPERATION_SCOPES} and of the `operationScopes` option.
 * @group Client
 */
export type OperationName = keyof typeof OPERATION_TABLE;

/** The token kind of a typed operation. */
export function tokenKind(name: string): TokenKind {
  return (OPERATION_TABLE as Record<string, { token: TokenKind }>)[name]!.token;
}

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
  Object.fromEntries(Object.entries(OPERATION_TABLE).map(([name, entry]) => [name, entry.scopes])) as unknown as Record<OperationName, readonly Scope[]>,
);
