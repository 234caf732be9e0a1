import { FIELD_TABLES } from '../fields.js';
import { apiError, badRequest, ok } from '../responses.js';
import { fieldError, read, write } from './gateway.js';

const noAccount = (n: string) => apiError(404, `Account ${n} was not found for this customer`);

/** `GET {base_url}/customers`: the customer the token belongs to (customer token, `customers.readonly`). */
export const getCustomer = read('customers.readonly', 'customer', async (ctx) => ok('Customer details retrieved successfully', ctx.bank.customer()));

/** `POST {base_url}/accounts`: opens an account (client token); the answer has no account number, as the provider's. */
export const openAccount = write('accounts.create', 'client', async (ctx, body) => fieldError(FIELD_TABLES['accounts.create'], body) ?? ok('Account created successfully', ctx.bank.openAccount(body), 201));

/** `GET {base_url}/accounts`: the customer's accounts. */
export const listAccounts = read('accounts.list.readonly', 'customer', async (ctx) => ok('Account details retrieved successfully', { accounts: ctx.bank.accounts() }));

/** `GET {base_url}/accounts/{account_number}/balances`. */
export const getBalances = read('accounts.balance.readonly', 'customer', async (ctx, _call, params) => {
  const balances = ctx.bank.balances(params.account_number!);
  return balances ? ok('Successfully retrieved account balances', balances) : noAccount(params.account_number!);
});

/** `GET {base_url}/accounts/{account_number}/transactions?from&to&page`: one page of the range. */
export const listTransactions = read('accounts.transactions.readonly', 'customer', async (ctx, _call, params, url) => {
  const query: Record<string, unknown> = {};
  for (const name of ['from', 'to', 'page']) if (url.searchParams.has(name)) query[name] = url.searchParams.get(name);
  const refused = fieldError(FIELD_TABLES['accounts.transactions.list'], query);
  if (refused) return refused;
  const page = ctx.bank.transactions(params.account_number!, query.from as string, query.to as string, Number(query.page ?? 1));
  return page ? ok('Successfully retrieved account transactions', page) : noAccount(params.account_number!);
});

/** `GET {base_url}/accounts/{account_number}/holds`. */
export const listHolds = read('accounts.holds.readonly', 'customer', async (ctx, _call, params) => {
  const holds = ctx.bank.holds(params.account_number!);
  return holds ? ok('Account holds retrieved successfully', { holds }) : noAccount(params.account_number!);
});

/** `POST {base_url}/accounts/{account_number}/holds`: places a hold, idempotent per key. */
export const placeHold = write('accounts.holds.create', 'customer', async (ctx, body, _call, params) => {
  const account = params.account_number!;
  if (!ctx.bank.has(account)) return noAccount(account);
  const refused = fieldError(FIELD_TABLES['accounts.holds.create'], body);
  if (refused) return refused;
  if (!ctx.bank.placeHold(account, body)) return badRequest('DUPLICATE_REFERENCE', `A hold with reference ${String(body.reference)} already exists on this account`, 'reference');
  return ok('Hold placed successfully', { reference: body.reference }, 201);
});

/** `PATCH {base_url}/accounts/{account_number}/holds/{hold_reference}`: `INACTIVE` releases the hold. */
export const updateHold = write('accounts.holds.update', 'customer', async (ctx, body, _call, params) => {
  const account = params.account_number!;
  const reference = params.hold_reference!;
  if (!ctx.bank.has(account)) return noAccount(account);
  const refused = fieldError(FIELD_TABLES['accounts.holds.update'], body);
  if (refused) return refused;
  if (!ctx.bank.updateHold(account, reference, body.status as string)) return apiError(404, `No hold ${reference} on account ${account}`);
  return ok('Hold released successfully', { reference });
});
