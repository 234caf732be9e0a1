// The card both one-call bundles create (bench/size/full-client.js, bench/size/call-path.js).
export const card = {
  account_number: '0123456789',
  card_holder_name: 'Ada Obi',
  card_status: 'ACTIVE',
  card_default_pin: '1234',
  card_expiry: { month: '09', year: '2029' },
};
