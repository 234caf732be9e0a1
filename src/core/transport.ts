import type * as z from 'zod/mini';
import { AbortError, ApiError, ValidationError, type ValidationIssue, ResponseValidationError } from '../errors/index.js';
import { isHTTPError } from 'ky';
import { v4 as uuid } from 'uuid';
import { bodyIssues, checkCallOptions, parse, parseOrThrow, type RequestOptions, describeType } from './validation.js';
import { type CallObservation, observeCall } from './events.js';
import type { PipelineConfig, Endpoints, Scope } from './config.js';
import { FieldCrypto, computeSignature } from './field-crypto.js';
import { type BearerSource, type Exchange, type HttpMethod, noAnswer, renewalBackoff, send } from './http.js';
import { parseJson, redirectMessage } from './http.js';
import { sentSecrets, type CallSecrets } from './redact.js';

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

/**
 * Everything about one call's answer: the validated `data`, the envelope as sent, the fetch
 * `Response` and the idempotency key that was used.
 * @group Client
 */
export interface WithResponse<Data> {
  /** The validated `data`, secret fields decrypted: what the promise itself resolves to. */
  data: Data;
  /** The parsed `{status, message, data}` as the server sent it (undefined for bodies without one). */
  envelope: Envelope<Data> | undefined;
  /** The fetch `Response` of the final attempt (its body already read). */
  response: Response;
  /** The idempotency key every attempt carried. */
  idempotencyKey: string;
}

/**
 * The promise every API method returns: it resolves to `data`, and `.withResponse()` gives the
 * envelope, the `Response` and the idempotency key as well.
 * @group Client
 */
export interface APIPromise<Data> extends Promise<Data> {
  /** Resolves to `{ data, envelope, response, idempotencyKey }`. */
  withResponse(): Promise<WithResponse<Data>>;
}

/** Wraps a full result as an {@link APIPromise}. */
export function makeAPIPromise<Data>(full: Promise<WithResponse<Data>>): APIPromise<Data> {
  const promise = full.then((result) => result.data) as APIPromise<Data>;
  promise.withResponse = () => {
    // The caller reads the full result; the data-only promise must not report an unhandled rejection.
    promise.catch(() => undefined);
    return full;
  };
  return promise;
}

export type { RequestOptions } from './validation.js';
export type { BearerSource, HttpMethod } from './http.js';

/** What the pipeline reads of an operation: a typed operation's declaration as it is, or `ob.request`'s. */
export type Declared = Pick<OperationDeclaration, 'name' | 'method'> & Partial<Pick<OperationDeclaration, 'schemas' | 'secretRequestFields' | 'secretResponseFields'>>;

/** One call of an operation: its declaration, the path filled in, what it sends, its token. */
export interface Operation {
  declared: Declared;
  /** Path under the base URL, starting with `/`, already encoded. */
  path: string;
  /** The path template events and traces show (`/accounts/{account_number}`). */
  urlTemplate: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  bearer: BearerSource;
}

/**
 * The one request pipeline: validate → encrypt → key and signature (once) → headers → the attempt
 * loop (token, send, retries with the same key and bytes) → decode → decrypt.
 */
export class Transport {
  readonly #options: PipelineConfig;
  readonly #crypto: FieldCrypto;

  constructor(options: PipelineConfig) {
    // Private fields, never own properties: the config holds the client secret (the signature
    // and cipher key), and printing a transport must not show it.
    this.#options = options;
    this.#crypto = new FieldCrypto(options);
  }

  /** Runs an operation; the promise resolves to `data` and has `.withResponse()`. */
  request<Data>(op: Operation, callOptions?: RequestOptions, precheck?: () => void): APIPromise<Data> {
    return makeAPIPromise(this.send(op, callOptions, precheck) as Promise<WithResponse<Data>>);
  }

  /**
   * Runs an operation; resolves to the whole result. `precheck` runs first and may throw a
   * `ValidationError`. When somebody watches (`ob.on`, an instrumentation, the diagnostics
   * channel) the call emits its events; otherwise nothing is built for them.
   */
  send(op: Operation, callOptions: RequestOptions | undefined, precheck?: () => void): Promise<WithResponse<unknown>> {
    const o = this.#options;
    if (!o.events.active) return this.#send(op, callOptions, precheck, undefined);
    return observeCall(o, { name: op.declared.name, method: op.declared.method, urlTemplate: op.urlTemplate }, callOptions, (observe) => this.#send(op, callOptions, precheck, observe));
  }

  async #send(op: Operation, callOptions: RequestOptions | undefined, precheck: (() => void) | undefined, observe: CallObservation | undefined): Promise<WithResponse<unknown>> {
    const o = this.#options;
    const { schemas, secretRequestFields, secretResponseFields, method } = op.declared;
    precheck?.();
    const optionIssues = checkCallOptions(callOptions, o.headerNames.idempotencyKey);
    if (optionIssues.length > 0) throw new ValidationError('Invalid request options', optionIssues);
    const call = callOptions ?? {};

    // 1. Body and query, validated before anything is sent: objects that are not plain first, then the
    // schema, then what JSON cannot carry.
    const walked = op.body === undefined ? [] : bodyIssues(op.body, schemas?.body !== undefined);
    const notPlain = walked.filter((issue) => issue.code === 'invalid_type');
    if (notPlain.length > 0) throw new ValidationError('Invalid request body', notPlain);
    const body = schemas?.body ? parseOrThrow(schemas.body, op.body, 'Invalid request body') : op.body;
    if (walked.length > 0) throw new ValidationError('Invalid request body', walked);
    const query = encodeQuery((schemas?.query ? parseOrThrow(schemas.query, op.query, 'Invalid query', 'query') : op.query) as Record<string, unknown> | undefined);
    const idempotencyKey = call.idempotencyKey ?? observe?.start.idempotencyKey ?? uuid();

    // 2. Secret fields encrypted once (remembered under the key), so every attempt carries the same bytes.
    const sent = await this.#crypto.encryptRequest(body, secretRequestFields, idempotencyKey);
    const payload = sent === undefined ? undefined : JSON.stringify(sent);

    // 3. The signature: once per logical call, masked wherever a text quotes it.
    const signed = computeSignature(o.clientSecret, idempotencyKey, o.signatureEncoding);
    const signature = typeof signed === 'string' ? signed : await signed; // Node hashes synchronously: no microtask hop
    o.secrets.remember('signature', signature);
    const secrets = sentSecrets(secretRequestFields, [body, sent], signature);

    // 4. Send through ky: token, rate budget, retries with the same key and bytes, 401 renewal.
    const signal = call.signal;
    if (signal?.aborted) throw new AbortError('The request was aborted before it was sent', { idempotencyKey });
    const ex: Exchange = {
      method,
      path: op.path,
      idempotencyKey,
      signal,
      timeout: call.timeout ?? o.timeout,
      maxRetries: call.maxRetries ?? o.maxRetries,
      maxResponseBytes: o.maxResponseBytes,
      maxRetryDelay: o.maxRetryDelay,
      retryDelay: o.retryDelay,
      fetch: o.fetch,
      now: o.now,
      logger: o.logger,
      limiter: o.limiter,
      bearer: op.bearer,
      payload,
      secrets,
      observe,
      refuseRedirect: apiRedirect,
      what: 'The request',
      host: 'the API',
    };
    let answer: { response: Response; text: string };
    try {
      answer = await send(o.baseUrl + op.path + query, ex, { headers: buildHeaders(o, call, idempotencyKey, signature), body: payload });
    } catch (failure) {
      throw failed(failure, ex, withBearer(o, ex), o.baseUrl);
    }
    const { response, text } = answer;

    // 5. Decode, validate, decrypt.
    // A typed operation's 2xx body is the `{status, message, data}` envelope; `ob.request` reads any JSON.
    const decoded = decodeSuccess(response, text, schemas !== undefined, schemas, idempotencyKey, withBearer(o, ex));
    await this.#crypto.decryptResponse(decoded.data, secretResponseFields, idempotencyKey);
    return { data: decoded.data, envelope: decoded.envelope, response, idempotencyKey };
  }
}

/** A redirect from the API: refused with the `ApiError` of its status, nothing sent to its `Location`. */
function apiRedirect(response: Response, ex: Exchange): ApiError {
  return ApiError.from({ status: response.status, body: undefined, rawBody: '', headers: response.headers, idempotencyKey: ex.idempotencyKey, message: redirectMessage(response, 'The API') });
}

/**
 * What the call masks in its answer: its own secrets and the bearer token it sent, which is also
 * made the client's most recent token, whatever else the process remembers.
 */
function withBearer(o: PipelineConfig, ex: Exchange): CallSecrets | undefined {
  if (ex.token === undefined) return ex.secrets;
  o.secrets.remember('token', ex.token);
  return { ...ex.secrets, values: [...(ex.secrets?.values ?? []), ex.token] };
}

/** What ky threw for an API call: a non-2xx answer as the `ApiError` of its status, anything else as {@link noAnswer} says. */
function failed(failure: unknown, ex: Exchange, secrets: CallSecrets | undefined, baseUrl: string): unknown {
  if (!isHTTPError(failure) || ex.signal?.aborted) return noAnswer(failure, ex);
  const { response } = failure;
  const text = ex.text ?? '';
  const error = ApiError.from({ status: response.status, body: parseJson(text), rawBody: text, headers: response.headers, idempotencyKey: ex.idempotencyKey, secretFields: secrets?.fields, secretValues: secrets?.values });
  if (ex.freshRefused && ex.bearer) {
    const wait = Math.round(renewalBackoff(ex.bearer, ex.now).wait / 1000);
    error.message = `${error.message} (a freshly obtained token was refused too: check signatureEncoding and the client credentials; the next token renewal waits ${wait} s)`;
  }
  if (error.status === 404) error.message += prefixHint(baseUrl);
  return error;
}

/** For a 404: a hint when the base URL's path lacks the `/openapi/v1` prefix that every API path sits under. */
function prefixHint(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (/\/openapi\/v1(\/|$)/.test(url.pathname)) return '';
  return ` (the baseUrl ${url.origin}${url.pathname.replace(/\/+$/, '')} has no /openapi/v1 in its path: the API's paths sit under that prefix, so it may be missing)`;
}

/** The headers every attempt carries: the caller's extra ones, then the SDK's, which win. */
function buildHeaders(o: PipelineConfig, call: RequestOptions, idempotencyKey: string, signature: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (call.headers) {
    const entries = call.headers instanceof Headers ? call.headers.entries() : Object.entries(call.headers);
    for (const [name, value] of entries) headers[name.toLowerCase()] = value;
  }
  headers.accept = 'application/json';
  headers['content-type'] = 'application/json';
  headers[o.headerNames.idempotencyKey] = idempotencyKey;
  headers.signature = signature;
  const connectionId = call.connectionId ?? o.connectionId;
  if (connectionId !== undefined) headers[o.headerNames.connectionId] = connectionId;
  if (o.participantId !== undefined) headers['x-participant-id'] = o.participantId;
  return headers;
}

/** `?a=1&b=2` from a query object: `undefined` and `null` left out, arrays repeat the name, Dates as ISO strings. */
function encodeQuery(query: Record<string, unknown> | undefined): string {
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

/** A 2xx answer, decoded: `data` validated against its schema (unknown fields kept), the envelope as sent. */
export interface Decoded {
  data: unknown;
  envelope: Envelope<unknown> | undefined;
}

/**
 * Reads a 2xx body: JSON, the `{status, message, data}` envelope when `envelope` is set (success is
 * decided by the HTTP status alone, never by `status` or `message`), then `data` through `reshape`
 * and the `response` schema.
 * Anything else rejects with {@link ResponseValidationError} carrying the raw body.
 */
export function decodeSuccess(
  response: Response,
  text: string,
  envelope: boolean,
  schemas: Pick<OperationSchemas, 'response' | 'reshape'> | undefined,
  idempotencyKey: string,
  secrets?: CallSecrets,
): Decoded {
  const schema = schemas?.response;
  const invalid = (issues: ValidationIssue[]) => new ResponseValidationError({ status: response.status, issues, rawBody: text, idempotencyKey, secretFields: secrets?.fields, secretValues: secrets?.values });
  if (text.trim() === '') {
    if (envelope || schema) throw invalid([{ path: '', message: 'the body is empty', code: 'empty_body' }]);
    return { data: undefined, envelope: undefined };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid([{ path: '', message: `the body is not JSON (content-type: ${response.headers.get('content-type') ?? 'none'})`, code: 'invalid_json' }]);
  }
  const isEnvelope = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'data' in parsed;
  if (envelope && !isEnvelope) throw invalid([{ path: 'data', message: 'the {status, message, data} envelope is missing', code: 'invalid_envelope' }]);
  const sent = isEnvelope ? (parsed as Envelope<unknown>) : undefined;
  let data: unknown = sent ? sent.data : parsed;
  if (schema) {
    if (schemas.reshape) data = schemas.reshape(data);
    const result = parse(schema, data, 'data');
    if (result.issues.length > 0) throw invalid(result.issues);
    data = result.data;
  }
  return { data, envelope: sent };
}

/**
 * Which token an operation is sent with: `client` (client credentials), `customer` (the token of
 * a session from `ob.forCustomer`; on `ob` the call rejects unsent), or `both` (client credentials
 * on `ob`, the customer's token on a session).
 * @group Client
 */
export type TokenKind = 'client' | 'customer' | 'both';

/**
 * One provider operation, declared beside its method under `resources/`: everything the core needs
 * to send it, and the docs to describe it.
 */
export interface OperationDeclaration<Name extends string = string> {
  /** The method's name under the client, e.g. `'accounts.balances.retrieve'`: the key of `OPERATION_SCOPES`. */
  readonly name: Name;
  readonly method: HttpMethod;
  /** Path template under the base URL, as the operations table (`docs/operations.md`) writes it; `{name}` segments are the positional path parameters, in order. */
  readonly path: string;
  /** The `endpoints` option that overrides the path (unofficial paths only). */
  readonly endpoint?: keyof Endpoints;
  /** The token it is sent with. */
  readonly token: TokenKind;
  /** The scopes it asks for by default (the `operationScopes` option overrides them). */
  readonly scopes: readonly Scope[];
  /** What the argument after the path parameters is: a JSON body, a query (required or optional), or nothing. */
  readonly input: 'body' | 'query' | 'optional-query' | 'none';
  /** Top-level body fields the cipher encrypts. */
  readonly secretRequestFields?: readonly string[];
  /** Fields of `data` the cipher decrypts (dotted, `*` for array items). */
  readonly secretResponseFields?: readonly string[];
  /** The array member of `data` a paged operation iterates over. */
  readonly pagedItems?: string;
  /** Where the operation is documented, e.g. `'§7.3'` of the provider reference. */
  readonly source: string;
  /** How much of it the provider documents. */
  readonly completeness: 'full' | 'partial';
  /** The path or body is not from the provider's own pages. */
  readonly unofficial?: boolean;
  /** The path parameters' names, read from `path`. */
  readonly params: readonly string[];
  /** Its zod schemas, from the namespace's module under `schemas/`: a missing one does not compile. */
  readonly schemas: OperationSchemas;
}

/** An operation's zod schemas: the very objects the client validates with. */
export interface OperationSchemas {
  /** The path parameters by name (the template's `{name}`s), checked before anything is sent. */
  params?: z.ZodMiniType;
  /** The JSON body, checked before anything is sent. */
  body?: z.ZodMiniType;
  /** The query, checked before anything is sent. */
  query?: z.ZodMiniType;
  /** `data` of a 2xx answer (unknown fields kept). */
  response?: z.ZodMiniType;
  /**
   * Reads a shape of `data` the provider sends besides the documented one (a bare array, a lone
   * object, `loans` for `savings`: see `docs/operations.md`) as the documented one, before `response`
   * checks it. A plain function, not a zod transform, so that `response` describes the data.
   */
  reshape?: (data: unknown) => unknown;
}

/** A namespace's schemas by operation name. */
export type SchemaTable = Readonly<Record<string, OperationSchemas>>;

/**
 * Declares an operation: its path parameters are read from the template; its `schemas` are built
 * by the given function on their first read (a getter), so that declaring builds no zod schema.
 */
export function defineOperation<const Name extends string>(spec: { readonly name: Name; readonly schemas: () => OperationSchemas } & Omit<OperationDeclaration, 'params' | 'name' | 'schemas'>): OperationDeclaration<Name> {
  const { schemas: build, ...rest } = spec;
  const params = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  let schemas: OperationSchemas | undefined;
  const declared = { ...rest, params: Object.freeze(params) };
  return Object.freeze(Object.defineProperty(declared, 'schemas', { get: () => (schemas ??= build()), enumerable: true }) as OperationDeclaration<Name>);
}
