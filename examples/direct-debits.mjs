// Direct debits: create a mandate, list the customer's mandates, charge one, then stop it.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/direct-debits.mjs
import { randomUUID } from 'node:crypto';
import { sandboxApp } from './customer-consent.mjs';

const { sandbox, consent } = await sandboxApp();
try {
  const customer = await consent(['directDebits.create', 'directDebits.list', 'directDebits.update', 'directDebits.charge']);
  /** @type {import('openbanking-ng').CreateMandateParams} */
  const mandate = { reference: 'SUB-ADA-001', narration: 'Streaming subscription', amount: 4_400, start_date: '2024-02-01', frequency: 'MONTHLY', destination_bank_code: '000013', destination_account: '0555666777', destination_account_name: 'Stream Ltd' };
  const created = await customer.directDebits.create(mandate);
  const id = created.mandate_id;
  if (id == null) throw new Error('the mandate has no id');
  console.log(`Mandate ${id}: ${created.mandate_status}, next charge from ${created.next_possible_charge_date}`);

  const { mandates } = await customer.directDebits.list();
  console.log(`The customer has ${mandates.length} mandates`);

  // Money moves: one key per debit, reused on any retry of that debit.
  const debit = { idempotencyKey: randomUUID() };
  await customer.directDebits.charge(id, { amount: 4_400, reference: 'SUB-2024-02' }, debit);
  await customer.directDebits.charge(id, { amount: 4_400, reference: 'SUB-2024-02' }, debit); // a retry: no second debit
  console.log(`Debits performed: ${sandbox.payments().length}`);

  const stopped = await customer.directDebits.update(id, { ...mandate, mandate_status: 'INACTIVE' });
  console.log(`Mandate ${stopped.mandate_id} is now ${stopped.mandate_status}`);
} finally {
  await sandbox.close();
}
