// Savings: the customer's plans, and every transaction of one plan across its pages.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/savings.mjs
import { sandboxApp } from './customer-consent.mjs';

const { sandbox, consent } = await sandboxApp();
try {
  const customer = await consent(['savings.list', 'savings.transactions.list']);
  const { savings } = await customer.savings.list();
  for (const plan of savings) console.log(`${plan.savings_id}: ${plan.currency} ${plan.savings_amount} ${plan.frequency}, saved ${plan.total_savings_amount}`);

  const plan = savings[0];
  if (plan?.savings_id == null) throw new Error('no savings plan');
  let count = 0;
  let total = 0;
  for await (const tx of customer.savings.transactions.list(plan.savings_id)) {
    count += 1;
    total += tx.amount ?? 0;
  }
  console.log(`${plan.savings_id}: ${count} transactions, ${total} saved (every page walked)`);
} finally {
  await sandbox.close();
}
