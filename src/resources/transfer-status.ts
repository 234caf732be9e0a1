// What "settled" means for a transfer, apart from the wait itself (which loads on first use).

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
