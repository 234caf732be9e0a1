import { type CallSecrets, redactHeaders, maskText, redactValue, withoutSecretHeaders } from './redact.js';
import { guard, OpenBankingError } from './base.js';

// Errors of the API gateway's answers: one class per status family, and the guards beside them.

/** A field error as the service reports it, normalised from either of its error body shapes. @group Errors */
export interface FieldError {
  /** The field the error is about, when the service names one. */
  field?: string;
  /** Service error code, e.g. `'MISSING_FIELD'` or `'INVALID_AMOUNT'`. */
  code: string;
  /** Human-readable text from the service. */
  message: string;
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
  /** The secret values the call sent (plaintext and ciphertext): masked wherever the answer quotes them. */
  secretValues?: readonly string[] | undefined;
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
    const extra: CallSecrets = { fields: init.secretFields, values: init.secretValues };
    // The server's text reaches log lines through the error: masked like any body.
    const text = body && typeof body.message === 'string' ? maskText(body.message, extra) : undefined;
    super(init.message ?? (text || `${init.status} ${statusText(init.status, init.body === undefined)}`), {
      idempotencyKey: init.idempotencyKey,
    });
    this.status = init.status;
    this.code = body && typeof body.status === 'string' ? body.status : undefined;
    this.errorCode = body && typeof body.error_code === 'string' ? body.error_code : undefined;
    this.data = body ? redactValue(body.data, extra) : undefined;
    this.errors = normaliseFieldErrors(body, this.errorCode, text, extra);
    this.headers = withoutSecretHeaders(init.headers);
    this.rawBody = maskText(init.rawBody, extra);
  }

  /** The JSON view of {@link OpenBankingError.toJSON}, with `headers` as a plain object, secret ones redacted. */
  override toJSON(): Record<string, unknown> {
    const out = super.toJSON();
    out.headers = redactHeaders(this.headers);
    return out;
  }

  /** Builds the subclass that matches the status. */
  static from(init: ApiErrorInit): ApiError {
    return errorForStatus(init);
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
/**
 * HTTP 404: no such resource or path. When the client's `baseUrl` has no `/openapi/v1` in its
 * path, the message ends with a hint that the prefix may be missing.
 * @group Errors
 */
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
 * What {@link ApiError.from} builds: the subclass for the status. It lives outside the class body
 * because bundlers rename a class that names itself inside its body (`class _ApiError`), and
 * `ApiError.name` must stay `'ApiError'`.
 */
function errorForStatus(init: ApiErrorInit): ApiError {
  const s = init.status;
  if (s === 400) return new BadRequestError(init);
  if (s === 401) return new AuthenticationError(init);
  if (s === 403) return new PermissionDeniedError(init);
  if (s === 404) return new NotFoundError(init);
  if (s === 429) return new RateLimitError(init, parseRetryAfterMs(init.headers.get('retry-after'), init.now));
  if (s >= 500) return new InternalServerError(init);
  return new ApiError(init);
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


/** True for {@link ApiError} and its subclasses. @group Errors */
export const isApiError = /* @__PURE__ */ guard<ApiError>(API_ERROR_NAMES);
/** True for {@link RateLimitError}. @group Errors */
export const isRateLimitError = /* @__PURE__ */ guard<RateLimitError>(['RateLimitError']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normaliseFieldErrors(body: Record<string, unknown> | undefined, errorCode: string | undefined, message: string | undefined, secrets: CallSecrets): FieldError[] {
  if (!body) return [];
  if (Array.isArray(body.errors)) {
    return body.errors.filter(isRecord).map((e) => {
      const item: FieldError = {
        code: typeof e.code === 'string' ? e.code : 'UNKNOWN',
        message: typeof e.message === 'string' ? maskText(e.message, secrets) : '',
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
    408: 'Request Timeout',
    409: 'Conflict',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return `${known[status] ?? 'HTTP error'}${emptyBody ? ' (no JSON body)' : ''}`;
}

/** Every HTTP-date form starts with a day name (RFC 9110 §5.6.7); `Date.parse` alone reads `-3` as a day of 2001. */
const HTTP_DATE_START = /^(mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s/i;

/** `Retry-After` (delay-seconds, or an HTTP date against the system clock, as ky reads it) in milliseconds, or undefined when absent or neither. */
export function parseRetryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!HTTP_DATE_START.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
