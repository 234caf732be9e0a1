import { Accounts } from './accounts.js';
import { Bills } from './bills.js';
import { Cards } from './cards.js';
import { Customers } from './customers.js';
import { DirectDebits } from './direct-debits.js';
import { Disputes } from './disputes.js';
import type { OperationRunner } from './runner.js';
import { SavingsResource } from './savings.js';
import { Transfers } from './transfers.js';

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
