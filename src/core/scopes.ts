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

/** Normalises scopes to a sorted, de-duplicated list of names. */
export function scopeList(scope: ScopeInput | readonly string[] | undefined): string[] {
  if (scope === undefined) return [];
  const names = typeof scope === 'string' ? scope.split(/\s+/) : [...scope];
  return [...new Set(names.filter((s) => s.length > 0))].sort();
}
