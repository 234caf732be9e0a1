/*
 * The customer data the sandbox serves: one customer with two accounts, one of them with several
 * pages of transactions, and holds. Seeded the same way every time (no randomness), so examples
 * and tests can name what they read. Every customer token of the sandbox belongs to this customer.
 */

/** How many transactions a page of `GET /accounts/{n}/transactions` carries. */
export const RECORDS_PER_PAGE = 20;

/** The seeded customer's id. */
export const SANDBOX_CUSTOMER_ID = 'CUS-0001';

/** The seeded accounts: the first has 45 transactions in January 2024 (3 pages), the second 4. */
export const SANDBOX_ACCOUNTS = ['0123456789', '0987654321'] as const;

type Json = Record<string, unknown>;

interface AccountRecord {
  account: Json;
  balances: Json;
  transactions: Json[];
  holds: Json[];
}

function seedTransactions(accountNumber: string, count: number, opening: number): Json[] {
  const out: Json[] = [];
  let balance = opening;
  for (let i = 0; i < count; i++) {
    const credit = i % 3 === 0;
    const amount = credit ? 25_000 + i * 100 : 1_500 + i * 25;
    balance += credit ? amount : -amount;
    const day = String(1 + Math.floor(i * 0.65)).padStart(2, '0');
    out.push({
      id: `TXN-${accountNumber.slice(-4)}-${String(i + 1).padStart(4, '0')}`,
      amount,
      channel: credit ? 'WEB' : i % 2 === 0 ? 'ATM' : 'POS',
      authorization_token: credit ? 'ACCOUNT' : 'CARD',
      transaction_type: credit ? 'TRANSFER' : 'WITHDRAWAL',
      debit_credit: credit ? 'CREDIT' : 'DEBIT',
      narration: credit ? `Transfer in ${i + 1}` : `Purchase ${i + 1}`,
      reference: `REF${accountNumber.slice(-4)}${String(i + 1).padStart(6, '0')}`,
      transaction_time: `2024-01-${day}T10:${String(i % 60).padStart(2, '0')}:00.0000000`,
      value_date: `2024-01-${day}`,
      balance_after: balance,
    });
  }
  return out;
}

function seedAccount(accountNumber: string, name: string, type: string, count: number, opening: number): AccountRecord {
  const transactions = seedTransactions(accountNumber, count, opening);
  const closing = (transactions.at(-1)?.balance_after as number | undefined) ?? opening;
  return {
    account: {
      account_number: accountNumber,
      customer_id: SANDBOX_CUSTOMER_ID,
      account_name: name,
      currency_code: 'NGN',
      account_opening_date: '2023-06-01',
      last_transaction_time: transactions.at(-1)?.transaction_time ?? null,
      account_type: type,
      bvn: '22212345678',
      phone_number: '+2348012345678',
      email: 'ada.obi@example.com',
      status: 'ACTIVE',
      custom_properties: [],
    },
    balances: {
      account_number: accountNumber,
      currency: 'NGN',
      available_balance: closing - 5_000,
      cleared_balance: closing,
      uncleared_balance: 0,
      hold_balance: 5_000,
      minimum_balance: 1_000,
      custom_properties: [],
    },
    transactions,
    holds: [],
  };
}

/** The sandbox's bank: the seeded customer and accounts, and what calls changed. */
export class SandboxBank {
  #accounts = new Map<string, AccountRecord>();
  #opened = 0;

  constructor() {
    this.reset();
  }

  /** The customer every customer token belongs to. */
  customer(): Json {
    return {
      customer_id: SANDBOX_CUSTOMER_ID,
      first_name: 'Ada',
      middle_name: null,
      surname: 'Obi',
      gender: 'F',
      email: 'ada.obi@example.com',
      bvn: '22212345678',
      phone: '+2348012345678',
      image: null,
      proof_of_id: { document_type: "Driver's licence", document: null },
      proof_of_address: { document_type: 'Utility bill', document: null },
      address: { street: '12 Marina', area: 'Lagos Island', city: 'Lagos', local_government: 'Lagos Island', country: 'NG' },
      next_of_kin: null,
      custom_properties: [],
    };
  }

  accounts(): Json[] {
    return [...this.#accounts.values()].map((a) => structuredClone(a.account));
  }

  has(accountNumber: string): boolean {
    return this.#accounts.has(accountNumber);
  }

  balances(accountNumber: string): Json | undefined {
    return structuredClone(this.#accounts.get(accountNumber)?.balances);
  }

  /** One page of the transactions between `from` and `to` (inclusive), with the summary of the whole range. */
  transactions(accountNumber: string, from: string, to: string, page: number): Json | undefined {
    const record = this.#accounts.get(accountNumber);
    if (!record) return undefined;
    const inRange = record.transactions.filter((t) => (t.value_date as string) >= from && (t.value_date as string) <= to);
    const pages = Math.max(1, Math.ceil(inRange.length / RECORDS_PER_PAGE));
    const items = inRange.slice((page - 1) * RECORDS_PER_PAGE, page * RECORDS_PER_PAGE);
    const sum = (kind: string) => inRange.filter((t) => t.debit_credit === kind).reduce((n, t) => n + (t.amount as number), 0);
    const count = (kind: string) => inRange.filter((t) => t.debit_credit === kind).length;
    const first = inRange[0];
    const last = inRange.at(-1);
    return {
      summary: {
        account_number: accountNumber,
        currency_code: 'NGN',
        from,
        to,
        first_transaction: first?.transaction_time ?? null,
        last_transaction: last?.transaction_time ?? null,
        opening_balance: first ? (first.balance_after as number) + (first.debit_credit === 'CREDIT' ? -(first.amount as number) : (first.amount as number)) : null,
        closing_balance: last?.balance_after ?? null,
        total_debit_count: count('DEBIT'),
        total_credit_count: count('CREDIT'),
        total_debit_value: sum('DEBIT'),
        total_credit_value: sum('CREDIT'),
        pages,
        records_per_page: RECORDS_PER_PAGE,
      },
      transactions: structuredClone(items),
      custom_properties: [],
    };
  }

  holds(accountNumber: string): Json[] | undefined {
    return structuredClone(this.#accounts.get(accountNumber)?.holds);
  }

  /** Places a hold; false when the reference is already used on that account. */
  placeHold(accountNumber: string, body: Json): boolean {
    const record = this.#accounts.get(accountNumber)!;
    if (record.holds.some((h) => h.reference === body.reference)) return false;
    record.holds.push({
      account_number: accountNumber,
      reference: body.reference,
      amount: body.amount,
      narration: body.narration,
      start_hold_date: body.hold_start_timestamp,
      end_hold_date: body.hold_end_timestamp,
      status: body.status,
    });
    return true;
  }

  /** Sets a hold's status; false when the account has no hold with that reference. */
  updateHold(accountNumber: string, reference: string, status: string): boolean {
    const hold = this.#accounts.get(accountNumber)?.holds.find((h) => h.reference === reference);
    if (!hold) return false;
    hold.status = status;
    return true;
  }

  /** Opens an account: as the provider does, the answer carries no account number. */
  openAccount(body: Json): Json {
    this.#opened += 1;
    const ref = typeof body.customer_ref === 'string' ? body.customer_ref : `CUS-NEW-${String(this.#opened).padStart(4, '0')}`;
    return { customer_id: ref, account_type: 'SBA', status: 'ACTIVE', custom_properties: body.custom_properties ?? [] };
  }

  reset(): void {
    this.#opened = 0;
    this.#accounts = new Map([
      [SANDBOX_ACCOUNTS[0], seedAccount(SANDBOX_ACCOUNTS[0], 'Ada Obi', 'Wonderful Savings Account', 45, 150_000)],
      [SANDBOX_ACCOUNTS[1], seedAccount(SANDBOX_ACCOUNTS[1], 'Ada Obi', 'Current Account', 4, 20_000)],
    ]);
    this.#accounts.get(SANDBOX_ACCOUNTS[0])!.holds.push({
      account_number: SANDBOX_ACCOUNTS[0],
      reference: 'HLD000000001',
      amount: 5_000,
      narration: 'Card authorisation',
      start_hold_date: '2024-01-20',
      end_hold_date: '2024-02-20',
      status: 'ACTIVE',
    });
  }
}
