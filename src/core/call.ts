import { isHTTPError } from 'ky';
import { v4 as uuid } from 'uuid';
import { AbortError, ResponseValidationError, ValidationError, type ValidationIssue } from '../errors/base.js';
import { ApiError } from '../errors/api.js';
import { type CallSecrets, sentSecrets } from '../errors/redact.js';
import { computeSignature } from '../crypto/bytes.js';
import type { Endpoints, PipelineConfig } from './config.js';
import { type CallObservation, observeCall } from './events.js';
import { FieldCrypto } from './field-crypto.js';
import { type BearerSource, exchange, type Exchange, noAnswer, send } from './http.js';
import { checkRequestParams, DEFAULT_REQUEST_SECRET_FIELDS, type OperationDeclaration, type OperationSchemas, type RequestParams, scopeNotGranted } from './operation.js';
import { type APIPromise, type Envelope, MAX_PAGES, type PagePromise, type Paging, summaryPages, type WithResponse } from './promise.js';
import { renewalBackoff, type Sleep } from './retry-timing.js';
import { OPERATION_SCOPES, type OperationName, type Scope } from './scopes.js';
import { bodyIssues, checkCallOptions, describeType, parse, parseOrThrow, type RequestOptions } from './validation.js';

// One call of the API, read top to bottom: the precheck, options and body validated, the key and the
// signature, the headers, ky with its hooks (core/http.ts), the answer decoded or the failure mapped.

/** What the calls of one client or customer session run with. */
export interface CallContext {
  /** The client's settings after validation and defaults. */
  config: PipelineConfig;
  /** Secret fields of the client's calls, encrypted once per logical call and decrypted in answers. */
  crypto: FieldCrypto;
  endpoints: Endpoints;
  /** The `operationScopes` option: scopes that replace an operation's own. */
  operationScopes: Readonly<Record<string, readonly Scope[]>>;
  /** The client's client-credentials tokens: one token source per scope set, from its one cache. */
  clientTokens: { source(scopes: readonly Scope[]): BearerSource };
  /** On a session: client credentials wait behind its state (an ended consent sends nothing). */
  gate?: ((bearer: BearerSource) => BearerSource) | undefined;
  /** The customer's token source on a session; undefined on the client. */
  customerBearer: BearerSource | undefined;
  /** On a session: the scopes the customer's token set grants (undefined when it names none). */
  granted?: (() => readonly string[] | undefined) | undefined;
  /** The client's clock and sleep (waits between polls follow them). */
  clock: { now(): number; sleep: Sleep };
}

/** What one call sends: its declaration (or `ob.request`'s), the path filled in, its input and token. */
interface Outgoing {
  declared: Pick<OperationDeclaration, 'name' | 'method'> & Partial<Pick<OperationDeclaration, 'schemas' | 'secretRequestFields' | 'secretResponseFields'>>;
  /** Path under the base URL, starting with `/`, already encoded. */
  path: string;
  /** The path template events and traces show (`/accounts/{account_number}`). */
  urlTemplate: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  bearer: BearerSource;
  /** The refusals before anything is sent; throws a `ValidationError`. */
  precheck(): void;
}

/** Makes the calls of a client or a customer session: typed operations, their pages, and `request`. */
export class OperationRunner {
  readonly #ctx: CallContext;

  constructor(ctx: CallContext) {
    // Private, never an own property: the config holds the client secret.
    this.#ctx = ctx;
  }

  /** The client's clock and sleep. */
  get clock(): CallContext['clock'] {
    return this.#ctx.clock;
  }

  /** One call of `op`: `params` fill the path template, `input` is the body or query, `options` per call. */
  call<Data>(op: OperationDeclaration, params: readonly unknown[], input: unknown, options: RequestOptions | undefined): APIPromise<Data> {
    // An operation without input takes `(options)` or `(undefined, options)`: per-call options come second.
    if (op.input === 'none' && options === undefined) [input, options] = [undefined, input as RequestOptions | undefined];
    return makeAPIPromise(this.#operation(op, params, input, options) as Promise<WithResponse<Data>>);
  }

  /** A paged call: the first page at once, the rest as the iteration asks for them. */
  paged<Page, Item>(op: OperationDeclaration, params: readonly unknown[], query: Record<string, unknown> | undefined, options: RequestOptions | undefined): PagePromise<Page, Item> {
    const start = typeof query?.page === 'number' && Number.isInteger(query.page) && query.page >= 1 ? query.page : 1;
    return makePagePromise<Page, Item>({
      first: start,
      // A caller's idempotency key goes with the first page only; later pages are new calls with fresh keys.
      fetch: (page, isFirst) => {
        const pageOptions = isFirst || options?.idempotencyKey === undefined ? options : { ...options, idempotencyKey: undefined };
        return this.#operation(op, params, isFirst ? query : { ...query, page }, pageOptions) as Promise<WithResponse<Page>>;
      },
      items: (page) => {
        const list = (page as Record<string, unknown> | null)?.[op.pagedItems ?? 'items'];
        return Array.isArray(list) ? (list as Item[]) : [];
      },
      total: summaryPages,
    });
  }

  /** `ob.request` and a session's `request`: the parameters checked, then the same call with `bearer`. */
  request<Data>(params: RequestParams, options: RequestOptions | undefined, bearer: BearerSource, urlTemplate: string): APIPromise<Data> {
    const secretRequestFields = Array.isArray(params?.secretFields) ? params.secretFields : DEFAULT_REQUEST_SECRET_FIELDS;
    const precheck = () => {
      const issues = checkRequestParams(params);
      if (issues.length > 0) throw new ValidationError('Invalid request parameters', issues);
    };
    const outgoing = { declared: { name: 'request', method: params?.method, secretRequestFields }, path: params?.path, urlTemplate, query: params?.query, body: params?.body, bearer, precheck };
    return makeAPIPromise(this.#send(outgoing, options) as Promise<WithResponse<Data>>);
  }

  /**
   * What a call of `op` with `params` would be refused for before sending, rejected as the call
   * would: for waits that poll `op` and must refuse at once, not at their first poll.
   */
  async check(op: OperationDeclaration, params: readonly unknown[]): Promise<void> {
    this.#precheck(op, this.#bearer(op), paramIssues(op, op.schemas, params), undefined);
  }

  #operation(op: OperationDeclaration, params: readonly unknown[], input: unknown, options: RequestOptions | undefined): Promise<WithResponse<unknown>> {
    const template = op.endpoint ? this.#ctx.endpoints[op.endpoint] : op.path;
    const issues = paramIssues(op, op.schemas, params);
    let i = 0;
    const path = issues.length > 0 ? template : template.replace(/\{\w+\}/g, () => encodeURIComponent(String(params[i++])));
    const bearer = this.#bearer(op);
    const query = op.input === 'query' || op.input === 'optional-query' ? (input as Record<string, unknown> | undefined) : undefined;
    const precheck = () => this.#precheck(op, bearer, issues, input);
    return this.#send({ declared: op, path, urlTemplate: template, body: op.input === 'body' ? input : undefined, query, bearer: bearer ?? NO_BEARER, precheck }, options);
  }

  /** The refusals before sending, in order: no customer token, a scope not granted, bad parameters. */
  #precheck(op: OperationDeclaration, bearer: BearerSource | undefined, issues: ValidationIssue[], input: unknown): void {
    if (bearer === undefined) {
      throw new ValidationError(`${op.name} needs a customer's token`, [
        { path: '', message: `${op.name} acts on a customer's resources: call it on a customer session, ob.forCustomer(tokens).${op.name}(…)`, code: 'customer_token_required' },
      ]);
    }
    if (bearer === this.#ctx.customerBearer) {
      const refused = scopeNotGranted(op.name, this.#scopes(op), this.#ctx.granted?.());
      if (refused) throw refused;
    }
    if (issues.length > 0) throw new ValidationError('Invalid path parameters', issues);
    if (op.input === 'none' && input !== undefined && (typeof input !== 'object' || input === null || Object.keys(input).length > 0)) {
      throw new ValidationError('Invalid parameters', [{ path: '', message: `${op.name} takes no parameters: pass undefined or {} before the request options`, code: 'unrecognized_keys' }]);
    }
  }

  /** The token source for `op` here (the client's, one per scope set); undefined when it needs a customer and this is the client. */
  #bearer(op: OperationDeclaration): BearerSource | undefined {
    const customer = this.#ctx.customerBearer;
    if (op.token === 'customer' && customer === undefined) return undefined;
    if (op.token !== 'client' && customer !== undefined) return customer;
    const source = this.#ctx.clientTokens.source(this.#scopes(op));
    return this.#ctx.gate ? this.#ctx.gate(source) : source;
  }

  /** The scopes `op` asks for: its own, or the `operationScopes` option's. */
  #scopes(op: OperationDeclaration): readonly Scope[] {
    return this.#ctx.operationScopes[op.name] ?? OPERATION_SCOPES[op.name as OperationName];
  }

  /** The call, observed when somebody watches (`ob.on`, an instrumentation, the diagnostics channel); otherwise nothing is built for events. */
  #send(out: Outgoing, options: RequestOptions | undefined): Promise<WithResponse<unknown>> {
    const o = this.#ctx.config;
    // Read as values, not through `events.active`: an unwatched call runs no code of the events module.
    if (o.events.listening === 0 && o.events.channel?.hasSubscribers !== true) return this.#run(out, options, undefined);
    return observeCall(o, { name: out.declared.name, method: out.declared.method, urlTemplate: out.urlTemplate }, options, (observe) => this.#run(out, options, observe));
  }

  async #run(out: Outgoing, options: RequestOptions | undefined, observe: CallObservation | undefined): Promise<WithResponse<unknown>> {
    const o = this.#ctx.config;
    const { schemas, secretRequestFields, secretResponseFields, method } = out.declared;
    // 1. Refused before anything is sent: the precheck, then the options, the body and the query.
    out.precheck();
    const optionIssues = checkCallOptions(options, o.headerNames.idempotencyKey);
    if (optionIssues.length > 0) throw new ValidationError('Invalid request options', optionIssues);
    const call = options ?? {};
    // Objects that are not plain first, then the schema, then what JSON cannot carry.
    const walked = out.body === undefined ? [] : bodyIssues(out.body, schemas?.body !== undefined);
    const notPlain = walked.filter((issue) => issue.code === 'invalid_type');
    if (notPlain.length > 0) throw new ValidationError('Invalid request body', notPlain);
    const body = schemas?.body ? parseOrThrow(schemas.body, out.body, 'Invalid request body') : out.body;
    if (walked.length > 0) throw new ValidationError('Invalid request body', walked);
    const query = encodeQuery((schemas?.query ? parseOrThrow(schemas.query, out.query, 'Invalid query', 'query') : out.query) as Record<string, unknown> | undefined);
    const idempotencyKey = call.idempotencyKey ?? observe?.start.idempotencyKey ?? uuid();

    // 2. Secret fields encrypted once (remembered under the key), so every attempt carries the same bytes.
    const sent = await this.#ctx.crypto.encryptRequest(body, secretRequestFields, idempotencyKey);
    const payload = sent === undefined ? undefined : JSON.stringify(sent);

    // 3. The signature, once per logical call, and what the call masks wherever a text quotes it.
    const signed = computeSignature(o.clientSecret, idempotencyKey, o.signatureEncoding);
    const signature = typeof signed === 'string' ? signed : await signed; // Node hashes synchronously: no microtask hop
    o.secrets.remember('signature', signature);
    const secrets = sentSecrets(secretRequestFields, [body, sent], signature);

    // 4. ky sends: the token, the rate budget, retries with the same key and bytes, one 401 renewal.
    const signal = call.signal;
    if (signal?.aborted) throw new AbortError('The request was aborted before it was sent', { idempotencyKey });
    const ex = exchange('the API', o, { method, path: out.path, what: 'The request', idempotencyKey, signal, timeout: call.timeout, maxRetries: call.maxRetries, bearer: out.bearer, payload, secrets, observe });
    let answer: { response: Response; text: string };
    try {
      answer = await send(o.baseUrl + out.path + query, ex, { headers: headersOf(o, call, idempotencyKey, signature), body: payload });
    } catch (failure) {
      throw failed(failure, ex, withBearer(o, ex), o.baseUrl);
    }

    // 5. The answer decoded: a typed operation's 2xx body is the `{status, message, data}` envelope, `ob.request` reads any JSON.
    const { response, text } = answer;
    const decoded = decodeSuccess(response, text, schemas !== undefined, schemas, idempotencyKey, withBearer(o, ex));
    await this.#ctx.crypto.decryptResponse(decoded.data, secretResponseFields, idempotencyKey);
    return { data: decoded.data, envelope: decoded.envelope, response, idempotencyKey };
  }
}

/** The headers every attempt carries: the caller's extra ones, then the SDK's, which win. */
function headersOf(o: PipelineConfig, call: RequestOptions, idempotencyKey: string, signature: string): Record<string, string> {
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

/** What the call masks in its answer: its own secrets and the bearer token it sent, which becomes the client's most recent token. */
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
  const url = error.status === 404 ? new URL(baseUrl) : undefined;
  if (url && !/\/openapi\/v1(\/|$)/.test(url.pathname)) {
    error.message += ` (the baseUrl ${url.origin}${url.pathname.replace(/\/+$/, '')} has no /openapi/v1 in its path: the API's paths sit under that prefix, so it may be missing)`;
  }
  return error;
}

/** The body as JSON, or undefined when it is empty or not JSON. */
function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Reads a 2xx body: JSON, the `{status, message, data}` envelope when `envelope` is set (success is
 * decided by the HTTP status alone, never by `status` or `message`), then `data` through `reshape`
 * and the `response` schema. Anything else rejects with {@link ResponseValidationError} carrying the raw body.
 */
export function decodeSuccess(response: Response, text: string, envelope: boolean, schemas: Pick<OperationSchemas, 'response' | 'reshape'> | undefined, idempotencyKey: string, secrets?: CallSecrets): { data: unknown; envelope: Envelope<unknown> | undefined } {
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

/** The path parameters, by name, through the operation's published `params` schema. */
function paramIssues(op: OperationDeclaration, schemas: OperationSchemas, params: readonly unknown[]): ValidationIssue[] {
  if (schemas.params === undefined) return [];
  const named = Object.fromEntries(op.params.map((name, i) => [name, params[i]]));
  return parse(schemas.params, named).issues;
}

const NO_BEARER: BearerSource = {
  token: () => Promise.reject(new Error('unreachable: the precheck refuses the call')),
  renew: () => Promise.resolve(undefined),
};

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

/** Starts page `first` at once and returns the awaitable, iterable {@link PagePromise}. */
export function makePagePromise<Page, Item>(paging: Paging<Page, Item>): PagePromise<Page, Item> {
  const firstCall = paging.fetch(paging.first, true);
  const promise = makeAPIPromise(firstCall) as PagePromise<Page, Item>;
  async function* pages(): AsyncIterableIterator<Page> {
    let number = paging.first;
    let call = firstCall;
    for (let walked = 1; ; walked++) {
      const { data } = await call;
      yield data;
      const total = paging.total(data);
      if (total === undefined || number >= total || paging.items(data).length === 0 || walked >= MAX_PAGES) return;
      number++;
      call = paging.fetch(number, false);
    }
  }
  promise.pages = () => {
    promise.catch(() => undefined); // the iteration reports the first page's failure itself
    return pages();
  };
  promise[Symbol.asyncIterator] = async function* items(): AsyncIterator<Item> {
    for await (const page of promise.pages()) yield* paging.items(page);
  };
  return promise;
}

/**
 * A namespace of operations (`ob.cards`, `session.accounts`, …): thin methods over the runner that
 * the client or customer session built it with, held out of sight, so printing a namespace shows
 * no part of the client.
 */
export abstract class Resource {
  /** @internal The runner this namespace's methods call. */
  protected declare readonly run: OperationRunner;

  /** @internal */
  constructor(runner: OperationRunner) {
    Object.defineProperty(this, 'run', { value: runner, enumerable: false });
  }

  /** A view for logs: the namespace's name only. */
  toJSON(): Record<string, unknown> {
    return { namespace: this.constructor.name };
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `${this.constructor.name} {}`;
  }
}
