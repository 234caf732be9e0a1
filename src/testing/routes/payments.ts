import { FIELD_TABLES } from '../fields.js';
import { BILLER_CATEGORIES, BILLERS } from '../payments-seed.js';
import { apiError, badRequest, json, ok } from '../responses.js';
import { fieldError, read, write } from './gateway.js';

/*
 * Transfers (§8), bill payments (§9) and direct debits (§11): the money-moving operations. Each
 * state-changing call runs once per idempotency key; each performed movement goes to the ledger.
 */

const who = (call: { token: { clientId: string }; idempotencyKey: string }) => ({ clientId: call.token.clientId, idempotencyKey: call.idempotencyKey });

/** `POST {base_url}/transactions/enquiry`: the name on an account (client or customer token). */
export const nameEnquiry = write('transfers.transactions.enquiry', 'both', async (ctx, body) => {
  const refused = fieldError(FIELD_TABLES['transfers.enquiry'], body);
  if (refused) return refused;
  return ok('Transfer Enquiry completed successfully', { name_on_account: ctx.payments.nameOnAccount(body.destination_account_number as string), custom_properties: [] });
});

/** `POST {base_url}/transactions/transfer` (unofficial path): moves money, once per key. */
export const createTransfer = write('transfers.transactions.create', 'customer', async (ctx, body, call) => {
  const refused = fieldError(FIELD_TABLES['transfers.create'], body);
  if (refused) return refused;
  if (!ctx.bank.has(body.source_account_number as string)) return badRequest('INVALID_FIELD', 'source_account_number is not an account of this customer', 'source_account_number');
  return ok('Transfer initiated successfully', ctx.payments.transfer(body, who(call)), 201);
});

/** `GET {base_url}/transactions/{batch_reference}`: `PENDING` on the first read, `SUCCESSFUL` after. */
export const transferStatus = read('transfers.transactions.query', 'customer', async (ctx, _call, params) => {
  const status = ctx.payments.transferStatus(params.batch_reference!);
  return status ? ok('Transfer status retrieved successfully', status) : apiError(404, `No transfer with batch reference ${params.batch_reference}`);
});

/** `GET {base_url}/bills/categories`: a bare array, as in the provider's guide (client token). */
export const billerCategories = read('bills.categories.list', 'client', async () => json(200, { status: 'success', message: 'Operation successful', data: structuredClone(BILLER_CATEGORIES) }));

/** `GET {base_url}/bills/{category_id}/billers` (client token). */
export const billers = read('bills.billers.list', 'client', async (_ctx, _call, params) => {
  const list = BILLERS[params.category_id!];
  return list ? ok('Billers retrieved successfully', { billers: structuredClone(list), custom_properties: [] }) : apiError(404, `No biller category ${params.category_id}`);
});

const noBiller = (p: Record<string, string>) => apiError(404, `No biller ${p.biller_id} in category ${p.category_id}`);

/** `GET {base_url}/bills/{category_id}/billers/{biller_id}/reference/{bill_reference}`: what the bill owes. */
export const validateBill = read('bills.bill.validate', 'both', async (ctx, _call, params) => {
  const validation = ctx.payments.validation(params.category_id!, params.biller_id!, params.bill_reference!);
  return validation ? ok('Bill validation successful', validation) : noBiller(params);
});

/** `POST {base_url}/bills/{category_id}/billers/{biller_id}/reference/{bill_reference}`: pays, once per key. */
export const payBill = write('bills.transactions.create', 'customer', async (ctx, body, call, params) => {
  if (!ctx.payments.biller(params.category_id!, params.biller_id!)) return noBiller(params);
  const refused = fieldError(FIELD_TABLES['bills.pay'], body);
  if (refused) return refused;
  if (!ctx.bank.has(body.source_account_number as string)) return badRequest('INVALID_FIELD', 'source_account_number is not an account of this customer', 'source_account_number');
  return ok('Bill payment successful', ctx.payments.payBill(params.category_id!, params.biller_id!, params.bill_reference!, body, who(call)));
});

/** `POST {base_url}/direct-debits`: creates a mandate, once per key. */
export const createMandate = write('direct-debits.create', 'customer', async (ctx, body) => fieldError(FIELD_TABLES['directDebits.create'], body) ?? ok('Direct debit created successfully', ctx.payments.createMandate(body), 201));

/** `GET {base_url}/direct-debits`: the customer's mandates. */
export const listMandates = read('direct-debits.list', 'customer', async (ctx) => ok('Payment successful', { mandates: ctx.payments.mandates() }));

const noMandate = (id: string) => apiError(404, `No mandate ${id}`);

/** `PATCH {base_url}/direct-debits/{mandate_id}`: updates a mandate, once per key. */
export const updateMandate = write('direct-debits.update', 'customer', async (ctx, body, _call, params) => {
  const id = params.mandate_id!;
  if (!ctx.payments.mandate(id)) return noMandate(id);
  return fieldError(FIELD_TABLES['directDebits.update'], body) ?? ok('Direct debit updated successfully', ctx.payments.updateMandate(id, body));
});

/** `POST {base_url}/direct-debits/{mandate_id}`: one debit on an active mandate, once per key. */
export const chargeMandate = write('direct-debits.transaction.create', 'customer', async (ctx, body, call, params) => {
  const id = params.mandate_id!;
  const mandate = ctx.payments.mandate(id);
  if (!mandate) return noMandate(id);
  const refused = fieldError(FIELD_TABLES['directDebits.charge'], body);
  if (refused) return refused;
  if (mandate.mandate_status !== 'ACTIVE') return badRequest('MANDATE_INACTIVE', `Mandate ${id} is not active`);
  return ok('Payment successful', ctx.payments.charge(id, body, who(call)));
});
