import * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import { abortSignal, parseOrThrow, type RequestOptions, timeoutMs } from '../core/validation.js';
import { MAX_TIMER_MS } from '../core/retry-timing.js';
import { AbortError, isOpenBankingError, OpenBankingError } from '../errors/base.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import * as S from '../schemas/transfers.js';
import { once } from '../core/validation.js';
import type { PathParam } from './accounts.js';
import { Resource } from '../core/call.js';

/** Body of `transfers.enquiry`: the destination bank code and account number. @group Transfers */
export interface NameEnquiryParams extends z.input<ReturnType<typeof S.nameEnquirySchema>> {}
/** What a name enquiry returns: the name on the destination account. @group Transfers */
export interface NameEnquiry extends z.output<ReturnType<typeof S.nameEnquiryResultSchema>> {}
/** Body of `transfers.create` (**unofficial**: from a working integration; extra fields pass through). @group Transfers */
export interface CreateTransferParams extends z.input<ReturnType<typeof S.createTransferSchema>> {}
/** What `transfers.create` returns: kept as the provider sends it, `batch_reference` when present. @group Transfers */
export interface Transfer extends z.output<ReturnType<typeof S.transferResultSchema>> {}
/** A transfer's status (`status` is open: `'SUCCESSFUL'`, `'PENDING'`, …). @group Transfers */
export interface TransferStatus extends z.output<ReturnType<typeof S.transferStatusSchema>> {}

/**
 * The transfer statuses that mean "not settled yet": `waitForCompletion` keeps polling while
 * `status` is one of them (compared case-insensitively); any other value is final.
 * @group Transfers
 */
export const TRANSFER_PENDING_STATUSES: readonly ['PENDING', 'PROCESSING', 'IN_PROGRESS', 'INITIATED'] = Object.freeze(['PENDING', 'PROCESSING', 'IN_PROGRESS', 'INITIATED'] as const);

/**
 * Options of `transfers.waitForCompletion`.
 * @group Transfers
 */
export interface WaitForCompletionOptions {
  /** How long to wait in all (ms) before rejecting with `TransferPendingError`. Default 60 000. */
  timeout?: number;
  /** Ends the wait (and a poll in flight) with `AbortError`. */
  signal?: AbortSignal;
}

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  enquiry: defineOperation({ name: 'transfers.enquiry', schemas: () => S.schemas['transfers.enquiry'], method: 'POST', path: '/transactions/enquiry', token: 'both', scopes: OPERATION_SCOPES['transfers.enquiry'], input: 'body', source: '§8.1', completeness: 'full' }),
  create: defineOperation({ name: 'transfers.create', schemas: () => S.schemas['transfers.create'], method: 'POST', path: '/transactions/transfer', endpoint: 'transfer', token: 'customer', scopes: OPERATION_SCOPES['transfers.create'], input: 'body', source: '§8.2', completeness: 'partial', unofficial: true }),
  retrieve: defineOperation({ name: 'transfers.retrieve', schemas: () => S.schemas['transfers.retrieve'], method: 'GET', path: '/transactions/{batch_reference}', token: 'customer', scopes: OPERATION_SCOPES['transfers.retrieve'], input: 'none', source: '§8.3', completeness: 'full' }),
};

/**
 * Transfers: `session.transfers` (the customer's token); `ob.transfers.enquiry` also runs with
 * client credentials.
 * @group Transfers
 */
export class Transfers extends Resource {
  /**
   * Name enquiry: the name on a destination account, before sending money to it
   * (`POST /transactions/enquiry`, scope `transfers.transactions.enquiry`; client credentials on
   * `ob`, the customer's token on a session).
   */
  enquiry(body: NameEnquiryParams, options?: RequestOptions): APIPromise<NameEnquiry> {
    return this.run.call(operations.enquiry, [], body, options);
  }

  /**
   * Moves money from the customer's account (**unofficial**: the provider documents no path or
   * body; this posts to `endpoints.transfer`, default `/transactions/transfer`, the fields a
   * working integration sends; customer token, scope `transfers.transactions.create`). Unknown
   * extra fields pass through. After a crash or a lost answer, call again with the **same**
   * `idempotencyKey`: the provider performs the transfer at most once.
   *
   * @example
   * ```ts
   * declare const session: import('openbanking-ng').CustomerSession;
   * const key = crypto.randomUUID(); // store it with the payment order before sending
   * const transfer = await session.transfers.create(
   *   { amount: 5000, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '0987654321' },
   *   { idempotencyKey: key },
   * );
   * ```
   */
  create(body: CreateTransferParams, options?: RequestOptions): APIPromise<Transfer> {
    return this.run.call(operations.create, [], body, options);
  }

  /** A transfer's status (`GET /transactions/{batch_reference}`, customer token, scope `transfers.transactions.query`). */
  retrieve(batchReference: PathParam, options?: RequestOptions): APIPromise<TransferStatus> {
    return this.run.call(operations.retrieve, [batchReference], undefined, options);
  }

  /**
   * Waits for a transfer to settle, given what {@link Transfers.create} returned or its
   * `batch_reference` (one without a reference rejects with `ValidationError`): polls {@link Transfers.retrieve} (each poll its own logical
   * call, with its own idempotency key, retries and a place in the rate limiter) 1 s after it is
   * called, then after gaps of 2 s, 4 s, 8 s … capped at 30 s, while `status` is one of
   * `TRANSFER_PENDING_STATUSES` (any case). Resolves to the first final status (`SUCCESSFUL`,
   * `FAILED`, …: check it). At `timeout` (default 60 000 ms) it rejects with
   * `TransferPendingError` carrying the last status read; the `signal` ends it with `AbortError`.
   * It never sends the transfer again.
   *
   * @example
   * ```ts
   * declare const session: import('openbanking-ng').CustomerSession;
   * const sent = await session.transfers.create({ amount: 5000, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '0987654321' });
   * const final = await session.transfers.waitForCompletion(sent.batch_reference, { timeout: 120_000 });
   * if (final.status !== 'SUCCESSFUL') console.log('transfer failed:', final.status_message);
   * ```
   */
  async waitForCompletion(transfer: PathParam | Transfer | null | undefined, options?: WaitForCompletionOptions): Promise<TransferStatus> {
    // What transfers.create returned, or its batch_reference; none refuses the wait like a bad reference.
    const batchReference = (typeof transfer === 'object' && transfer !== null ? transfer.batch_reference : transfer) as PathParam;
    // What every poll would be refused for refuses the wait at once, before its first gap.
    await this.run.check(operations.retrieve, [batchReference]);
    parseOrThrow(waitOptions(), options, 'Invalid options');
    const { timeout = 60_000, signal } = options ?? {};
    const { now, sleep } = this.run.clock;
    const deadline = now() + timeout;
    let last: TransferStatus | undefined;
    // The first read 1 s after the start, then gaps of 2 s, 4 s, 8 s … capped at 30 s.
    for (let gap = 1_000; ; gap = Math.min(gap * 2, 30_000)) {
      try {
        signal?.throwIfAborted();
        await sleep(Math.max(0, Math.min(gap, deadline - now())), signal);
        signal?.throwIfAborted();
      } catch {
        throw new AbortError(`The wait for the transfer ${batchReference} was aborted`);
      }
      if (now() >= deadline) throw new TransferPendingError(String(batchReference), last, timeout);
      // A poll still in flight at the deadline is aborted and abandoned.
      const late = AbortSignal.timeout(Math.min(deadline - now(), MAX_TIMER_MS));
      try {
        last = await this.retrieve(batchReference, { signal: signal ? AbortSignal.any([signal, late]) : late });
      } catch (error) {
        throw late.aborted && !signal?.aborted ? new TransferPendingError(String(batchReference), last, timeout) : error;
      }
      if (!(typeof last.status === 'string' && PENDING.has(last.status.toUpperCase()))) return last;
    }
  }
}

const PENDING = new Set<string>(TRANSFER_PENDING_STATUSES);

/** The wait's options: `{ timeout?, signal? }` and nothing else, each of its type (built by the first wait). */
const waitOptions = once(() => z.optional(z.strictObject({ timeout: z.optional(timeoutMs()), signal: z.optional(abortSignal()) })));

/**
 * `session.transfers.waitForCompletion` reached its `timeout` while the transfer still read as
 * pending (or before a first read answered). The transfer was not sent again; it may still
 * settle: read it later with `transfers.retrieve`.
 * @group Errors
 */
export class TransferPendingError extends OpenBankingError {
  /** Always `'TransferPendingError'`, also after minification. */
  override name = 'TransferPendingError';
  /** The batch reference waited for. */
  readonly batchReference: string;
  /** The last status read, or undefined when no read answered before the deadline. */
  readonly lastStatus: TransferStatus | undefined;

  constructor(batchReference: string, lastStatus: TransferStatus | undefined, timeout: number) {
    super(
      `The transfer ${batchReference} was still ${lastStatus ? `${String(lastStatus.status)} at the last read` : 'unread'} when the wait ended after ${timeout} ms; it was not sent again, read it later with transfers.retrieve`,
    );
    this.batchReference = batchReference;
    this.lastStatus = lastStatus;
  }
}

/** True for {@link TransferPendingError}, even one thrown by another copy of the package. @group Errors */
export const isTransferPendingError = (value: unknown): value is TransferPendingError => isOpenBankingError(value) && value.name === 'TransferPendingError';
