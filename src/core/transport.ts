import type * as z from 'zod/mini';
import { AbortError, ApiError, ValidationError, type ValidationIssue } from '../errors/index.js';
import { isHTTPError } from 'ky';
import { v4 as uuid } from 'uuid';
import { type APIPromise, makeAPIPromise, type WithResponse } from './api-promise.js';
import { checkCallOptions, type RequestOptions } from './call-options.js';
import { type CallObservation, observeCall } from './call-observation.js';
import { describeType } from './checks.js';
import type { PipelineConfig } from './config.js';
import { decodeSuccess, issuesOf } from './decode.js';
import type { OperationDeclaration } from './operation.js';
import { FieldCrypto } from './field-crypto.js';
import { type BearerSource, type Exchange, type HttpMethod, noAnswer, renewalBackoff, send } from './http.js';
import { parseJson, redirectMessage } from './response.js';
import { jsonIssues, nonPlainObjects } from './json-body.js';
import { rememberSignature, sentSecrets } from './redact.js';
import { computeSignature } from './signature.js';

export type { RequestOptions } from './call-options.js';
export type { Envelope } from './api-promise.js';
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

    // 1. Body and query, validated before anything is sent.
    if (schemas?.body && op.body !== undefined) {
      const notPlain = nonPlainObjects(op.body);
      if (notPlain.length > 0) throw new ValidationError('Invalid request body', notPlain);
    }
    const body = await validate(schemas?.body, op.body, 'Invalid request body', '');
    if (body !== undefined) {
      const problems = jsonIssues(body);
      if (problems.length > 0) throw new ValidationError('Invalid request body', problems);
    }
    const query = encodeQuery((await validate(schemas?.query, op.query, 'Invalid query', 'query')) as Record<string, unknown> | undefined);
    const idempotencyKey = call.idempotencyKey ?? observe?.start.idempotencyKey ?? uuid();

    // 2. Secret fields encrypted once (remembered under the key), so every attempt carries the same bytes.
    const sent = await this.#crypto.encryptRequest(body, secretRequestFields, idempotencyKey);
    const payload = sent === undefined ? undefined : JSON.stringify(sent);

    // 3. The signature: once per logical call, masked wherever a text quotes it.
    const signed = computeSignature(o.clientSecret, idempotencyKey, o.signatureEncoding);
    const signature = typeof signed === 'string' ? signed : await signed; // Node hashes synchronously: no microtask hop
    rememberSignature(signature);
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
      throw failed(failure, ex);
    }
    const { response, text } = answer;

    // 5. Decode, validate, decrypt.
    // A typed operation's 2xx body is the `{status, message, data}` envelope; `ob.request` reads any JSON.
    const decoded = await decodeSuccess(response, text, schemas !== undefined, schemas, idempotencyKey, secrets);
    await this.#crypto.decryptResponse(decoded.data, secretResponseFields, idempotencyKey);
    return { data: decoded.data, envelope: decoded.envelope, response, idempotencyKey };
  }
}

/** A redirect from the API: refused with the `ApiError` of its status, nothing sent to its `Location`. */
function apiRedirect(response: Response, ex: Exchange): ApiError {
  return ApiError.from({ status: response.status, body: undefined, rawBody: '', headers: response.headers, idempotencyKey: ex.idempotencyKey, message: redirectMessage(response, 'The API') });
}

/** What ky threw for an API call: a non-2xx answer as the `ApiError` of its status, anything else as {@link noAnswer} says. */
function failed(failure: unknown, ex: Exchange): unknown {
  if (!isHTTPError(failure) || ex.signal?.aborted) return noAnswer(failure, ex);
  const { response } = failure;
  const text = ex.text ?? '';
  const error = ApiError.from({ status: response.status, body: parseJson(text), rawBody: text, headers: response.headers, idempotencyKey: ex.idempotencyKey, secretFields: ex.secrets?.fields, secretValues: ex.secrets?.values });
  if (ex.freshRefused && ex.bearer) {
    const wait = Math.round(renewalBackoff(ex.bearer, ex.now).wait / 1000);
    error.message = `${error.message} (a freshly obtained token was refused too: check signatureEncoding and the client credentials; the next token renewal waits ${wait} s)`;
  }
  return error;
}

/** `value` through `schema` (its parsed output), or a {@link ValidationError} listing every problem. */
async function validate(schema: z.ZodMiniType | undefined, value: unknown, what: string, prefix: string): Promise<unknown> {
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationError(what, await issuesOf(parsed.error, value, prefix));
  return parsed.data;
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
