import { isHTTPError, isTimeoutError } from 'ky';
import { v4 } from 'uuid';
import { ApiError } from '../errors/api.js';
import { OpenBankingError, withIdempotencyKey } from '../errors/base.js';
import { AbortError, ConnectionError, TimeoutError } from '../errors/local.js';
import type { PipelineConfig } from './config.js';
import type { CallSecrets } from './redact.js';
import { type AttemptObserver, type BearerSource, type CallLimiter, type Exchange, type HttpMethod, renewalBackoff, send } from './http.js';
import { describeNetworkFailure, parseJson, redirectMessage, scrubCause } from './response.js';

/** A fresh idempotency key (UUID v4). */
export const uuid = (): string => v4();

/** One logical API call, ready to send: every attempt carries these very headers and bytes. */
export interface PreparedCall {
  method: HttpMethod;
  /** The path as logged (under the base URL). */
  path: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
  idempotencyKey: string;
  signal: AbortSignal | undefined;
  timeout: number;
  maxRetries: number;
  bearer: BearerSource;
  limiter: CallLimiter | undefined;
  /** The call's secret fields and the secret values it sent: redacted from logs and errors with the SDK's own. */
  secrets?: CallSecrets | undefined;
  /** The call's events, when somebody watches. */
  observe?: AttemptObserver | undefined;
}

/**
 * Sends an API call through the SDK's ky instance and resolves to its 2xx answer; every failure
 * rejects with the SDK's error for it (an `ApiError` by status, `TimeoutError`, `ConnectionError`,
 * `AbortError`), carrying the call's idempotency key.
 */
export async function sendApiCall(o: PipelineConfig, call: PreparedCall): Promise<{ response: Response; text: string }> {
  const { idempotencyKey, signal } = call;
  if (signal?.aborted) throw new AbortError('The request was aborted before it was sent', { idempotencyKey });
  const ex: Exchange = {
    method: call.method,
    path: call.path,
    idempotencyKey,
    signal,
    timeout: call.timeout,
    maxRetries: call.maxRetries,
    maxResponseBytes: o.maxResponseBytes,
    maxRetryDelay: o.maxRetryDelay,
    fetch: o.fetch,
    now: o.now,
    retryDelay: o.retryDelay,
    logger: o.logger,
    limiter: call.limiter,
    bearer: call.bearer,
    payload: call.payload,
    secrets: call.secrets,
    observe: call.observe,
    refuseRedirect: (response) =>
      ApiError.from({ status: response.status, body: undefined, rawBody: '', headers: response.headers, idempotencyKey, message: redirectMessage(response, 'The API') }),
  };
  try {
    return await send(call.url, ex, { headers: call.headers, body: call.payload });
  } catch (failure) {
    throw apiFailure(failure, ex);
  }
}

/** What ky threw, as the SDK's error for it; a failure of the token source that is not one is passed on as it is. */
function apiFailure(failure: unknown, ex: Exchange): unknown {
  const { signal, timeout } = ex;
  const idempotencyKey = ex.idempotencyKey!;
  if (failure instanceof OpenBankingError) return failure.idempotencyKey === undefined ? withIdempotencyKey(failure, idempotencyKey) : failure;
  if (failure === ex.stop) return failure;
  if (signal?.aborted) return new AbortError('The request was aborted', { idempotencyKey, cause: scrubCause(signal.reason) });
  if (isTimeoutError(failure)) return new TimeoutError(`The attempt timed out after ${timeout} ms`, { idempotencyKey });
  if (isHTTPError(failure)) {
    const { response } = failure;
    const text = ex.text ?? '';
    const error = ApiError.from({ status: response.status, body: parseJson(text), rawBody: text, headers: response.headers, idempotencyKey, secretFields: ex.secrets?.fields, secretValues: ex.secrets?.values });
    if (ex.freshRefused && ex.bearer) {
      const wait = Math.round(renewalBackoff(ex.bearer, ex.now).wait / 1000);
      error.message = `${error.message} (a freshly obtained token was refused too: check signatureEncoding and the client credentials; the next token renewal waits ${wait} s)`;
    }
    return error;
  }
  return new ConnectionError(`Could not get a complete answer from the API: ${describeNetworkFailure(failure)}`, { idempotencyKey, cause: scrubCause(failure) });
}
