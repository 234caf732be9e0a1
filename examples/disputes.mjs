// Disputes: the categories, a report, and where it stands.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/disputes.mjs
import { sandboxApp } from './customer-consent.mjs';

const { sandbox, ob, consent } = await sandboxApp();
try {
  const { dispute_categories } = await ob.disputes.categories.list();
  const category = dispute_categories.find((c) => c.name === 'Double debit');
  if (category?.id == null) throw new Error('no such dispute category');

  const customer = await consent(['customers.retrieve', 'disputes.create', 'disputes.retrieve']);
  const me = await customer.customers.retrieve();
  const report = await customer.disputes.create({
    reference: `DISP${Date.now()}`,
    description: 'Debited twice for one purchase at a POS',
    customer_id: me.customer_id ?? '',
    dispute_category_id: String(category.id),
    amount: 4_500,
  });
  console.log(`Report ${report.report_reference}: ${report.report_status}, first answer within ${report.first_response_sla}`);

  const [status] = await customer.disputes.retrieve(report.report_reference ?? ''); // always a list
  console.log(`Now: ${status?.report_status}; resolution within ${status?.resolution_sla}`);
} finally {
  await sandbox.close();
}
