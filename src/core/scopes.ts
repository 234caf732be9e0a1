// The scopes of the specification, the scopes each typed operation asks for, and their normal form.

/**
 * Every scope the specification names: the authorization-flow scopes and the security scheme's
 * per-area scopes.
 * @group OAuth
 */
export const SCOPES = [
  'accounts',
  'payments',
  'transactions',
  'standing_orders',
  'openid',
  'customers.readonly',
  'customers.update',
  'accounts.create',
  'accounts.list.readonly',
  'accounts.balance.readonly',
  'accounts.update',
  'accounts.transactions.readonly',
  'accounts.holds.readonly',
  'accounts.holds.create',
  'accounts.holds.update',
  'transfers.transactions.enquiry',
  'transfers.transactions.create',
  'transfers.transactions.query',
  'bills.categories.list',
  'bills.billers.list',
  'bills.bill.validate',
  'bills.transactions.create',
  'disputes.categories.list',
  'disputes.report.create',
  'disputes.report.readonly',
  'direct-debits.create',
  'direct-debits.update',
  'direct-debits.list',
  'direct-debits.readonly',
  'direct-debits.transaction.create',
  'cards.list',
  'cards.update',
  'cards.create',
  'loans.list',
  'savings.list',
  'savings.transactions.list',
] as const;

/**
 * A scope the specification names.
 * @group OAuth
 */
export type Scope = (typeof SCOPES)[number];

/** Scopes as an array of names or one space-separated string. @group OAuth */
export type ScopeInput = Scope | readonly Scope[] | (string & {});

/** The table itself, literal so that its keys make {@link OperationName}. */
const operationScopeTable = {
  'customers.retrieve': ['customers.readonly'],
  'accounts.create': ['accounts.create'],
  'accounts.list': ['accounts.list.readonly'],
  'accounts.balances.retrieve': ['accounts.balance.readonly'],
  'accounts.transactions.list': ['accounts.transactions.readonly'],
  'accounts.holds.list': ['accounts.holds.readonly'],
  'accounts.holds.create': ['accounts.holds.create'],
  'accounts.holds.update': ['accounts.holds.update'],
  'transfers.enquiry': ['transfers.transactions.enquiry'],
  'transfers.retrieve': ['transfers.transactions.query'],
  'transfers.create': ['transfers.transactions.create'],
  'bills.categories.list': ['bills.categories.list'],
  'bills.billers.list': ['bills.billers.list'],
  'bills.validate': ['bills.bill.validate'],
  'bills.pay': ['bills.transactions.create'],
  'disputes.categories.list': ['disputes.categories.list'],
  'disputes.create': ['disputes.report.create'],
  'disputes.retrieve': ['disputes.report.readonly'],
  'directDebits.create': ['direct-debits.create'],
  'directDebits.list': ['direct-debits.list'],
  'directDebits.update': ['direct-debits.update'],
  'directDebits.charge': ['direct-debits.transaction.create'],
  'cards.create': ['cards.create'],
  'cards.list': ['cards.list'],
  'savings.list': ['savings.list'],
  'savings.transactions.list': ['savings.transactions.list'],
} as const satisfies Record<string, readonly Scope[]>;

/**
 * The scopes each typed operation asks for by default, keyed by its method name: what an app asks
 * the customer to grant for the operations it calls. The operations' declarations read their
 * scopes from here, so that `openbanking-ng/pkce` can offer it without loading them; override an
 * entry with the `operationScopes` client option when your provider wants another scope (the map and its
 * lists are frozen).
 *
 * @example
 * ```ts
 * import { OPERATION_SCOPES } from 'openbanking-ng/pkce';
 * const scope = [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']];
 * ```
 * @group Client
 */
export const OPERATION_SCOPES: Readonly<Record<OperationName, readonly Scope[]>> = Object.freeze(operationScopeTable);
// Each list frozen too: the declarations share them, so a push onto one would change every client's scopes.
for (const scopes of Object.values(operationScopeTable)) Object.freeze(scopes);

/**
 * The name of a typed operation, as its method is called under the client: the keys of
 * {@link OPERATION_SCOPES} and of the `operationScopes` option.
 * @group Client
 */
export type OperationName = keyof typeof operationScopeTable;

/** Normalises scopes to a sorted, de-duplicated list of names. */
export function scopeList(scope: ScopeInput | readonly string[] | undefined): string[] {
  if (scope === undefined) return [];
  const names = typeof scope === 'string' ? scope.split(/\s+/) : [...scope];
  return [...new Set(names.filter((s) => s.length > 0))].sort();
}
