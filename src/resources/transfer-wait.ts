import type { RequestOptions } from '../core/call-options.js';
import type { Sleep } from '../core/retry-timing.js';
import { TransferPendingError } from '../errors/index.js';
import { AbortError, type OpenBankingError, ValidationError, type ValidationIssue } from '../errors/index.js';
import { TRANSFER_PENDING_STATUSES, type WaitForCompletionOptions } from './transfer-status.js';

// The wait for a transfer to settle, loaded with the first `transfers.waitForCompletion`.


/** The first read comes this long after the wait starts; each gap then doubles, up to the cap. */
const FIRST_POLL_MS = 1_000;
const MAX_GAP_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 60_000;

/** A transfer's status as `transfers.retrieve` reads it. */
type Status = NonNullable<TransferPendingError['lastStatus']>;

const PENDING = new Set<string>(TRANSFER_PENDING_STATUSES);

/** True while `status` says the transfer has not settled. */
function isPending(status: unknown): boolean {
  return typeof status === 'string' && PENDING.has(status.toUpperCase());
}

/**
 * Polls `read` (one `transfers.retrieve`, each its own logical call) until the status is final:
 * the first read 1 s after the start, then gaps of 2 s, 4 s, 8 s … capped at 30 s, waiting with the
 * client's `sleep` and reading its clock. At `timeout` it rejects with `TransferPendingError`
 * (a poll in flight is aborted and abandoned); the caller's `signal` ends it with `AbortError`.
 */
export async function waitForTransfer<T extends Status>(
  read: (options: RequestOptions) => Promise<T>,
  clock: { now(): number; sleep: Sleep },
  batchReference: string | number,
  options: WaitForCompletionOptions | undefined,
): Promise<T> {
  checkOptions(options);
  const timeout = options?.timeout ?? DEFAULT_TIMEOUT_MS;
  const signal = options?.signal;
  const reference = String(batchReference);
  const aborted = () => new AbortError(`The wait for the transfer ${reference} was aborted`);
  const deadline = clock.now() + timeout;
  let last: T | undefined;
  for (let gap = FIRST_POLL_MS; ; gap = Math.min(gap * 2, MAX_GAP_MS)) {
    if (signal?.aborted) throw aborted();
    const left = deadline - clock.now();
    try {
      await clock.sleep(Math.max(0, Math.min(gap, left)), signal);
    } catch {
      throw aborted();
    }
    if (signal?.aborted) throw aborted();
    if (clock.now() >= deadline) throw new TransferPendingError(reference, last, timeout);
    last = await pollBefore(read, deadline - clock.now(), signal, () => new TransferPendingError(reference, last, timeout));
    if (!isPending(last.status)) return last;
  }
}

/** The wait's options: `{ timeout?, signal? }` and nothing else, each of its type. */
function checkOptions(options: unknown): void {
  if (options === undefined) return;
  const issues: ValidationIssue[] = [];
  if (typeof options !== 'object' || options === null) {
    issues.push({ path: '', message: 'must be an object { timeout?, signal? }', code: 'invalid_type' });
  } else {
    const { timeout, signal, ...rest } = options as Record<string, unknown>;
    if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
      issues.push({ path: 'timeout', message: 'must be a positive number of milliseconds', code: 'invalid_type' });
    }
    if (signal !== undefined && !(signal instanceof AbortSignal)) issues.push({ path: 'signal', message: 'must be an AbortSignal', code: 'invalid_type' });
    for (const key of Object.keys(rest)) issues.push({ path: key, message: 'is not an option of waitForCompletion (timeout, signal)', code: 'unrecognized_keys' });
  }
  if (issues.length > 0) throw new ValidationError('Invalid options', issues);
}

/** One read, abandoned (its request aborted) when `ms` pass first: then `late()` is thrown. */
async function pollBefore<T>(read: (options: RequestOptions) => Promise<T>, ms: number, signal: AbortSignal | undefined, late: () => OpenBankingError): Promise<T> {
  const stop = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    stop.abort();
  }, Math.min(ms, 2_147_483_647));
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await read({ signal: stop.signal });
  } catch (error) {
    if (expired && !signal?.aborted) throw late();
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
