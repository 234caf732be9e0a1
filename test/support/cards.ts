/** A card body the spec accepts; `overrides` replace or add fields. The one card fixture of the tests. */
export const validCard = (overrides: Record<string, unknown> = {}) => ({
  account_number: '0123456789',
  card_holder_name: 'Ada Obi',
  card_status: 'ACTIVE' as const,
  card_default_pin: '1234',
  card_expiry: { month: '09', year: '2029' },
  ...overrides,
});
