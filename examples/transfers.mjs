// Transfers: name enquiry, a transfer with a safe retry, and waiting for it to settle.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/transfers.mjs
import { randomUUID } from 'node:crypto';
import { sandboxApp } from './customer-consent.mjs';

const { sandbox, ob, consent } = await sandboxApp();
try {
  const customer = await consent(['transfers.enquiry', 'transfers.create', 'transfers.retrieve']);

  // Whose account is this? (client credentials on ob; the customer's token works too)
  const { name_on_account } = await ob.transfers.enquiry({ destination_bank_code: '000007', destination_account_number: '0987654321' });
  console.log(`Paying ${name_on_account}`);

  // Money moves: keep the key with your payment order BEFORE sending, and reuse it on any retry.
  const order = { idempotencyKey: randomUUID() };
  const body = { amount: 5_000, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '0987654321', narration: 'Rent', reference: 'RENT-2024-01' };
  const transfer = await customer.transfers.create(body, order);
  const batch = transfer.batch_reference;
  if (batch == null) throw new Error('the provider sent no batch_reference');
  // …the process crashed before saving the answer? Send again with the same key: no second transfer.
  const again = await customer.transfers.create(body, order);
  console.log(`Transfer ${transfer.batch_reference} (retry answered ${again.batch_reference}); performed ${sandbox.payments().length} time(s)`);

  // It settles asynchronously: poll its status with backoff until it is final (never re-send it).
  const first = await customer.transfers.retrieve(batch);
  console.log(`Status now: ${first.status} (${first.status_message})`);
  const final = await customer.transfers.waitForCompletion(batch, { timeout: 30_000 });
  console.log(`Settled: ${final.status} (${final.status_message})`);
} finally {
  await sandbox.close();
}
