import { redactHeaders, redactText, redactValue, withoutSecretHeaders } from './core/redact.js';
import { parseRetryAfterMs } from './core/retry.js';

const BRAND = Symbol.for('openbanking-ng.error');

/** One problem found in a request body, an option or a response, with a dotted path. @group Errors */
export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `'card_expiry.month'`; `''` for the whole value. */
  path: string;
  /** What is wrong, in words. Never contains the offending value. */
  message: string;
  /** Machine-readable reason, e.g. `'invalid_type'`, `'invalid_format'`, `'unrecognized_keys'`. */
  code: string;
}

/** A field error as the service reports it, normalised from either of its error body shapes. @group Errors */
export interface FieldError {
  /** The field the error is about, when the service names one. */
  field?: string;
  /** Service error code, e.g. `'MISSING_FIELD'` or `'INVALID_AMOUNT'`. */
  code: string;
  /** Human-readable text from the service. */
  message: string;
}

/**
 * Base class of every error the SDK raises. Check with `instanceof` or, across two copies of the
 * package (ESM and CJS), with {@link isOpenBankingError}.
 * @group Errors
 */
export class OpenBankingError extends Error {
  /** Always `'OpenBankingError'`, also after minification. */
  override name = 'OpenBankingError';
  /** The idempotency key of the logical call, when the error comes from one: retrying with it is safe. */
  idempotencyKey: string | undefined;

  constructor(message: string, options?: { cause?: unknown; idempotencyKey?: string | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.idempotencyKey = options?.idempotencyKey;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** A JSON view with no secrets: the name, the message and the error's own public fields. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key === 'name' || key === 'message' || value === undefined) continue;
      out[key] = value;
    }
    return out;
  }
}

/**
 * A request body, an option or a per-call option failed validation on the client. Nothing was
 * sent. `issues` lists every bad field.
 * @group Errors
 */
export class ValidationError extends OpenBankingError {
  /** Always `'ValidationError'`, also after minification. */
  override name = 'ValidationError';
  /** Every problem found, with the dotted path of its field. */
  readonly issues: ValidationIssue[];

  constructor(message: string, issues: ValidationIssue[], options?: { idempotencyKey?: string | undefined }) {
    super(`${message}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`, options);
    this.issues = issues;
  }
}

/** What the pipeline knows about a non-2xx answer. @group Errors */
export interface ApiErrorInit {
  /** HTTP status. */
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  /** The response text. */
  rawBody: string;
  /** Response headers. */
  headers: Headers;
  /** The idempotency key of the call. */
  idempotencyKey?: string | undefined;
  /** Overrides the message built from the status and body. */
  message?: string;
  /** When the answer arrived (Unix ms), to read an HTTP-date `Retry-After` against. Default `Date.now()`. */
  now?: number | undefined;
  /** More body fields to redact: the call's secret fields. */
  secretFields?: readonly string[] | undefined;
}

/**
 * The API answered with a non-2xx status. Subclasses by status: {@link BadRequestError} (400),
 * {@link AuthenticationError} (401), {@link PermissionDeniedError} (403), {@link NotFoundError}
 * (404), {@link RateLimitError} (429), {@link InternalServerError} (5xx). `message` is the body's
 * `message` as the service wrote it, or `'<status> <reason>'` (e.g. `'502 Bad Gateway (no JSON body)'`) when the
 * body has none; `rawBody` is the response text as it arrived, re-serialised only when a secret
 * field had to be masked.
 * @group Errors
 */
export class ApiError extends OpenBankingError {
  /** Always `'ApiError'`, also after minification. */
  override name = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** The body's ISO 8583-style `status` code (e.g. `'01'`), when the body has one. */
  readonly code: string | undefined;
  /** The body's `error_code` (e.g. `'MISSING_FIELD'`), when it has one. */
  readonly errorCode: string | undefined;
  /** The body's `data` member, secrets redacted. */
  readonly data: unknown;
  /** Field errors, normalised from both error body shapes of the spec. */
  readonly errors: FieldError[];
  /** Response headers; secret ones (`set-cookie`, `authorization`, …) read `[REDACTED]`. */
  readonly headers: Headers;
  /** The response text, for non-JSON bodies too; secret fields are redacted. */
  readonly rawBody: string;

  constructor(init: ApiErrorInit) {
    const body = isRecord(init.body) ? init.body : undefined;
    const extra = init.secretFields;
    // The server's text reaches log lines through the error: masked like any body.
    const text = body && typeof body.message === 'string' ? redactText(body.message, extra) : undefined;
    super(init.message ?? (text || `${init.status} ${statusText(init.status, init.body === undefined)}`), {
      idempotencyKey: init.idempotencyKey,
    });
    this.status = init.status;
    this.code = body && typeof body.status === 'string' ? body.status : undefined;
    this.errorCode = body && typeof body.error_code === 'string' ? body.error_code : undefined;
    this.data = body ? redactValue(body.data, extra) : undefined;
    this.errors = normaliseFieldErrors(body, this.errorCode, text);
    this.headers = withoutSecretHeaders(init.headers);
    this.rawBody = redactText(init.rawBody, extra);
  }

  /** The JSON view of {@link OpenBankingError.toJSON}, with `headers` as a plain object, secret ones redacted. */
  override toJSON(): Record<string, unknown> {
    const out = super.toJSON();
    out.headers = redactHeaders(this.headers);
    return out;
  }

  /** Builds the subclass that matches the status. */
  static from(init: ApiErrorInit): ApiError {
    const s = init.status;
    if (s === 400) return new BadRequestError(init);
    if (s === 401) return new AuthenticationError(init);
    if (s === 403) return new PermissionDeniedError(init);
    if (s === 404) return new NotFoundError(init);
    if (s === 429) return new RateLimitError(init, parseRetryAfterMs(init.headers.get('retry-after'), init.now));
    if (s >= 500) return new InternalServerError(init);
    return new ApiError(init);
  }
}

/** HTTP 400: the service refused the request's content. @group Errors */
export class BadRequestError extends ApiError {
  /** Always `'BadRequestError'`, also after minification. */
  override name = 'BadRequestError';
}
/** HTTP 401: the token or the signature was refused. @group Errors */
export class AuthenticationError extends ApiError {
  /** Always `'AuthenticationError'`, also after minification. */
  override name = 'AuthenticationError';
}
/** HTTP 403: the token lacks the operation's scope or consent. @group Errors */
export class PermissionDeniedError extends ApiError {
  /** Always `'PermissionDeniedError'`, also after minification. */
  override name = 'PermissionDeniedError';
}
/** HTTP 404: no such resource or path. @group Errors */
export class NotFoundError extends ApiError {
  /** Always `'NotFoundError'`, also after minification. */
  override name = 'NotFoundError';
}
/** HTTP 5xx: the service failed. Retried automatically before it reaches you. @group Errors */
export class InternalServerError extends ApiError {
  /** Always `'InternalServerError'`, also after minification. */
  override name = 'InternalServerError';
}

/**
 * HTTP 429, or the client-side rate limiter refusing to wait longer. `retryAfter` is the wait in
 * milliseconds the service (or the limiter) asked for, when known.
 * @group Errors
 */
export class RateLimitError extends ApiError {
  /** Always `'RateLimitError'`, also after minification. */
  override name = 'RateLimitError';
  /** Milliseconds to wait before trying again, when known. */
  retryAfter: number | undefined;

  constructor(init: ApiErrorInit, retryAfter?: number) {
    super(init);
    this.retryAfter = retryAfter;
  }
}

/**
 * A 2xx answer whose body is not JSON, lacks the envelope, or fails the operation's schema.
 * The request may have taken effect: retry with the same `idempotencyKey`.
 * @group Errors
 */
export class ResponseValidationError extends OpenBankingError {
  /** Always `'ResponseValidationError'`, also after minification. */
  override name = 'ResponseValidationError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** What is wrong with the body. */
  readonly issues: ValidationIssue[];
  /** The response text, secret fields redacted. */
  readonly rawBody: string;

  constructor(init: { status: number; issues: ValidationIssue[]; rawBody: string; idempotencyKey?: string | undefined; secretFields?: readonly string[] | undefined }) {
    super(
      `Unexpected response body (HTTP ${init.status}): ${init.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`,
      { idempotencyKey: init.idempotencyKey },
    );
    this.status = init.status;
    this.issues = init.issues;
    this.rawBody = redactText(init.rawBody, init.secretFields);
  }
}

/** OAuth error codes of the spec, plus `state_mismatch` for a callback whose state differs. @group Errors */
export type OAuthErrorCode =
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_redirect_uri'
  | 'invalid_scope'
  | 'access_denied'
  | 'state_mismatch'
  | (string & {});

/**
 * An OAuth 2.0 error: from a token or registration endpoint, from an authorization callback, or
 * a state mismatch detected by the SDK.
 * @group Errors
 */
export class OAuthError extends OpenBankingError {
  /** Always `'OAuthError'`, also after minification. */
  override name = 'OAuthError';
  /** RFC 6749 error code, e.g. `'invalid_grant'`, or `'state_mismatch'`. */
  readonly error: OAuthErrorCode;
  /** The server's `error_description`, when it sent one. */
  readonly errorDescription: string | undefined;
  /** HTTP status of the answer, when the error came from an endpoint. */
  readonly status: number | undefined;

  constructor(error: OAuthErrorCode, errorDescription?: string, options?: { status?: number; cause?: unknown }) {
    super(errorDescription ? `${error}: ${errorDescription}` : error, { cause: options?.cause });
    this.error = error;
    this.errorDescription = errorDescription;
    this.status = options?.status;
  }
}

/** The request never got a complete answer: refused, reset, cut off. Retried automatically. @group Errors */
export class ConnectionError extends OpenBankingError {
  /** Always `'ConnectionError'`, also after minification. */
  override name = 'ConnectionError';
}

/** An attempt took longer than `timeout` ms. Retried automatically with the same key. @group Errors */
export class TimeoutError extends ConnectionError {
  /** Always `'TimeoutError'`, also after minification. */
  override name = 'TimeoutError';
}

/** The caller's `signal` fired. Never retried. @group Errors */
export class AbortError extends OpenBankingError {
  /** Always `'AbortError'`, also after minification. */
  override name = 'AbortError';
}

/** A secret field could not be encrypted or decrypted. Names the field, never its value. @group Errors */
export class CipherError extends OpenBankingError {
  /** Always `'CipherError'`, also after minification. */
  override name = 'CipherError';
  /** The field whose value failed, e.g. `'card_cvv2'`. */
  readonly field: string | undefined;

  constructor(message: string, options?: { field?: string; cause?: unknown; idempotencyKey?: string | undefined }) {
    super(message, options);
    this.field = options?.field;
  }
}

/**
 * A response body grew past `maxResponseBytes` (default 10 MiB): the SDK stopped reading it and
 * kept nothing past the limit. Not retried: the next answer would most likely be as large.
 * @group Errors
 */
export class ResponseTooLargeError extends OpenBankingError {
  /** Always `'ResponseTooLargeError'`, also after minification. */
  override name = 'ResponseTooLargeError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** The limit in bytes (`maxResponseBytes`). */
  readonly limit: number;

  constructor(status: number, limit: number, options?: { idempotencyKey?: string | undefined }) {
    super(`The answer (HTTP ${status}) is larger than maxResponseBytes (${limit} bytes); it was not read further`, options);
    this.status = status;
    this.limit = limit;
  }
}

/**
 * A copy of `error` (same class, message, stack, cause and fields) carrying `idempotencyKey`.
 * A failure many calls share, such as one token request they all waited on, reaches each of them
 * as its own object, so each carries its own call's key.
 */
export function withIdempotencyKey<E extends OpenBankingError>(error: E, idempotencyKey: string): E {
  const copy = Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error)) as E;
  copy.idempotencyKey = idempotencyKey;
  return copy;
}

function isBranded(value: unknown): value is OpenBankingError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

function guard<T extends OpenBankingError>(names: readonly string[]): (value: unknown) => value is T {
  return (value: unknown): value is T => isBranded(value) && names.includes(value.name);
}

const API_ERROR_NAMES = [
  'ApiError',
  'BadRequestError',
  'AuthenticationError',
  'PermissionDeniedError',
  'NotFoundError',
  'RateLimitError',
  'InternalServerError',
] as const;

/** True for any error of this SDK, even one thrown by another copy of the package. @group Errors */
export const isOpenBankingError = (value: unknown): value is OpenBankingError => isBranded(value);
/** True for {@link ApiError} and its subclasses. @group Errors */
export const isApiError = /* @__PURE__ */ guard<ApiError>(API_ERROR_NAMES);
/** True for {@link RateLimitError}. @group Errors */
export const isRateLimitError = /* @__PURE__ */ guard<RateLimitError>(['RateLimitError']);
/** True for {@link ValidationError}. @group Errors */
export const isValidationError = /* @__PURE__ */ guard<ValidationError>(['ValidationError']);
/** True for {@link ResponseValidationError}. @group Errors */
export const isResponseValidationError = /* @__PURE__ */ guard<ResponseValidationError>(['ResponseValidationError']);
/** True for {@link OAuthError} and its subclass `ConsentEndedError`. @group Errors */
export const isOAuthError = /* @__PURE__ */ guard<OAuthError>(['OAuthError', 'ConsentEndedError']);
/** True for {@link ConnectionError} and {@link TimeoutError}. @group Errors */
export const isConnectionError = /* @__PURE__ */ guard<ConnectionError>(['ConnectionError', 'TimeoutError']);
/** True for {@link TimeoutError}. @group Errors */
export const isTimeoutError = /* @__PURE__ */ guard<TimeoutError>(['TimeoutError']);
/** True for {@link AbortError}. @group Errors */
export const isAbortError = /* @__PURE__ */ guard<AbortError>(['AbortError']);
/** True for {@link ResponseTooLargeError}. @group Errors */
export const isResponseTooLargeError = /* @__PURE__ */ guard<ResponseTooLargeError>(['ResponseTooLargeError']);
/** True for {@link CipherError}. @group Errors */
export const isCipherError = /* @__PURE__ */ guard<CipherError>(['CipherError']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normaliseFieldErrors(body: Record<string, unknown> | undefined, errorCode: string | undefined, message: string | undefined): FieldError[] {
  if (!body) return [];
  if (Array.isArray(body.errors)) {
    return body.errors.filter(isRecord).map((e) => {
      const item: FieldError = {
        code: typeof e.code === 'string' ? e.code : 'UNKNOWN',
        message: typeof e.message === 'string' ? redactText(e.message) : '',
      };
      if (typeof e.field === 'string') item.field = e.field;
      return item;
    });
  }
  if (errorCode) {
    const item: FieldError = { code: errorCode, message: message ?? '' };
    const data = isRecord(body.data) ? body.data : undefined;
    if (data && typeof data.field === 'string') item.field = data.field;
    return [item];
  }
  return [];
}

function statusText(status: number, emptyBody: boolean): string {
  const known: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    408: 'Request Timeout', 409: 'Conflict',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return `${known[status] ?? 'HTTP error'}${emptyBody ? ' (no JSON body)' : ''}`;
}
