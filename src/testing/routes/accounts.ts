import type { RouteHandler } from '../context.js';
import { FIELD_TABLES } from '../fields.js';
import { apiError, badRequest, json } from '../responses.js';
import { admit, fieldError, once, readObject } from './gateway.js';

const ok = (message: string, data: unknown, status = 200) => json(status, { status: '00', message, data });
const noAccount = (n: string) => apiError(404, `Account ${n} was not found for this customer`);

/** `GET {base_url}/customers`: the customer the token belongs to (customer token, `customers.readonly`). */
export const getCustomer: RouteHandler = async (ctx, request) => {
  const call = await admit(ctx, request, 'customers.readonly', 'customer');
  if (call instanceof Response) return call;
  return ok('Customer details retrieved successfully', ctx.bank.customer());
};

/** `POST {base_url}/accounts`: opens an account (client token); the answer has no account number, as the provider's. */
export const openAccount: RouteHandler = async (ctx, request, url) => {
  const call = await admit(ctx, request, 'accounts.create', 'client');
  if (call instanceof Response) return call;
  const body = await readObject(request);
  if (body instanceof Response) return body;
  return once(ctx, call, request, url, body, async () => fieldError(FIELD_TABLES['accounts.create'], body) ?? ok('Account created successfully', ctx.bank.openAccount(body), 201));
};

/** `GET {base_url}/accounts`: the customer's accounts. */
export const listAccounts: RouteHandler = async (ctx, request) => {
  const call = await admit(ctx, request, 'accounts.list.readonly', 'customer');
  if (call instanceof Response) return call;
  return ok('Account details retrieved successfully', { accounts: ctx.bank.accounts() });
};

/** `GET {base_url}/accounts/{account_number}/balances`. */
export const getBalances: RouteHandler = async (ctx, request, _url, params) => {
  const call = await admit(ctx, request, 'accounts.balance.readonly', 'customer');
  if (call instanceof Response) return call;
  const balances = ctx.bank.balances(params.account_number!);
  return balances ? ok('Successfully retrieved account balances', balances) : noAccount(params.account_number!);
};

/** `GET {base_url}/accounts/{account_number}/transactions?from&to&page`: one page of the range. */
export const listTransactions: RouteHandler = async (ctx, request, url, params) => {
  const call = await admit(ctx, request, 'accounts.transactions.readonly', 'customer');
  if (call instanceof Response) return call;
  const query: Record<string, unknown> = {};
  for (const name of ['from', 'to', 'page']) if (url.searchParams.has(name)) query[name] = url.searchParams.get(name);
  const refused = fieldError(FIELD_TABLES['accounts.transactions.list'], query);
  if (refused) return refused;
  const page = ctx.bank.transactions(params.account_number!, query.from as string, query.to as string, Number(query.page ?? 1));
  return page ? ok('Successfully retrieved account transactions', page) : noAccount(params.account_number!);
};

/** `GET {base_url}/accounts/{account_number}/holds`. */
export const listHolds: RouteHandler = async (ctx, request, _url, params) => {
  const call = await admit(ctx, request, 'accounts.holds.readonly', 'customer');
  if (call instanceof Response) return call;
  const holds = ctx.bank.holds(params.account_number!);
  return holds ? ok('Account holds retrieved successfully', { holds }) : noAccount(params.account_number!);
};

/** `POST {base_url}/accounts/{account_number}/holds`: places a hold, idempotent per key. */
export const placeHold: RouteHandler = async (ctx, request, url, params) => {
  const call = await admit(ctx, request, 'accounts.holds.create', 'customer');
  if (call instanceof Response) return call;
  const body = await readObject(request);
  if (body instanceof Response) return body;
  const account = params.account_number!;
  return once(ctx, call, request, url, body, async () => {
    if (!ctx.bank.has(account)) return noAccount(account);
    const refused = fieldError(FIELD_TABLES['accounts.holds.create'], body);
    if (refused) return refused;
    if (!ctx.bank.placeHold(account, body)) return badRequest('DUPLICATE_REFERENCE', `A hold with reference ${String(body.reference)} already exists on this account`, 'reference');
    return ok('Hold placed successfully', { reference: body.reference }, 201);
  });
};

/** `PATCH {base_url}/accounts/{account_number}/holds/{hold_reference}`: `INACTIVE` releases the hold. */
export const updateHold: RouteHandler = async (ctx, request, url, params) => {
  const call = await admit(ctx, request, 'accounts.holds.update', 'customer');
  if (call instanceof Response) return call;
  const body = await readObject(request);
  if (body instanceof Response) return body;
  const account = params.account_number!;
  const reference = params.hold_reference!;
  return once(ctx, call, request, url, body, async () => {
    if (!ctx.bank.has(account)) return noAccount(account);
    const refused = fieldError(FIELD_TABLES['accounts.holds.update'], body);
    if (refused) return refused;
    if (!ctx.bank.updateHold(account, reference, body.status as string)) return apiError(404, `No hold ${reference} on account ${account}`);
    return ok('Hold released successfully', { reference });
  });
};
