import type * as z from 'zod/mini';
import { toIssues } from '../schemas/issues.js';
import type { ResolvedOptions } from '../options.js';
import { checkNumber, checkTimeout, describeType, HEADER_VALUE, IssueList } from '../options.js';
import {
  AbortError,
  ApiError,
  CipherError,
  ConnectionError,
  OpenBankingError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
  type ValidationIssue,
  withIdempotencyKey,
} from '../errors.js';
import { type APIPromise, makeAPIPromise, type WithResponse } from './api-promise.js';
import { plaintextCipher } from '../crypto/cipher.js';
import { CiphertextMemo } from './ciphertext-memo.js';
import { jsonIssues } from './json-body.js';
import { RateLimiter } from './rate-limiter.js';
import { redactHeaders, redactText } from './redact.js';
import { backoffDelay, isRetryableStatus, parseRetryAfterMs } from './retry.js';
import { computeSignature } from './signature.js';
import { Lazy } from './lazy.js';

/** HTTP methods the API uses. @group Client */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Options every API method takes as its last argument.
 * @group Client
 */
export interface RequestOptions {
  /** Your own idempotency key; by default a fresh UUID v4 per logical call. */
  idempotencyKey?: string;
  /** `connection-id` for this call, overriding the client's default. */
  connectionId?: string;
  /** Aborts the call (no retry follows); rejects with `AbortError`. */
  signal?: AbortSignal;
  /** Per-attempt timeout (ms) for this call. */
  timeout?: number;
  /** Retries after the first attempt, for this call. */
  maxRetries?: number;
  /** Extra headers for this call. They cannot replace the SDK's authorization, signature or idempotency headers. */
  headers?: Record<string, string> | Headers;
}

/** Where an API call gets its bearer token. */
export interface BearerSource {
  /** A usable access token. */
  token(signal?: AbortSignal): Promise<string>;
  /** After a 401 with `rejected`: a new token worth one more attempt, or undefined. */
  renew(rejected: string, signal?: AbortSignal): Promise<string | undefined>;
}

/** One API operation: what the pipeline needs to send it and read its answer. */
export interface Operation<Body, Data> {
  method: HttpMethod;
  /** Path under the base URL, starting with `/`, already encoded. */
  path: string;
  query?: Record<string, unknown> | undefined;
  body?: Body | undefined;
  /**
   * The operation's zod schemas, loaded with its first call: `request` validates the body before
   * anything is sent, `response` validates `data` of a 2xx answer (unknown fields kept).
   */
  schemas?: Lazy<OperationSchemas<Body, Data>> | undefined;
  /** A 2xx body must be the `{status, message, data}` envelope. */
  envelope?: boolean;
  /** Top-level request fields the cipher encrypts. */
  secretRequestFields?: readonly string[];
  /** Response fields (dotted paths into `data`, `*` for every array item) the cipher decrypts. */
  secretResponseFields?: readonly string[];
  /** Where the bearer token comes from. */
  bearer: BearerSource;
}

/** The zod schemas of one operation. */
export interface OperationSchemas<Body, Data> {
  request?: z.ZodMiniType<Body>;
  response?: z.ZodMiniType<Data>;
}

/**
 * ky and uuid load with the first request, not with the package: importing ky runs its feature
 * detection, which builds a `Request` and so loads Node's whole fetch implementation (undici),
 * and uuid's entry loads every UUID version. Deferred, they leave the import of the package to
 * what it needs (docs/performance.md); the first call pays what hand-written fetch code pays on
 * its first request anyway.
 */
const httpLayer = new Lazy(() => import('./http-layer.js'));

const PROTECTED_HEADERS = new Set(['authorization', 'signature', 'idempotency-key', 'content-type']);
const CALL_OPTION_KEYS = new Set(['idempotencyKey', 'connectionId', 'signal', 'timeout', 'maxRetries', 'headers']);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Checks per-call options; returns the problems. */
function checkCallOptions(options: RequestOptions | undefined): ValidationIssue[] {
  if (options === undefined) return [];
  const issues = new IssueList();
  if (typeof options !== 'object' || options === null) {
    issues.add('', `request options must be an object, got ${describeType(options)}`, 'invalid_type');
    return issues.issues;
  }
  for (const key of Object.keys(options)) {
    if (!CALL_OPTION_KEYS.has(key)) issues.add(key, 'is not a request option', 'unrecognized_keys');
  }
  const key = options.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key))) {
    issues.add('idempotencyKey', 'must be 1–255 visible ASCII characters', 'invalid_format');
  }
  const conn = options.connectionId;
  if (conn !== undefined && (typeof conn !== 'string' || conn.length === 0 || !HEADER_VALUE.test(conn))) {
    issues.add('connectionId', 'must be a non-empty string without line breaks', 'invalid_format');
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) issues.add('signal', 'must be an AbortSignal', 'invalid_type');
  checkTimeout(issues, 'timeout', options.timeout, 0);
  checkNumber(issues, 'maxRetries', options.maxRetries, 0, { min: 0, integer: true });
  if (options.headers !== undefined) {
    if (typeof options.headers !== 'object' || options.headers === null) issues.add('headers', 'must be an object or Headers', 'invalid_type');
    else {
      const entries = options.headers instanceof Headers ? [...options.headers.entries()] : Object.entries(options.headers);
      for (const [name, value] of entries) {
        if (!HEADER_NAME.test(name)) issues.add(`headers.${name}`, 'is not a valid header name', 'invalid_format');
        else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) issues.add(`headers.${name}`, 'must be a string without line breaks', 'invalid_format');
        else if (PROTECTED_HEADERS.has(name.toLowerCase())) issues.add(`headers.${name}`, 'is set by the SDK and cannot be overridden (use the idempotencyKey option for the key)', 'protected_header');
      }
    }
  }
  return issues.issues;
}

/** Reads a value at a dotted path with `*` for array items, calling `visit` on each string leaf. */
async function mapStrings(target: unknown, path: string[], visit: (value: string, field: string) => Promise<string>, field: string): Promise<void> {
  if (target === null || typeof target !== 'object') return;
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (head === '*') {
    if (Array.isArray(target)) await Promise.all(target.map((item) => mapStrings(item, rest, visit, field)));
    return;
  }
  const record = target as Record<string, unknown>;
  if (rest.length === 0) {
    if (typeof record[head] === 'string') record[head] = await visit(record[head], field);
    return;
  }
  await mapStrings(record[head], rest, visit, field);
}

/**
 * The one request pipeline: validate → encrypt → key and signature (once) → token → send with
 * retries (same key, same bytes) → parse the envelope → validate → decrypt.
 */
export class Transport {
  readonly #limiter: RateLimiter | undefined;
  readonly #ciphertexts = new CiphertextMemo();

  constructor(readonly options: ResolvedOptions) {
    const limit = options.rateLimit;
    this.#limiter = limit ? new RateLimiter(limit.rate, limit.burst, limit.maxWait, options.now, options.sleep) : undefined;
  }

  /** Runs an operation; the promise resolves to `data` and has `.withResponse()`. */
  request<Body, Data>(op: Operation<Body, Data>, callOptions?: RequestOptions, precheck?: () => void): APIPromise<Data> {
    return makeAPIPromise(this.#run(op, callOptions, precheck));
  }

  async #run<Body, Data>(op: Operation<Body, Data>, callOptions: RequestOptions | undefined, precheck: (() => void) | undefined): Promise<WithResponse<Data>> {
    const o = this.options;
    precheck?.();
    const optionIssues = checkCallOptions(callOptions);
    if (optionIssues.length > 0) throw new ValidationError('Invalid request options', optionIssues);
    const call = callOptions ?? {};

    // 1. The body, validated before anything is sent.
    let body: unknown = op.body;
    const schemas = op.schemas && (op.schemas.value ?? (await op.schemas.load()));
    if (schemas?.request) {
      const parsed = schemas.request.safeParse(op.body);
      if (!parsed.success) throw new ValidationError('Invalid request body', toIssues(parsed.error, op.body));
      body = parsed.data;
    }
    if (body !== undefined) {
      const problems = jsonIssues(body);
      if (problems.length > 0) throw new ValidationError('Invalid request body', problems);
    }
    const query = this.#query(op.query);
    const http = httpLayer.value ?? (await httpLayer.load());
    const idempotencyKey = call.idempotencyKey ?? http.uuid();

    // 2. Secret fields encrypted once, so every attempt carries the same bytes.
    if (op.secretRequestFields?.length && body && typeof body === 'object') {
      const carried = op.secretRequestFields.filter((f) => typeof (body as Record<string, unknown>)[f] === 'string');
      if (carried.length > 0) {
        if (o.environment === 'production' && !o.cipherExplicit) {
          throw new OpenBankingError(
            `Refusing to send ${carried.join(', ')} in production without a cipher: the provider encrypts card secrets with a scheme it does not publish. Configure the cipher your provider documents (e.g. cipher: aesCbcCipher(clientSecret)), or cipher: plaintextCipher if it really takes plain text.`,
          );
        }
        const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
        for (const field of carried) {
          try {
            copy[field] = await this.#ciphertexts.encrypt(o.cipher, idempotencyKey, field, copy[field] as string);
          } catch (cause) {
            throw new CipherError(`Could not encrypt ${field}`, { field, cause: cipherCause(cause) });
          }
          if (typeof copy[field] !== 'string') throw new CipherError(`The cipher returned a non-string for ${field}`, { field });
        }
        body = copy;
      }
    }
    const payload = body === undefined ? undefined : JSON.stringify(body);

    // 3. Idempotency key (minted above: the encryption remembers its ciphertext under it) and signature: once per logical call.
    const signed = computeSignature(o.clientSecret, idempotencyKey, o.signatureEncoding);
    const signature = typeof signed === 'string' ? signed : await signed; // Node hashes synchronously: no microtask hop
    const headers: Record<string, string> = {};
    if (call.headers) {
      const entries = call.headers instanceof Headers ? call.headers.entries() : Object.entries(call.headers);
      for (const [name, value] of entries) headers[name.toLowerCase()] = value;
    }
    headers.accept = 'application/json';
    headers['content-type'] = 'application/json';
    headers['idempotency-key'] = idempotencyKey;
    headers.signature = signature;
    const connectionId = call.connectionId ?? o.connectionId;
    if (connectionId !== undefined) headers['connection-id'] = connectionId;
    if (o.participantId !== undefined) headers['x-participant-id'] = o.participantId;

    const url = o.baseUrl + op.path + query;
    const signal = call.signal;
    const timeout = call.timeout ?? o.timeout;
    const maxRetries = call.maxRetries ?? o.maxRetries;
    if (signal?.aborted) throw new AbortError('The request was aborted before it was sent', { idempotencyKey });

    // 4. The bearer token (shared with concurrent callers; the caller's signal only stops its own wait).
    let token = await this.#withSignal(op.bearer.token(signal), signal, idempotencyKey);
    let renewed = false;
    let retries = 0;

    for (let attempt = 1; ; attempt++) {
      headers.authorization = `Bearer ${token}`;
      if (this.#limiter) await this.#limiter.acquire(signal, idempotencyKey);
      const started = o.now();
      let response: Response;
      let text: string;
      try {
        ({ response, text } = await this.#send(op.method, url, headers, payload, signal, timeout));
      } catch (failure) {
        const error = this.#networkError(failure, signal, idempotencyKey, timeout);
        this.#logAttempt(op.method, op.path, error.name, attempt, idempotencyKey, started, headers, payload);
        if (error instanceof AbortError || retries >= maxRetries) throw error;
        const delay = backoffDelay(retries++);
        this.#logRetry(op.method, op.path, error.name, delay, attempt, idempotencyKey);
        await this.#sleep(delay, signal, idempotencyKey);
        continue;
      }
      this.#logAttempt(op.method, op.path, response.status, attempt, idempotencyKey, started, headers, payload);

      if (response.ok) return this.#parseSuccess(op, schemas?.response, response, text, idempotencyKey);

      if (response.status === 401 && !renewed) {
        renewed = true;
        const fresh = await this.#withSignal(op.bearer.renew(token, signal), signal, idempotencyKey);
        if (fresh !== undefined) {
          token = fresh;
          continue;
        }
      }
      const arrived = o.now(); // an HTTP-date Retry-After is read against the client's clock
      const error = ApiError.from({ status: response.status, body: parseJson(text), rawBody: text, headers: response.headers, idempotencyKey, now: arrived });
      if (!isRetryableStatus(response.status)) throw error;
      const retryAfter = parseRetryAfterMs(response.headers.get('retry-after'), arrived);
      if (retryAfter !== undefined && retryAfter > o.maxRetryDelay) {
        o.logger.warn(`openbanking-ng ${op.method} ${op.path} → ${response.status}: Retry-After ${retryAfter} ms exceeds maxRetryDelay ${o.maxRetryDelay} ms; not retrying`, { idempotencyKey, retryAfter });
        throw error;
      }
      if (retries >= maxRetries) throw error;
      const delay = retryAfter ?? backoffDelay(retries);
      this.#logRetry(op.method, op.path, response.status, delay, attempt, idempotencyKey);
      await this.#sleep(delay, signal, idempotencyKey);
      retries++;
    }
  }

  #query(query: Record<string, unknown> | undefined): string {
    if (!query) return '';
    const params = new URLSearchParams();
    const issues: ValidationIssue[] = [];
    for (const [name, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item === undefined || item === null) continue;
        if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') params.append(name, String(item));
        else if (item instanceof Date) params.append(name, item.toISOString());
        else issues.push({ path: `query.${name}`, message: `must be a string, number, boolean or Date, got ${describeType(item)}`, code: 'invalid_type' });
      }
    }
    if (issues.length > 0) throw new ValidationError('Invalid query', issues);
    const text = params.toString();
    return text ? `?${text}` : '';
  }

  /**
   * One attempt through ky. ky builds the request (URL, method, headers) and hands it to fetch; the
   * body and the attempt's signal join it there. Handing ky the body instead costs, on every
   * attempt, a body stream for ky's Request, a tee() of it for the clone ky keeps for retries of
   * its own (unused: the SDK retries) and an identity TransformStream when fetch re-wraps that
   * Request; handing ky the signal adds an `AbortSignal.any`. Together that was about a third of
   * a call's CPU on Node (docs/performance.md). The attempt's timer also covers reading the body.
   */
  async #send(method: HttpMethod, url: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal | undefined, timeout: number): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    const timer = timeout <= MAX_TIMER_MS ? setTimeout(abortAttempt, timeout, controller) : undefined;
    const onAbort = signal ? () => controller.abort(signal.reason) : undefined;
    if (onAbort) signal!.addEventListener('abort', onAbort, { once: true });
    try {
      const init: RequestInit = { body, signal: controller.signal };
      const custom = this.options.fetch;
      const response = await httpLayer.value!.ky(url, {
        method,
        headers,
        retry: 0,
        timeout: false,
        throwHttpErrors: false,
        // A custom fetch (e.g. a sandbox handler that takes one Request) gets the complete Request;
        // the global fetch, read per attempt so that interceptors such as msw apply, takes it as init.
        fetch: custom ? (request) => custom(new Request(request, init)) : (request) => globalThis.fetch(request, init),
      });
      const text = await response.text();
      return { response, text };
    } catch (error) {
      if (controller.signal.reason instanceof TimeoutMarker) throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal!.removeEventListener('abort', onAbort);
    }
  }

  #networkError(failure: unknown, signal: AbortSignal | undefined, idempotencyKey: string, timeout: number): OpenBankingError {
    if (signal?.aborted) return new AbortError('The request was aborted', { idempotencyKey, cause: scrubCause(signal.reason) });
    if (failure instanceof TimeoutMarker) return new TimeoutError(`The attempt timed out after ${timeout} ms`, { idempotencyKey });
    if (failure instanceof OpenBankingError) return failure;
    return new ConnectionError(`Could not get a complete answer from the API: ${describeNetworkFailure(failure)}`, { idempotencyKey, cause: scrubCause(failure) });
  }

  async #sleep(ms: number, signal: AbortSignal | undefined, idempotencyKey: string): Promise<void> {
    try {
      await this.options.sleep(ms, signal);
    } catch (reason) {
      throw new AbortError('The request was aborted while waiting to retry', { idempotencyKey, cause: scrubCause(reason) });
    }
    if (signal?.aborted) throw new AbortError('The request was aborted while waiting to retry', { idempotencyKey });
  }

  /** Waits for a shared promise; the caller's signal ends only this caller's wait. */
  #withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined, idempotencyKey: string): Promise<T> {
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

  async #parseSuccess<Body, Data>(
    op: Operation<Body, Data>,
    responseSchema: z.ZodMiniType<Data> | undefined,
    response: Response,
    text: string,
    idempotencyKey: string,
  ): Promise<WithResponse<Data>> {
    const invalid = (issues: ValidationIssue[]) => new ResponseValidationError({ status: response.status, issues, rawBody: text, idempotencyKey });
    let parsed: unknown;
    if (text.trim() === '') {
      if (op.envelope || responseSchema) throw invalid([{ path: '', message: 'the body is empty', code: 'empty_body' }]);
      return { data: undefined as Data, envelope: undefined, response, idempotencyKey };
    }
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid([{ path: '', message: `the body is not JSON (content-type: ${response.headers.get('content-type') ?? 'none'})`, code: 'invalid_json' }]);
    }
    const isEnvelope = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'data' in parsed;
    if (op.envelope && !isEnvelope) throw invalid([{ path: 'data', message: 'the {status, message, data} envelope is missing', code: 'invalid_envelope' }]);
    const envelope = isEnvelope ? (parsed as Envelope<unknown>) : undefined;
    let data: unknown = envelope ? envelope.data : parsed;
    if (responseSchema) {
      const result = responseSchema.safeParse(data);
      if (!result.success) {
        throw invalid(toIssues(result.error, data, 'data'));
      }
      data = result.data;
    }
    // The identity cipher hands every value back unchanged: nothing to visit.
    if (this.options.decryptResponses && this.options.cipher !== plaintextCipher && op.secretResponseFields?.length && data && typeof data === 'object') {
      const cipher = this.options.cipher;
      for (const field of op.secretResponseFields) {
        const name = field.slice(field.lastIndexOf('.') + 1);
        await mapStrings(data, field.split('.'), async (value) => {
          if (value === '') return value; // an empty field carries no secret to decrypt
          try {
            const plain = await cipher.decrypt(value);
            if (typeof plain !== 'string') throw new TypeError('non-string result');
            return plain;
          } catch (cause) {
            throw new CipherError(`Could not decrypt ${name} of the response: the value does not match the configured cipher`, {
              field: name,
              idempotencyKey,
              cause: cipherCause(cause),
            });
          }
        }, name);
      }
    }
    return { data: data as Data, envelope: envelope as Envelope<Data> | undefined, response, idempotencyKey };
  }

  /** One debug line per attempt; headers and body redacted. */
  #logAttempt(method: string, path: string, status: number | string, attempt: number, idempotencyKey: string, started: number, headers: Record<string, string>, payload: string | undefined): void {
    const log = this.options.logger;
    if (!log.enabled('debug')) return;
    log.debug(`openbanking-ng ${method} ${path} → ${status} (attempt ${attempt})`, {
      method,
      path,
      status,
      attempt,
      idempotencyKey,
      elapsedMs: this.options.now() - started,
      headers: redactHeaders(headers),
      ...(payload === undefined ? {} : { body: redactText(payload) }),
    });
  }

  #logRetry(method: string, path: string, reason: number | string, delay: number, attempt: number, idempotencyKey: string): void {
    this.options.logger.info(`openbanking-ng ${method} ${path} → ${reason}: retrying in ${delay} ms with the same idempotency key`, { attempt, idempotencyKey, delay });
  }
}

/** The `{status, message, data}` envelope as the server sent it. @group Client */
export interface Envelope<Data> {
  /** ISO 8583-style response code (`'00'`) or `'success'`. */
  status: string;
  /** Human-readable text; never branch on it (pages reuse each other's messages). */
  message: string;
  /** The operation's result. */
  data: Data;
  /** Members the service may add. */
  [extra: string]: unknown;
}

class TimeoutMarker extends Error {
  constructor() {
    super('attempt timeout');
  }
}

/** The longest delay `setTimeout` takes; a longer attempt timeout sets no timer at all. */
const MAX_TIMER_MS = 2_147_483_647;

/** The attempt timer's callback: one function for every attempt, the controller passed as argument. */
function abortAttempt(controller: AbortController): void {
  controller.abort(new TimeoutMarker());
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeNetworkFailure(failure: unknown): string {
  const cause = (failure as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return cause.code;
  if (failure instanceof Error) return failure.message;
  return 'network failure';
}

/**
 * A cipher's own error may quote the value it failed on (a user-written cipher can say anything),
 * so only the SDK's own errors are kept as they are; others keep their class name alone.
 */
function cipherCause(cause: unknown): unknown {
  if (cause instanceof OpenBankingError) return cause;
  const copy = new Error('the cipher failed (its message is withheld: it may quote the value)');
  copy.name = cause instanceof Error ? cause.name : 'Error';
  return copy;
}

/** Keeps a cause's class and message for debugging, never arbitrary attached data. */
function scrubCause(cause: unknown): unknown {
  if (cause instanceof OpenBankingError) return cause;
  if (cause instanceof Error) {
    const copy = new Error(cause.message.slice(0, 200));
    copy.name = cause.name;
    const code = (cause as { code?: unknown }).code ?? (cause as { cause?: { code?: unknown } }).cause?.code;
    if (typeof code === 'string') (copy as Error & { code?: string }).code = code;
    return copy;
  }
  return undefined;
}
