import { Accounts } from './accounts.js';
import { Cards } from './cards.js';
import { Customers } from './customers.js';
import type { OperationRunner } from './runner.js';

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

  /** @internal */
  constructor(runner: OperationRunner) {
    this.cards = new Cards(runner);
    this.customers = new Customers(runner);
    this.accounts = new Accounts(runner);
  }
}
