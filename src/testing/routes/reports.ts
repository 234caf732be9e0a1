import { FIELD_TABLES } from '../fields.js';
import { DISPUTE_CATEGORIES } from '../payments-seed.js';
import { apiError, badRequest, ok } from '../responses.js';
import { fieldError, read, write } from './gateway.js';

/* Disputes (§10) and savings (§14): reports and read-only customer records. */


/** `GET {base_url}/disputes/categories` (client token). */
export const disputeCategories = read('disputes.categories.list', 'client', async () => ok('Dispute categories retrieved successfully', { dispute_categories: structuredClone(DISPUTE_CATEGORIES) }));

/** `POST {base_url}/disputes`: logs a report, once per key. */
export const reportDispute = write('disputes.report.create', 'customer', async (ctx, body) => {
  const refused = fieldError(FIELD_TABLES['disputes.create'], body);
  if (refused) return refused;
  if (!DISPUTE_CATEGORIES.some((c) => c.id === body.dispute_category_id)) return badRequest('INVALID_FIELD', 'dispute_category_id is not a dispute category', 'dispute_category_id');
  const dispute = ctx.payments.reportDispute(body);
  return dispute ? ok('Bill payment successful', dispute, 201) : badRequest('DUPLICATE_REFERENCE', `A dispute with reference ${String(body.reference)} was already reported`, 'reference');
});

/** `GET {base_url}/disputes/{report_reference}`: a bare array, as the provider answers. */
export const disputeStatus = read('disputes.report.readonly', 'customer', async (ctx, _call, params) => {
  const dispute = ctx.payments.dispute(params.report_reference!);
  return dispute ? ok('Dispute categories retrieved successfully', [dispute]) : apiError(404, `No dispute report ${params.report_reference}`);
});

/** `GET {base_url}/savings`: the customer's plans, under `savings` (the guide's key). */
export const listSavings = read('savings.list', 'customer', async (ctx) => ok('Savings retrieved successfully', { savings: ctx.payments.savingsPlans() }));

/** `GET {base_url}/savings/{savings_id}/transactions?from&to&page`: one page. */
export const savingsTransactions = read('savings.transactions.list', 'customer', async (ctx, _call, params, url) => {
  const query: Record<string, unknown> = {};
  for (const name of ['from', 'to', 'page']) if (url.searchParams.has(name)) query[name] = url.searchParams.get(name);
  const refused = fieldError(FIELD_TABLES['savings.transactions.list'], query);
  if (refused) return refused;
  const page = ctx.payments.savingsTransactions(params.savings_id!, query.from as string | undefined, query.to as string | undefined, Number(query.page ?? 1));
  return page ? ok('Savings transactions retrieved successfully', page) : apiError(404, `No savings plan ${params.savings_id} for this customer`);
});
