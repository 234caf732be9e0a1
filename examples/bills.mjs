// Bill payments: categories and billers (no consent needed), then validate and pay a bill.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/bills.mjs
import { randomUUID } from 'node:crypto';
import { sandboxApp } from './customer-consent.mjs';

const { sandbox, ob, consent } = await sandboxApp();
try {
  const categories = await ob.bills.categories.list(); // a list; ids may be numbers
  const tv = categories.find((c) => c.name === 'TV');
  if (tv?.id == null) throw new Error('no TV category');
  const { billers } = await ob.bills.billers.list(tv.id);
  const dstv = billers[0];
  if (dstv?.id == null) throw new Error('no TV biller');
  console.log(`${categories.length} categories; ${tv.name} has ${billers.map((b) => b.name).join(', ')}`);

  const customer = await consent(['bills.validate', 'bills.pay']);
  const bill = await customer.bills.validate(tv.id, dstv.id, '7012345678');
  console.log(`Bill ${bill.reference}: ${bill.currency} ${bill.amount} + fee ${bill.fee} for ${bill.payer_info?.name}`);

  // Money moves: the same idempotencyKey on a retry pays once.
  const key = randomUUID();
  const payment = { amount: bill.amount ?? 0, source_account_number: '0123456789', payer_info: bill.payer_info ?? {}, product_info: bill.product_info ?? undefined };
  const paid = await customer.bills.pay(tv.id, dstv.id, '7012345678', payment, { idempotencyKey: key });
  console.log(`Paid ${paid.amount} (fee ${paid.fee})`);
} finally {
  await sandbox.close();
}
