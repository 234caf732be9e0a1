import { AbortError, ApiError, ConnectionError, OpenBankingError, TimeoutError, withIdempotencyKey } from '../errors.js';
import type { PipelineConfig } from './config.js';
import { AttemptTimeout, describeNetworkFailure, type HttpLayer, type HttpMethod, isRedirect, parseJson, redirectMessage, scrubCause, sendOnce } from './http.js';
import { RenewalBackoff } from './renewal-backoff.js';
import { redactHeaders, redactText } from './redact.js';
import { backoffDelay, isRetryableStatus, parseRetryAfterMs } from './retry.js';

/** Where an API call gets its bearer token. */
export interface BearerSource {
  /** A usable access token. */
  token(signal?: AbortSignal): Promise<string>;
  /** After a 401 with `rejected`: a new token worth one more attempt, or undefined. */
  renew(rejected: string, signal?: AbortSignal): Promise<string | undefined>;
}

/** One logical call, ready to send: every attempt carries these very headers and bytes. */
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
  /** The loaded HTTP layer. */
  http: HttpLayer;
  /** Body fields the caller declared secret: redacted from logs and errors with the SDK's own. */
  secretFields?: readonly string[] | undefined;
}

/**
 * The attempt loop: bearer token → limiter → send → on failure, retry with the same key and
 * bytes (408, 429, 5xx, network failures, attempt timeouts), or renew the token once after a 401.
 * Resolves to the final 2xx answer; rejects with the typed error of the last attempt.
 */
export class AttemptLoop {
  /** 401 renewals per token source: bounded once fresh tokens are refused too. */
  readonly #backoffs = new WeakMap<BearerSource, RenewalBackoff>();
  /** Private, never an own property: it holds the client secret. */
  readonly #config: PipelineConfig;

  constructor(config: PipelineConfig) {
    this.#config = config;
  }

  async run(call: PreparedCall): Promise<{ response: Response; text: string }> {
    const o = this.#config;
    const { method, path, headers, idempotencyKey, signal } = call;
    if (signal?.aborted) throw new AbortError('The request was aborted before it was sent', { idempotencyKey });

    // The bearer token is shared with concurrent callers; the caller's signal only stops its own wait.
    let token = await withSignal(call.bearer.token(signal), signal, idempotencyKey);
    let renewed = false;
    /** A freshly renewed token was refused too (or renewals are backing off because of one). */
    let freshRefused = false;
    let retries = 0;

    for (let attempt = 1; ; attempt++) {
      headers.authorization = `Bearer ${token}`;
      const limiter = o.limiter;
      if (limiter) await (limiter.value ?? (await limiter.load())).acquire(signal, idempotencyKey);
      const started = o.now();
      let response: Response;
      let text: string;
      try {
        ({ response, text } = await sendOnce({ method, url: call.url, headers, body: call.payload, signal, timeout: call.timeout, fetch: o.fetch, maxResponseBytes: o.maxResponseBytes, http: call.http }));
      } catch (failure) {
        const error = networkError(failure, signal, idempotencyKey, call.timeout);
        this.#logAttempt(call, error.name, attempt, started);
        if (!(error instanceof ConnectionError) || retries >= call.maxRetries) throw error;
        const delay = backoffDelay(retries++);
        this.#logRetry(method, path, error.name, delay, attempt, idempotencyKey);
        await this.#sleep(delay, signal, idempotencyKey);
        continue;
      }
      this.#logAttempt(call, response.status, attempt, started);

      if (response.ok) {
        this.#backoffs.get(call.bearer)?.succeeded();
        return { response, text };
      }
      if (isRedirect(response)) {
        throw ApiError.from({ status: response.status, body: undefined, rawBody: '', headers: response.headers, idempotencyKey, message: redirectMessage(response, 'The API') });
      }

      if (response.status === 401) {
        const backoff = this.#backoff(call.bearer);
        if (renewed) {
          backoff.freshRefused(token);
          freshRefused = true;
        } else {
          renewed = true;
          if (backoff.tryRenew()) {
            const fresh = await withSignal(call.bearer.renew(token, signal), signal, idempotencyKey);
            if (fresh !== undefined) {
              token = fresh;
              continue;
            }
          } else freshRefused = true;
        }
      }
      const arrived = o.now(); // an HTTP-date Retry-After is read against the client's clock
      let error = ApiError.from({ status: response.status, body: parseJson(text), rawBody: text, headers: response.headers, idempotencyKey, now: arrived, secretFields: call.secretFields });
      if (freshRefused) {
        const wait = Math.round(this.#backoff(call.bearer).wait / 1000);
        error.message = `${error.message} (a freshly obtained token was refused too: check signatureEncoding and the client credentials; the next token renewal waits ${wait} s)`;
      }
      if (!isRetryableStatus(response.status)) throw error;
      const retryAfter = parseRetryAfterMs(response.headers.get('retry-after'), arrived);
      if (retryAfter !== undefined && retryAfter > o.maxRetryDelay) {
        o.logger.warn(`openbanking-ng ${method} ${path} → ${response.status}: Retry-After ${retryAfter} ms exceeds maxRetryDelay ${o.maxRetryDelay} ms; not retrying`, { idempotencyKey, retryAfter });
        throw error;
      }
      if (retries >= call.maxRetries) throw error;
      const delay = retryAfter ?? backoffDelay(retries);
      this.#logRetry(method, path, response.status, delay, attempt, idempotencyKey);
      await this.#sleep(delay, signal, idempotencyKey);
      retries++;
    }
  }

  #backoff(bearer: BearerSource): RenewalBackoff {
    let backoff = this.#backoffs.get(bearer);
    if (backoff === undefined) this.#backoffs.set(bearer, (backoff = new RenewalBackoff(this.#config.now)));
    return backoff;
  }

  async #sleep(ms: number, signal: AbortSignal | undefined, idempotencyKey: string): Promise<void> {
    try {
      await this.#config.sleep(ms, signal);
    } catch (reason) {
      throw new AbortError('The request was aborted while waiting to retry', { idempotencyKey, cause: scrubCause(reason) });
    }
    if (signal?.aborted) throw new AbortError('The request was aborted while waiting to retry', { idempotencyKey });
  }

  /** One debug line per attempt; headers and body redacted. */
  #logAttempt(call: PreparedCall, status: number | string, attempt: number, started: number): void {
    const log = this.#config.logger;
    if (!log.enabled('debug')) return;
    const { method, path, idempotencyKey, payload } = call;
    log.debug(`openbanking-ng ${method} ${path} → ${status} (attempt ${attempt})`, {
      method,
      path,
      status,
      attempt,
      idempotencyKey,
      elapsedMs: this.#config.now() - started,
      headers: redactHeaders(call.headers),
      ...(payload === undefined ? {} : { body: redactText(payload, call.secretFields) }),
    });
  }

  #logRetry(method: string, path: string, reason: number | string, delay: number, attempt: number, idempotencyKey: string): void {
    this.#config.logger.info(`openbanking-ng ${method} ${path} → ${reason}: retrying in ${delay} ms with the same idempotency key`, { attempt, idempotencyKey, delay });
  }
}

function networkError(failure: unknown, signal: AbortSignal | undefined, idempotencyKey: string, timeout: number): OpenBankingError {
  if (signal?.aborted) return new AbortError('The request was aborted', { idempotencyKey, cause: scrubCause(signal.reason) });
  if (failure instanceof AttemptTimeout) return new TimeoutError(`The attempt timed out after ${timeout} ms`, { idempotencyKey });
  if (failure instanceof OpenBankingError) return failure.idempotencyKey === undefined ? withIdempotencyKey(failure, idempotencyKey) : failure;
  return new ConnectionError(`Could not get a complete answer from the API: ${describeNetworkFailure(failure)}`, { idempotencyKey, cause: scrubCause(failure) });
}

/** Waits for a shared promise; the caller's signal ends only this caller's wait. */
function withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined, idempotencyKey: string): Promise<T> {
  // The promise may be shared (one token request for many calls): stamp a copy, never the original.
  const attach = (error: unknown) => {
    throw error instanceof OpenBankingError && error.idempotencyKey === undefined ? withIdempotencyKey(error, idempotencyKey) : error;
  };
  if (!signal) return promise.catch(attach);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError('The request was aborted', { idempotencyKey }));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.catch(attach).then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
