import type * as z from 'zod/mini';
import type * as S from '../schemas/transfers.js';
import { maskText } from '../core/redact.js';



// The root of the SDK's errors, and the brand that recognises them across two copies of the package.

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

/** A guard recognising the SDK's errors by their class names, across two copies of the package. */
export { guard };

/** True for any error of this SDK, even one thrown by another copy of the package. @group Errors */
export const isOpenBankingError = (value: unknown): value is OpenBankingError => isBranded(value);

// Errors raised on the client's side: bad input, bad answers, the network, the caller's abort, ciphers,
// and a wait for a transfer that ran out.

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

  constructor(init: {
    status: number;
    issues: ValidationIssue[];
    rawBody: string;
    idempotencyKey?: string | undefined;
    secretFields?: readonly string[] | undefined;
    secretValues?: readonly string[] | undefined;
  }) {
    super(
      `Unexpected response body (HTTP ${init.status}): ${init.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`,
      { idempotencyKey: init.idempotencyKey },
    );
    this.status = init.status;
    this.issues = init.issues;
    this.rawBody = maskText(init.rawBody, { fields: init.secretFields, values: init.secretValues });
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

/** System codes of a connection that failed before the request was written: refused, or the host name did not resolve. */
const NOT_WRITTEN: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

/**
 * True for a {@link ConnectionError} (never a timeout) whose request provably never left: the
 * connection was refused, or the name did not resolve. Internal: the refresh claim and the MCP
 * ledger decide by it whether what was sent may have acted.
 * @internal
 */
export function neverWritten(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return error instanceof ConnectionError && !(error instanceof TimeoutError) && typeof code === 'string' && NOT_WRITTEN.has(code);
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

/** True for {@link ValidationError}. @group Errors */
export const isValidationError = /* @__PURE__ */ guard<ValidationError>(['ValidationError']);
/** True for {@link ResponseValidationError}. @group Errors */
export const isResponseValidationError = /* @__PURE__ */ guard<ResponseValidationError>(['ResponseValidationError']);
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

/**
 * What `transfers.retrieve` reads (`status` is open: `'SUCCESSFUL'`, `'PENDING'`, …).
 * The same shape as `TransferStatus` from the transfers namespace.
 */
type TransferStatusRead = z.output<ReturnType<typeof S.transferStatusSchema>>;

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

/** True for {@link TransferPendingError}, even one thrown by another copy of the package. @group Errors */
export const isTransferPendingError = (value: unknown): value is TransferPendingError => isOpenBankingError(value) && value.name === 'TransferPendingError';

// Errors of the identity host: the OAuth error codes of the spec, and a customer's consent that ended.

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

/** True for {@link OAuthError} and its subclass `ConsentEndedError`. @group Errors */
export const isOAuthError = /* @__PURE__ */ guard<OAuthError>(['OAuthError', 'ConsentEndedError']);

/**
 * Why a customer's consent ended: `'invalid_grant'` (the identity host refused the session's
 * refresh token: revoked, expired, or a rotated refresh token replayed) or `'refresh_unconfirmed'`
 * (the refresh token was sent, or claimed by a client of the fleet that stopped, and how that
 * ended is not known: sending it again could end the consent at the provider).
 * @group Errors
 */
export type ConsentEndedReason = 'invalid_grant' | 'refresh_unconfirmed';

/**
 * The customer's consent has ended: a refresh of the session's tokens was answered `invalid_grant`
 * (the consent was revoked or expired, or a rotated refresh token was replayed), here or, with a
 * fleet, in another process holding a session with the same `id`; or the refresh of its refresh
 * token was never confirmed (`reason: 'refresh_unconfirmed'`). Every call of the session
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
  /** `'invalid_grant'`: the identity host refused the refresh token; `'refresh_unconfirmed'`: its refresh was never confirmed (see {@link ConsentEndedReason}). */
  readonly reason: ConsentEndedReason;

  constructor(errorDescription: string | undefined, scopes: readonly string[] | undefined, options?: { status?: number; cause?: unknown; reason?: ConsentEndedReason }) {
    super('invalid_grant', errorDescription, options);
    this.scopes = scopes === undefined ? undefined : [...scopes];
    this.reason = options?.reason ?? 'invalid_grant';
    this.message = `${this.message} (the customer's consent has ended: ask the customer to consent again${scopes && scopes.length > 0 ? ` for ${scopes.join(' ')}` : ''}, then call session.setTokens with the new tokens)`;
  }
}

/** True for {@link ConsentEndedError}, even one thrown by another copy of the package. @group Errors */
export const isConsentEndedError = (value: unknown): value is ConsentEndedError => isOpenBankingError(value) && value.name === 'ConsentEndedError';
