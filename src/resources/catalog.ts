import type { TokenKind } from '../core/operation.js';
import type { Scope } from '../core/scopes.js';

/**
 * What must be known of each typed operation before its module loads: the token it is sent with
 * and the scopes it asks for by default. The rest of each operation (method, path, schemas) is
 * declared next to its schemas in `schemas/<namespace>.ts` and loads with the namespace's first
 * call, so a namespace adds little more than its method names to what a client loads up front.
 * One row per operation: its token kind, then its scope.
 */
const OPERATION_TABLE = {
  'customers.retrieve': 'customer customers.readonly',
  'accounts.create': 'client accounts.create',
  'accounts.list': 'customer accounts.list.readonly',
  'accounts.balances.retrieve': 'customer accounts.balance.readonly',
  'accounts.transactions.list': 'customer accounts.transactions.readonly',
  'accounts.holds.list': 'customer accounts.holds.readonly',
  'accounts.holds.create': 'customer accounts.holds.create',
  'accounts.holds.update': 'customer accounts.holds.update',
  'transfers.enquiry': 'both transfers.transactions.enquiry',
  'transfers.create': 'customer transfers.transactions.create',
  'transfers.retrieve': 'customer transfers.transactions.query',
  'bills.categories.list': 'client bills.categories.list',
  'bills.billers.list': 'client bills.billers.list',
  'bills.validate': 'both bills.bill.validate',
  'bills.pay': 'customer bills.transactions.create',
  'disputes.categories.list': 'client disputes.categories.list',
  'disputes.create': 'customer disputes.report.create',
  'disputes.retrieve': 'customer disputes.report.readonly',
  'directDebits.create': 'customer direct-debits.create',
  'directDebits.list': 'customer direct-debits.list',
  'directDebits.update': 'customer direct-debits.update',
  'directDebits.charge': 'customer direct-debits.transaction.create',
  'cards.create': 'both cards.create',
  'cards.list': 'both cards.list',
  'savings.list': 'customer savings.list',
  'savings.transactions.list': 'customer savings.transactions.list',
} as const satisfies Record<string, `${TokenKind} ${Scope}`>;

/**
 * The name of a typed operation, as its method is called under the client: the keys of
 * {@link OPERATION_SCOPES} and of the `operationScopes` option.
 * @group Client
 */
export type OperationName = keyof typeof OPERATION_TABLE;

/** Each row split once, at load: the runner reads the token kind on every call. */
const ROWS = new Map(Object.entries(OPERATION_TABLE).map(([name, row]) => [name, row.split(' ')]));

/** The token kind of a typed operation. */
export function tokenKind(name: string): TokenKind {
  return ROWS.get(name)![0] as TokenKind;
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
  Object.fromEntries([...ROWS].map(([name, [, ...scopes]]) => [name, scopes])) as unknown as Record<OperationName, readonly Scope[]>,
);
