import ky, { type AfterResponseHook, type BeforeRequestHook, type BeforeRetryHook, isForceRetryError, isHTTPError, isTimeoutError, type NormalizedOptions } from 'ky';
import { OpenBankingError, withIdempotencyKey } from '../errors/base.js';
import { AbortError, ConnectionError, describeNetworkFailure, OAuthError, redirectMessage, ResponseTooLargeError, scrubCause, TimeoutError } from '../errors/base.js';
import { ApiError, parseRetryAfterMs } from '../errors/api.js';
import type { LeveledLogger } from './logger.js';
import { type CallSecrets, redactHeaders, maskText } from '../errors/redact.js';
import { renewalBackoff, renewalBackoffs, BACKOFF_BASE_MS, BACKOFF_CAP_MS, JITTER, MAX_TIMER_MS, RETRY_STATUSES } from './retry-timing.js';

/** HTTP methods the API uses. @group Client */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where an API call gets its bearer token. */
export interface BearerSource {
  /** A usable access token. */
  token(signal?: AbortSignal): Promise<string>;
  /** After a 401 with `rejected`: a new token worth one more attempt, or undefined. */
  renew(rejected: string, signal?: AbortSignal): Promise<string | undefined>;
  /** The token source this one wraps (a customer session's gate before client credentials): its 401 renewals back off together. */
  readonly source?: BearerSource;
}

/** Waits for a unit of the API rate budget before an attempt is sent. */
export interface CallLimiter {
  /** Resolves (to the wait in ms) when the call may go; rejects with `RateLimitError` when the wait would pass `maxWait`. */
  acquire(signal: AbortSignal | undefined, idempotencyKey: string): Promise<number>;
  /** The budget is shared by a fleet. */
  readonly shared?: boolean;
}

/** What an observed call is told of its attempts (`CallObservation` in core/events.ts): the hooks emit through it. */
export interface AttemptObserver {
  /** An attempt is about to be sent, its headers complete. */
  request(request: Request, attempt: number): void;
  /** An attempt's answer was read. */
  response(response: Response): void;
  /** An attempt failed with `error` (what ky retries on) and another follows after `delayMs`. */
  retryAfter(error: unknown, delayMs: number): void;
  /** The rate limiter held the call back `waitMs`. */
  rateLimitWait(waitMs: number, shared: boolean): void;
}

/**
 * One request and everything its hooks need, handed to ky as `context.exchange`: the settings of
 * the request, and what its attempts learn (the token sent, the body read, renewals).
 */
export interface Exchange {
  method: HttpMethod;
  /** How logs name the request: the path under the base URL, or the URL of an identity-host request. */
  path: string;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Per attempt (ms), reading the body included. */
  timeout: number;
  /** Retries after the first attempt (a 401 renewal is not one of them). */
  maxRetries: number;
  maxResponseBytes: number;
  /** A `Retry-After` above this (ms) is not waited for. */
  maxRetryDelay?: number;
  /** The longest wait before a retry (ms), backoff and `Retry-After` alike (the client's `retryDelay`). */
  retryDelay?: number | undefined;
  fetch?: typeof fetch | undefined;
  now: () => number;
  logger?: LeveledLogger | undefined;
  limiter?: CallLimiter | undefined;
  bearer?: BearerSource | undefined;
  /** The error a redirect answer stands for (nothing is sent to its `Location`). */
  refuseRedirect: (response: Response, ex: Exchange) => Error;
  /** How errors name the request and who failed to answer it: `'The request'`, `'the API'`. */
  what: string;
  host: string;
  /** The body sent, for the debug log (redacted there). */
  payload?: string | undefined;
  /** The call's secret fields and the secret values it sent: redacted from logs and errors with the SDK's own. */
  secrets?: CallSecrets | undefined;
  // What the attempts learn.
  token?: string;
  renewals?: number;
  /** A token obtained by a renewal was refused too (or renewals are backing off). */
  freshRefused?: boolean;
  attempt?: number;
  started?: number;
  /** The last answer's body, as read. */
  text?: string;
  /** The last answer as fetch gave it (its body read into `text`): what `withResponse()` hands back. */
  answer?: Response;
  /** A failure of the SDK's own steps (the token source, the limiter): it ends the call, never retried. */
  stop?: unknown;
  /** The last attempt's failure, as ky retries it. */
  failure?: unknown;
  /** The last attempt's request, for its failure's log line. */
  lastRequest?: Request;
  /** The call's events, when somebody watches (`ob.on`, an instrumentation, the diagnostics channel). */
  observe?: AttemptObserver | undefined;
}

/** Who a request goes to: the API (retried; a redirect is the `ApiError` of its status) or the identity host (one attempt; a redirect is an `OAuthError`). */
export type Host = 'the API' | 'the identity host';

/** What every request of one client (or of registration, which has none) is sent with. */
export type ExchangeSettings = Pick<Exchange, 'timeout' | 'maxResponseBytes' | 'now'> & Partial<Pick<Exchange, 'maxRetries' | 'maxRetryDelay' | 'retryDelay' | 'fetch' | 'logger' | 'limiter'>>;

/** One request's own part: what it is, and per-call settings that override the client's. */
export type ExchangeRequest = Pick<Exchange, 'method' | 'path' | 'what'> & Partial<Pick<Exchange, 'idempotencyKey' | 'signal' | 'timeout' | 'maxRetries' | 'bearer' | 'payload' | 'secrets' | 'observe'>>;

/** The one factory of every {@link Exchange}: typed operations, `ob.request`, grants and registration. */
export function exchange(host: Host, settings: ExchangeSettings, request: ExchangeRequest): Exchange {
  const api = host === 'the API';
  return {
    ...request,
    timeout: request.timeout ?? settings.timeout,
    // Only API calls are retried and spend the rate budget: a grant sent twice could spend a rotating refresh token.
    maxRetries: api ? (request.maxRetries ?? settings.maxRetries ?? 0) : 0,
    limiter: api ? settings.limiter : undefined,
    maxResponseBytes: settings.maxResponseBytes,
    maxRetryDelay: settings.maxRetryDelay,
    retryDelay: settings.retryDelay,
    fetch: settings.fetch,
    now: settings.now,
    logger: settings.logger,
    refuseRedirect: api ? apiRedirect : identityRedirect,
    host,
  };
}

/** A redirect from the API: the `ApiError` of its status, nothing sent to its `Location`. */
function apiRedirect(response: Response, ex: Exchange): Error {
  return ApiError.from({ status: response.status, body: undefined, rawBody: '', headers: response.headers, idempotencyKey: ex.idempotencyKey, message: redirectMessage(response, 'The API') });
}

/** A redirect from the identity host: refused, nothing sent to its `Location`. */
function identityRedirect(response: Response): Error {
  return new OAuthError('unexpected_redirect', redirectMessage(response, 'The identity host'), { ...(response.status ? { status: response.status } : {}) });
}

const exchangeOf = (options: NormalizedOptions): Exchange => options.context.exchange as Exchange;

/** beforeRequest: the call's bearer token, fetched once for all its attempts (a renewal replaces it). */
const bearer: BeforeRequestHook = async (request, options) => {
  const ex = exchangeOf(options);
  if (!ex.bearer) return;
  ex.token ??= await stopOnFailure(untilAborted(ex.bearer.token(ex.signal), ex), ex);
  request.headers.set('authorization', `Bearer ${ex.token}`);
};

/** beforeRequest: one unit of the rate budget per attempt. */
const waitForBudget: BeforeRequestHook = async (_request, options) => {
  const ex = exchangeOf(options);
  const limiter = ex.limiter;
  const waited = limiter && (await stopOnFailure(limiter.acquire(ex.signal, ex.idempotencyKey ?? ''), ex));
  if (waited) ex.observe?.rateLimitWait(waited, !!limiter.shared);
};

/** beforeRequest: the attempt's number and start, for the debug log; its `request` event. */
const startAttempt: BeforeRequestHook = (request, options) => {
  const ex = exchangeOf(options);
  ex.attempt = (ex.attempt ?? 0) + 1;
  ex.started = ex.now();
  ex.lastRequest = request;
  ex.observe?.request(request, ex.attempt);
};

/** ky's `fetch`: the body read within the attempt, so ky's `timeout` covers it and a cut-off body is retried; redirects refused. */
async function fetchAndRead(ex: Exchange, request: Request, init: RequestInit | undefined): Promise<Response> {
  const response = await (ex.fetch ?? globalThis.fetch)(request, init);
  if (isRedirect(response)) {
    void response.body?.cancel().catch(() => undefined);
    logAttempt(ex, request, response.status);
    ex.observe?.response(response);
    throw ex.refuseRedirect(response, ex);
  }
  ex.text = await readText(response, ex.maxResponseBytes);
  ex.answer = response;
  logAttempt(ex, request, response.status);
  ex.observe?.response(response);
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** afterResponse: a 401 retries once with a new token; a refused renewal backs that source off (DESIGN "401 renewal"). */
const renewOn401: AfterResponseHook = async (_request, options, response) => {
  const ex = exchangeOf(options);
  const source = ex.bearer;
  if (!source) return;
  if (response.ok) return renewalBackoffs.get(source.source ?? source)?.succeeded();
  const backoff = renewalBackoff(source, ex.now);
  if (response.status !== 401 || ex.token === undefined) return;
  if (ex.renewals) {
    backoff.freshRefused(ex.token);
    ex.freshRefused = true;
    return;
  }
  ex.renewals = 1;
  if (!backoff.tryRenew()) {
    ex.freshRefused = true;
    return;
  }
  const fresh = await stopOnFailure(untilAborted(source.renew(ex.token, ex.signal), ex), ex);
  if (fresh === undefined) return;
  ex.token = fresh;
  logRetry(ex, 401, 0);
  return ky.retry({ delay: 0 });
};

/** beforeRetry: a renewed token's retry, sent at once, is told as a `retry` event here (ky's own waits are told before them). */
const renewedRetry: BeforeRetryHook = ({ options, error }) => {
  if (isForceRetryError(error)) exchangeOf(options).observe?.retryAfter(error, 0);
};

/** DESIGN's backoff before retry `n` (1 = the first): 500 ms × 2^(n-1), capped at 8 s before jitter. */
const backoff = (n: number): number => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (n - 1));

/** ky's `retry.jitter` for `ex`: up to 25 % off the backoff; the wait ky will do is told before it waits. */
function jitterFor(ex: Exchange, limit: number): (delay: number) => number {
  return (delay) => {
    const wait = Math.min(limit, Math.round(delay * (1 - JITTER * Math.random())));
    retrying(ex, wait);
    return wait;
  };
}

/**
 * ky's retry decision plus what only the SDK knows: its own errors, the caller's abort, renewals outside
 * `maxRetries`, a `Retry-After` over `maxRetryDelay` refused, a malformed one (`+5`, `soon`) backed off.
 */
function shouldRetry(ex: Exchange, error: Error, retryCount: number): boolean | undefined {
  if (retryCount - (ex.renewals ?? 0) > ex.maxRetries) return false;
  if (ex.signal?.aborted || error instanceof OpenBankingError || error === ex.stop) return false;
  ex.failure = error;
  if (!isHTTPError(error)) return undefined;
  const status = error.response.status;
  if (!RETRY_STATUSES.includes(status)) return false;
  const retryAfter = parseRetryAfterMs(error.response.headers.get('retry-after'));
  if (retryAfter === undefined) return true;
  if (ex.maxRetryDelay !== undefined && retryAfter > ex.maxRetryDelay) {
    ex.logger?.warn(`openbanking-ng ${ex.method} ${ex.path} → ${status}: Retry-After ${retryAfter} ms exceeds maxRetryDelay ${ex.maxRetryDelay} ms; not retrying`, { idempotencyKey: ex.idempotencyKey, retryAfter });
    return false;
  }
  retrying(ex, Math.min(retryAfter, ex.retryDelay ?? Infinity));
  return undefined;
}

/** A retry is decided and ky waits `delay` ms: the failed attempt's log line, the retry's, its event. */
function retrying(ex: Exchange, delay: number): void {
  const error = ex.failure;
  const status = isHTTPError(error) ? error.response.status : undefined;
  if (status === undefined && ex.lastRequest) logAttempt(ex, ex.lastRequest, (error as Error | undefined)?.name ?? 'error');
  logRetry(ex, status ?? (error as Error | undefined)?.name ?? 'error', delay);
  ex.observe?.retryAfter(error, delay);
}

/**
 * The one configured ky instance every request of the SDK goes through (API calls, token
 * endpoints, registration, device polling). Its retry options say DESIGN's "what is retried" row
 * and its backoff; ky waits (a `Retry-After` on any retried status, else the backoff).
 */
export const http = ky.create({
  redirect: 'manual',
  retry: {
    methods: ['get', 'post', 'put', 'patch', 'delete'],
    statusCodes: RETRY_STATUSES,
    afterStatusCodes: RETRY_STATUSES,
    retryOnTimeout: true,
    delay: backoff,
    backoffLimit: BACKOFF_CAP_MS,
  },
  hooks: {
    beforeRequest: [bearer, waitForBudget, startAttempt],
    afterResponse: [renewOn401],
    beforeRetry: [renewedRetry],
  },
});

/**
 * Sends one request through {@link http} with `ex`'s settings. Resolves to the final answer (the
 * `Response` fetch gave, its body already read) and that body; rejects with what ky threw (an `HTTPError` for a non-2xx when `throwHttpErrors`, a ky
 * `TimeoutError`, a network failure, a wait aborted by the caller's signal, or an SDK error from a hook).
 */
export async function send(url: string, ex: Exchange, init: { headers: Record<string, string>; body?: BodyInit | undefined; throwHttpErrors?: boolean }): Promise<{ response: Response; text: string }> {
  const cap = ex.retryDelay ?? Infinity;
  const response = await http(url, {
    method: ex.method,
    headers: init.headers,
    body: init.body,
    signal: ex.signal,
    timeout: ex.timeout > MAX_TIMER_MS ? false : ex.timeout,
    throwHttpErrors: init.throwHttpErrors ?? true,
    fetch: (input, options) => fetchAndRead(ex, input as Request, options),
    context: { exchange: ex },
    retry: {
      limit: ex.maxRetries + (ex.bearer ? 1 : 0),
      backoffLimit: Math.min(BACKOFF_CAP_MS, cap),
      maxRetryAfter: Math.min(ex.maxRetryDelay ?? Infinity, cap),
      jitter: jitterFor(ex, Math.min(BACKOFF_CAP_MS, cap)),
      shouldRetry: ({ error, retryCount }) => shouldRetry(ex, error, retryCount),
    },
  });
  // ky passed on a copy without the body; the caller gets fetch's own Response (url, type, …).
  return { response: ex.answer ?? response, text: ex.text ?? '' };
}

/**
 * What {@link send} threw when no usable answer came, as the SDK's error: an SDK error from a hook
 * as it is (with the call's key), the caller's abort, the attempt timeout, or a network failure.
 * The one mapper of API calls, grants and registration.
 */
export function noAnswer(failure: unknown, ex: Exchange): unknown {
  const { idempotencyKey, signal, what } = ex;
  if (failure instanceof OpenBankingError) return idempotencyKey !== undefined && failure.idempotencyKey === undefined ? withIdempotencyKey(failure, idempotencyKey) : failure;
  if (failure === ex.stop) return failure;
  if (signal?.aborted) return new AbortError(`${what} was aborted`, { idempotencyKey, cause: scrubCause(signal.reason) });
  if (isTimeoutError(failure)) return new TimeoutError(`${what} timed out: ${ex.host} did not answer within ${ex.timeout} ms`, { idempotencyKey });
  return new ConnectionError(`${what} failed: could not get a complete answer from ${ex.host} (${describeNetworkFailure(failure)})`, { idempotencyKey, cause: scrubCause(failure) });
}

/** One debug line per attempt; headers and body redacted. */
function logAttempt(ex: Exchange, request: Request, status: number | string): void {
  const log = ex.logger;
  if (!log?.debugging) return;
  const { method, path, idempotencyKey, payload } = ex;
  log.debug(`openbanking-ng ${method} ${path} → ${status} (attempt ${ex.attempt ?? 1})`, {
    method,
    path,
    status,
    attempt: ex.attempt ?? 1,
    idempotencyKey,
    elapsedMs: ex.now() - (ex.started ?? ex.now()),
    headers: redactHeaders(request.headers),
    ...(payload === undefined ? {} : { body: maskText(payload, ex.secrets) }),
  });
}

function logRetry(ex: Exchange, reason: number | string, delay: number): void {
  ex.logger?.info(`openbanking-ng ${ex.method} ${ex.path} → ${reason}: retrying in ${delay} ms with the same idempotency key`, { attempt: ex.attempt, idempotencyKey: ex.idempotencyKey, delay });
}

/** `promise`, its failure recorded as one that ends the call. */
function stopOnFailure<T>(promise: Promise<T>, ex: Exchange): Promise<T> {
  return promise.catch((error: unknown) => {
    ex.stop = error;
    throw error;
  });
}

/** Waits for a shared promise (one token request for many calls); the caller's signal ends only this wait. */
function untilAborted<T>(promise: Promise<T>, ex: Exchange): Promise<T> {
  const { signal, idempotencyKey } = ex;
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError('The request was aborted', { idempotencyKey }));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A body as UTF-8 text, refused with {@link ResponseTooLargeError} past `limit` bytes (declared or read). */
async function readText(response: Response, limit: number): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    void body.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(response.status, limit);
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(response.status, limit);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** True for a 3xx answer, or the opaque answer a browser gives for one under `redirect: 'manual'`. */
export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/** The body as JSON, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
