import type * as z from 'zod/mini';
import { isOpenBankingError, OAuthError, OpenBankingError } from './errors.js';
import type * as S from './schemas/transfers.js';

// The errors of consent and money movement: a customer's consent that ended, and a transfer still
// pending when the wait for it ran out.

/**
 * The customer's consent has ended: a refresh of the session's tokens was answered `invalid_grant`
 * (the consent was revoked or expired, or a rotated refresh token was replayed), here or, with a
 * fleet, in another process holding a session with the same `id`. Every call of the session
 * rejects with it, without a request, until `session.setTokens(newTokens)`; `onConsentEnded`
 * fired once when it ended. Send the customer back through consent for {@link scopes}.
 *
 * @example
 * ```ts
 * import { isConsentEndedError, OPERATION_SCOPES } from 'openbanking-ng';
 * declare const session: import('openbanking-ng').CustomerSession;
 * try {
 *   await session.accounts.list();
 * } catch (error) {
 *   if (isConsentEndedError(error)) {
 *     const scope = error.scopes ?? [...OPERATION_SCOPES['accounts.list']];
 *     // start a new authorization request with `scope`
 *   }
 * }
 * ```
 * @group Errors
 */
export class ConsentEndedError extends OAuthError {
  /** Always `'ConsentEndedError'`, also after minification. */
  override name = 'ConsentEndedError';
  /** The scopes of the token set that ended: what to ask the customer for again. Undefined when the set carried no `scope`. */
  readonly scopes: string[] | undefined;

  constructor(errorDescription: string | undefined, scopes: readonly string[] | undefined, options?: { status?: number; cause?: unknown }) {
    super('invalid_grant', errorDescription, options);
    this.scopes = scopes === undefined ? undefined : [...scopes];
    this.message = `${this.message} (the customer's consent has ended: ask the customer to consent again${scopes && scopes.length > 0 ? ` for ${scopes.join(' ')}` : ''}, then call session.setTokens with the new tokens)`;
  }
}

/**
 * What `transfers.retrieve` reads (`status` is open: `'SUCCESSFUL'`, `'PENDING'`, …).
 * The same shape as `TransferStatus` from the transfers namespace.
 */
type TransferStatusRead = z.output<typeof S.transferStatusSchema>;

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
  readonly lastStatus: TransferStatusRead | undefined;

  constructor(batchReference: string, lastStatus: TransferStatusRead | undefined, timeout: number) {
    super(
      `The transfer ${batchReference} was still ${lastStatus ? `${String(lastStatus.status)} at the last read` : 'unread'} when the wait ended after ${timeout} ms; it was not sent again, read it later with transfers.retrieve`,
    );
    this.batchReference = batchReference;
    this.lastStatus = lastStatus;
  }
}

/** True for {@link ConsentEndedError}, even one thrown by another copy of the package. @group Errors */
export const isConsentEndedError = (value: unknown): value is ConsentEndedError => isOpenBankingError(value) && value.name === 'ConsentEndedError';
/** True for {@link TransferPendingError}, even one thrown by another copy of the package. @group Errors */
export const isTransferPendingError = (value: unknown): value is TransferPendingError => isOpenBankingError(value) && value.name === 'TransferPendingError';
