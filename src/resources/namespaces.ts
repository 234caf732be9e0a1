import { Accounts, operations as accounts } from './accounts.js';
import { Bills, operations as bills } from './bills.js';
import { Cards, operations as cards } from './cards.js';
import { Customers, operations as customers } from './customers.js';
import { DirectDebits, operations as directDebits } from './direct-debits.js';
import { Disputes, operations as disputes } from './disputes.js';
import type { OperationRunner } from '../core/call.js';
import { SavingsResource, operations as savings } from './savings.js';
import { Transfers, operations as transfers } from './transfers.js';
import type { OperationDeclaration } from '../core/operation.js';

/**
 * Every typed namespace, on the client (client-credentials tokens) and on a customer session
 * (the customer's token), built over one runner.
 */
export abstract class Namespaces {
  /** Customer cards (client credentials on `ob`, the customer's token on a session). */
  readonly cards: Cards;
  /** The customer behind a session's token. */
  readonly customers: Customers;
  /** The customer's accounts, balances, transactions and holds; `ob.accounts.create` opens one. */
  readonly accounts: Accounts;
  /** Name enquiry, transfers (unofficial path) and their status. */
  readonly transfers: Transfers;
  /** Biller categories, billers, bill validation and payment. */
  readonly bills: Bills;
  /** Dispute categories and the customer's dispute reports. */
  readonly disputes: Disputes;
  /** The customer's direct-debit mandates, and debits on them. */
  readonly directDebits: DirectDebits;
  /** The customer's savings plans and their transactions, paged. */
  readonly savings: SavingsResource;

  /** @internal */
  constructor(runner: OperationRunner) {
    this.cards = new Cards(runner);
    this.customers = new Customers(runner);
    this.accounts = new Accounts(runner);
    this.transfers = new Transfers(runner);
    this.bills = new Bills(runner);
    this.disputes = new Disputes(runner);
    this.directDebits = new DirectDebits(runner);
    this.savings = new SavingsResource(runner);
  }
}

export { OPERATION_SCOPES, type OperationName } from '../core/scopes.js';

/** Every typed operation's declaration, in the order of the provider reference. */
export const OPERATIONS = [
  ...Object.values(customers),
  ...Object.values(accounts),
  ...Object.values(transfers),
  ...Object.values(bills),
  ...Object.values(disputes),
  ...Object.values(directDebits),
  ...Object.values(cards),
  ...Object.values(savings),
];

/** Each typed operation's path template as a pattern over concrete paths, static segments first. */
const TEMPLATES = OPERATIONS.map((op: OperationDeclaration) => ({
  method: op.method,
  template: op.path,
  pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
})).sort((a, b) => a.template.split('{').length - b.template.split('{').length);

/**
 * How events, traces and metrics name an `ob.request` path without a `urlTemplate`: the template
 * of the typed operation it matches (the same method first), else `/{path}`, so that a caller's
 * values never become a name.
 */
export function templateOfPath(method: unknown, path: unknown): string {
  if (typeof path !== 'string') return '/{path}';
  const matches = TEMPLATES.filter((t) => t.pattern.test(path));
  return (matches.find((t) => t.method === method) ?? matches[0])?.template ?? '/{path}';
}
