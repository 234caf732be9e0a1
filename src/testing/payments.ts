/*
 * What the sandbox's money-moving and reporting operations change: transfers (whose status moves
 * from PENDING to SUCCESSFUL), bill payments, dispute reports, mandates and their debits. Every
 * performed money movement is written to a ledger with the idempotency key that performed it, so
 * tests can count each one exactly once.
 */
import { RECORDS_PER_PAGE, SANDBOX_ACCOUNTS } from './bank.js';
import { BILLERS, seedMandate, seedSavings } from './payments-seed.js';

type Json = Record<string, unknown>;

/**
 * A money movement the sandbox performed: a transfer, a bill payment or a direct debit, with the
 * client and the `idempotency-key` of the request that performed it.
 * @group Sandbox
 */
export interface SandboxPayment {
  /** `'transfer'` (`transfers.create`), `'bill'` (`bills.pay`) or `'debit'` (`directDebits.charge`). */
  kind: 'transfer' | 'bill' | 'debit';
  /** Amount in major units. */
  amount: number;
  /** The transfer's batch reference, the bill reference, or the mandate id. */
  reference: string;
  /** The client whose token performed it. */
  clientId: string;
  /** The `idempotency-key` of the request that performed it. */
  idempotencyKey: string;
}

/** Reads of a transfer's status before it shows `SUCCESSFUL` (the first read shows `PENDING`), unless {@link TransferSettlement} says otherwise. */
export const PENDING_READS = 1;

/**
 * How the sandbox's transfers settle (`sandbox.settleTransfers`): how many status reads, and how
 * much sandbox time, a transfer stays `PENDING`, and how it ends.
 * @group Sandbox
 */
export interface TransferSettlement {
  /** Reads that answer `PENDING` before the final status (default 1; `Infinity`: never settles). */
  pendingReads?: number;
  /** Sandbox time (ms, on its clock) after the transfer during which reads answer `PENDING` (default 0). */
  pendingMs?: number;
  /** The final status (default `'SUCCESSFUL'`). */
  result?: 'SUCCESSFUL' | 'FAILED';
}

/** A transfer the sandbox starts with, for status reads without a transfer first. */
export const SANDBOX_TRANSFER = 'BATCH000000000';

/** A dispute report the sandbox starts with. */
export const SANDBOX_DISPUTE = 'RPT000000000';

interface TransferRecord {
  batch: string;
  reference: string;
  reads: number;
  /** When it was made, on the sandbox clock (the seeded one: always). */
  at: number;
  settlement: Required<TransferSettlement>;
}

const DEFAULT_SETTLEMENT: Required<TransferSettlement> = { pendingReads: PENDING_READS, pendingMs: 0, result: 'SUCCESSFUL' };

/** The sandbox's payments state, reset to its seeds by `reset()`. */
export class SandboxPayments {
  #ledger: SandboxPayment[] = [];
  #transfers = new Map<string, TransferRecord>();
  #disputes = new Map<string, Json>();
  #mandates = new Map<string, Json>();
  #savings = new Map<string, { plan: Json; transactions: Json[] }>();
  #settlement = DEFAULT_SETTLEMENT;

  constructor(private readonly now: () => number = Date.now) {
    this.reset();
  }

  /**
   * Sets how transfers settle: the transfer `batchReference` when given (false when there is none),
   * else every transfer made from now on.
   */
  settle(rule: TransferSettlement, batchReference?: string): boolean {
    const check = (n: unknown, name: string) => {
      if (n !== undefined && !(typeof n === 'number' && n >= 0 && !Number.isNaN(n))) throw new TypeError(`settleTransfers: ${name} must be a number ≥ 0`);
    };
    check(rule?.pendingReads, 'pendingReads');
    check(rule?.pendingMs, 'pendingMs');
    if (rule.result !== undefined && rule.result !== 'SUCCESSFUL' && rule.result !== 'FAILED') throw new TypeError("settleTransfers: result must be 'SUCCESSFUL' or 'FAILED'");
    if (batchReference === undefined) {
      this.#settlement = { ...DEFAULT_SETTLEMENT, ...defined(rule) };
      return true;
    }
    const record = this.#transfers.get(batchReference);
    if (!record) return false;
    record.settlement = { ...record.settlement, ...defined(rule) };
    return true;
  }

  /** Every performed money movement, oldest first (copies). */
  ledger(): SandboxPayment[] {
    return this.#ledger.map((p) => ({ ...p }));
  }

  /** The name on an account: the seeded customer's for the seeded accounts, a fixed name otherwise. */
  nameOnAccount(accountNumber: string): string {
    return (SANDBOX_ACCOUNTS as readonly string[]).includes(accountNumber) ? 'Ada Obi' : 'Chidi Okafor';
  }

  /** Performs a transfer; its status is `PENDING` on the first read, `SUCCESSFUL` after (unless `settle` said otherwise). */
  transfer(body: Json, who: { clientId: string; idempotencyKey: string }): Json {
    const batch = `BATCH${String(this.#transfers.size).padStart(9, '0')}`;
    const reference = typeof body.reference === 'string' ? body.reference : batch;
    this.#transfers.set(batch, { batch, reference, reads: 0, at: this.now(), settlement: this.#settlement });
    this.#ledger.push({ kind: 'transfer', amount: body.amount as number, reference: batch, ...who });
    return { batch_reference: batch, reference, status: 'PENDING', custom_properties: [] };
  }

  /** A transfer's status, or undefined. */
  transferStatus(batch: string): Json | undefined {
    const record = this.#transfers.get(batch);
    if (!record) return undefined;
    const { pendingReads, pendingMs, result } = record.settlement;
    const done = record.reads++ >= pendingReads && this.now() - record.at >= pendingMs;
    const failed = done && result === 'FAILED';
    return {
      reference: record.reference,
      status: done ? result : 'PENDING',
      status_message: failed ? 'Transfer failed: the beneficiary bank declined it' : done ? 'Transfer completed' : 'Transfer is being processed',
      custom_properties: [],
    };
  }

  /** The biller `billerId` of `categoryId`, or undefined. */
  biller(categoryId: string, billerId: string): Json | undefined {
    return BILLERS[categoryId]?.find((b) => b.id === billerId);
  }

  /** What a bill reference owes: the biller's first product's fixed amount, or 5,000. */
  validation(categoryId: string, billerId: string, billReference: string): Json | undefined {
    const biller = this.biller(categoryId, billerId);
    if (!biller) return undefined;
    const product = (biller.products as Json[])[0]!;
    return {
      amount: (product.fixed_amount as number | null) ?? 5_000,
      reference: billReference,
      currency: 'NGN',
      fee: product.fee,
      product_info: { category_id: categoryId, biller_id: billerId, product_id: product.id },
      payer_info: { name: 'Ada Obi', email: 'ada.obi@example.com', phone: '+2348012345678' },
      custom_properties: [],
    };
  }

  /** Pays a bill. */
  payBill(categoryId: string, billerId: string, billReference: string, body: Json, who: { clientId: string; idempotencyKey: string }): Json {
    const product = (this.biller(categoryId, billerId)!.products as Json[])[0]!;
    this.#ledger.push({ kind: 'bill', amount: body.amount as number, reference: billReference, ...who });
    return { amount: body.amount, fee: product.fee, custom_properties: body.custom_properties ?? [] };
  }

  /** Logs a dispute report; undefined when its reference is already used. */
  reportDispute(body: Json): Json | undefined {
    const reportReference = `RPT${String(this.#disputes.size).padStart(9, '0')}`;
    if ([...this.#disputes.values()].some((d) => d.reference === body.reference)) return undefined;
    const dispute = {
      report_reference: reportReference,
      report_status: 'LOGGED',
      first_response_sla: '24 hours',
      resolution_sla: '7 days',
      follow_up_email: 'disputes@bank.example',
      follow_up_phone: '+2348000000000',
      custom_properties: body.custom_properties ?? [],
    };
    this.#disputes.set(reportReference, { ...dispute, reference: body.reference });
    return dispute;
  }

  /** A dispute report, or undefined. */
  dispute(reportReference: string): Json | undefined {
    const found = this.#disputes.get(reportReference);
    if (!found) return undefined;
    const { reference: _reference, ...dispute } = found;
    return structuredClone(dispute);
  }

  mandates(): Json[] {
    return [...this.#mandates.values()].map((m) => structuredClone(m));
  }

  mandate(mandateId: string): Json | undefined {
    return this.#mandates.get(mandateId);
  }

  /** Creates a mandate, active from its start date. */
  createMandate(body: Json): Json {
    const mandateId = `MAN${String(this.#mandates.size + 1).padStart(9, '0')}`;
    const start = typeof body.start_date === 'string' ? body.start_date : '2024-01-01';
    const mandate: Json = { mandate_status: 'ACTIVE', mandate_id: mandateId, next_possible_charge_date: start, custom_properties: [], ...body };
    mandate.mandate_status = 'ACTIVE';
    this.#mandates.set(mandateId, mandate);
    return resultOf(mandate);
  }

  /** Updates a mandate's fields. */
  updateMandate(mandateId: string, body: Json): Json {
    const mandate = this.#mandates.get(mandateId)!;
    Object.assign(mandate, body);
    return resultOf(mandate);
  }

  /** Debits the customer once on an active mandate. */
  charge(mandateId: string, body: Json, who: { clientId: string; idempotencyKey: string }): Json {
    const mandate = this.#mandates.get(mandateId)!;
    this.#ledger.push({ kind: 'debit', amount: body.amount as number, reference: mandateId, ...who });
    return resultOf(mandate);
  }

  savingsPlans(): Json[] {
    return [...this.#savings.values()].map((s) => structuredClone(s.plan));
  }

  /** One page of a plan's transactions (all of them when `from`/`to` are absent), or undefined. */
  savingsTransactions(savingsId: string, from: string | undefined, to: string | undefined, page: number): Json | undefined {
    const record = this.#savings.get(savingsId);
    if (!record) return undefined;
    const inRange = record.transactions.filter((t) => (from === undefined || (t.value_date as string) >= from) && (to === undefined || (t.value_date as string) <= to));
    const pages = Math.max(1, Math.ceil(inRange.length / RECORDS_PER_PAGE));
    const total = inRange.reduce((n, t) => n + (t.amount as number), 0);
    return {
      summary: {
        account_number: savingsId,
        currency_code: 'NGN',
        from: from ?? inRange[0]?.value_date ?? null,
        to: to ?? inRange.at(-1)?.value_date ?? null,
        first_transaction: inRange[0]?.transaction_time ?? null,
        last_transaction: inRange.at(-1)?.transaction_time ?? null,
        opening_balance: inRange.length > 0 ? (inRange[0]!.balance_after as number) - (inRange[0]!.amount as number) : null,
        closing_balance: inRange.at(-1)?.balance_after ?? null,
        total_debit_count: 0,
        total_credit_count: inRange.length,
        total_debit_value: 0,
        total_credit_value: total,
        pages,
        records_per_page: RECORDS_PER_PAGE,
      },
      transactions: structuredClone(inRange.slice((page - 1) * RECORDS_PER_PAGE, page * RECORDS_PER_PAGE)),
      custom_properties: [],
    };
  }

  reset(): void {
    this.#ledger = [];
    this.#settlement = DEFAULT_SETTLEMENT;
    this.#transfers = new Map([[SANDBOX_TRANSFER, { batch: SANDBOX_TRANSFER, reference: 'SEED-TRANSFER', reads: 0, at: -Infinity, settlement: DEFAULT_SETTLEMENT }]]);
    this.#disputes = new Map();
    this.reportDispute({ reference: 'DISP-SEED-0001' });
    const mandate = seedMandate();
    this.#mandates = new Map([[mandate.mandate_id as string, mandate]]);
    this.#savings = new Map(seedSavings().map((s) => [s.plan.savings_id as string, s]));
  }
}

/** The rule's fields that are set. */
function defined(rule: TransferSettlement): TransferSettlement {
  return Object.fromEntries(Object.entries(rule).filter(([, value]) => value !== undefined));
}

function resultOf(mandate: Json): Json {
  return {
    mandate_status: mandate.mandate_status,
    mandate_id: mandate.mandate_id,
    next_possible_charge_date: mandate.next_possible_charge_date,
    custom_properties: mandate.custom_properties ?? [],
  };
}
