import type { RouteHandler } from '../context.js';
import { FIELD_TABLES } from '../fields.js';
import { DISPUTE_CATEGORIES } from '../payments-seed.js';
import { apiError, badRequest, json } from '../responses.js';
import { admit, fieldError, once, readObject } from './gateway.js';

/* Disputes (§10) and savings (§14): reports and read-only customer records. */

const ok = (message: string, data: unknown, status = 200) => json(status, { status: '00', message, data });

/** `GET {base_url}/disputes/categories` (client token). */
export const disputeCategories: RouteHandler = async (ctx, request) => {
  const call = await admit(ctx, request, 'disputes.categories.list', 'client');
  if (call instanceof Response) return call;
  return ok('Dispute categories retrieved successfully', { dispute_categories: structuredClone(DISPUTE_CATEGORIES) });
};

/** `POST {base_url}/disputes`: logs a report, once per key. */
export const reportDispute: RouteHandler = async (ctx, request, url) => {
  const call = await admit(ctx, request, 'disputes.report.create', 'customer');
  if (call instanceof Response) return call;
  const body = await readObject(request);
  if (body instanceof Response) return body;
  return once(ctx, call, request, url, body, async () => {
    const refused = fieldError(FIELD_TABLES['disputes.create'], body);
    if (refused) return refused;
    if (!DISPUTE_CATEGORIES.some((c) => c.id === body.dispute_category_id)) return badRequest('INVALID_FIELD', 'dispute_category_id is not a dispute category', 'dispute_category_id');
    const dispute = ctx.payments.reportDispute(body);
    return dispute ? ok('Bill payment successful', dispute, 201) : badRequest('DUPLICATE_REFERENCE', `A dispute with reference ${String(body.reference)} was already reported`, 'reference');
  });
};

/** `GET {base_url}/disputes/{report_reference}`: a bare array, as the provider answers. */
export const disputeStatus: RouteHandler = async (ctx, request, _url, params) => {
  const call = await admit(ctx, request, 'disputes.report.readonly', 'customer');
  if (call instanceof Response) return call;
  const dispute = ctx.payments.dispute(params.report_reference!);
  return dispute ? ok('Dispute categories retrieved successfully', [dispute]) : apiError(404, `No dispute report ${params.report_reference}`);
};

/** `GET {base_url}/savings`: the customer's plans, under `savings` (the guide's key). */
export const listSavings: RouteHandler = async (ctx, request) => {
  const call = await admit(ctx, request, 'savings.list', 'customer');
  if (call instanceof Response) return call;
  return ok('Savings retrieved successfully', { savings: ctx.payments.savingsPlans() });
};

/** `GET {base_url}/savings/{savings_id}/transactions?from&to&page`: one page. */
export const savingsTransactions: RouteHandler = async (ctx, request, url, params) => {
  const call = await admit(ctx, request, 'savings.transactions.list', 'customer');
  if (call instanceof Response) return call;
  const query: Record<string, unknown> = {};
  for (const name of ['from', 'to', 'page']) if (url.searchParams.has(name)) query[name] = url.searchParams.get(name);
  const refused = fieldError(FIELD_TABLES['savings.transactions.list'], query);
  if (refused) return refused;
  const page = ctx.payments.savingsTransactions(params.savings_id!, query.from as string | undefined, query.to as string | undefined, Number(query.page ?? 1));
  return page ? ok('Savings transactions retrieved successfully', page) : apiError(404, `No savings plan ${params.savings_id} for this customer`);
};
