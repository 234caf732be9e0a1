import { ValidationError, type ValidationIssue } from '../errors/index.js';
import type { WithResponse } from './api-promise.js';
import type { BearerSource } from './http.js';
import type { RequestOptions } from './validation.js';
import { describeType } from './validation.js';
import type { HttpMethod } from './http.js';
import { type Scope, SCOPES } from './config.js';
import type { Transport } from './transport.js';

/**
 * Parameters of `ob.request` and `session.request`: any API operation through the same pipeline.
 * @group Client
 */
export interface RequestParams {
  /** HTTP method. */
  method: HttpMethod;
  /** Path under the base URL, starting with `/`, e.g. `/accounts`. Encode path segments yourself. */
  path: string;
  /** JSON body (not with `GET`: fetch cannot send one; use `query`). */
  body?: unknown;
  /** Query parameters; `undefined` values are left out, arrays repeat the name. */
  query?: Record<string, string | number | boolean | Date | undefined | null | readonly (string | number | boolean)[]>;
  /** Client-credentials scope(s) the operation needs. */
  scope?: Scope | readonly Scope[];
  /** Use the customer's token (only on a customer session from `ob.forCustomer`). */
  customer?: boolean;
  /**
   * Top-level body fields the cipher encrypts before sending (once per logical call, like the
   * typed operations' secret fields). Default: the card request secret `card_default_pin` when
   * the body carries it. In production such a call refuses to send until a cipher is configured.
   */
  secretFields?: readonly string[];
  /**
   * How events, traces and metrics name the path (`url.template`), e.g. `/loans/{loan_id}` for a
   * path that carries a customer's values. Default: the template of the typed operation the path
   * matches, else `/{path}`: the path itself never becomes a name.
   */
  urlTemplate?: string;
}

/** The request secret fields a typed operation knows of, used by `request` when `secretFields` is not given. */
export const DEFAULT_REQUEST_SECRET_FIELDS: readonly string[] = Object.freeze(['card_default_pin']);

const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const REQUEST_KEYS = new Set(['method', 'path', 'body', 'query', 'scope', 'customer', 'secretFields', 'urlTemplate']);

/** True when `path`, resolved the way a URL parser does (`%2e%2e`, backslashes), stays under the base path. */
function staysUnder(path: string): boolean {
  const base = '/__base__';
  try {
    return new URL(`http://h${base}${path}`).pathname.startsWith(`${base}/`) && !/\\|%2e|%2f|%5c/i.test(path);
  } catch {
    return false;
  }
}

/** Checks `request` parameters; returns the problems. */
export function checkRequestParams(params: RequestParams): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof params !== 'object' || params === null) {
    return [{ path: '', message: `must be an object { method, path, ... }, got ${describeType(params)}`, code: 'invalid_type' }];
  }
  for (const key of Object.keys(params)) {
    if (!REQUEST_KEYS.has(key)) issues.push({ path: key, message: 'is not a request parameter', code: 'unrecognized_keys' });
  }
  if (typeof params.method !== 'string' || !METHODS.includes(params.method)) {
    issues.push({ path: 'method', message: `must be one of ${METHODS.join(', ')}`, code: 'invalid_value' });
  }
  if (typeof params.path !== 'string' || !params.path.startsWith('/') || params.path.startsWith('//') || /[\s?#]|(^|\/)\.\.?(\/|$|;|%3b)/i.test(params.path) || !staysUnder(params.path)) {
    issues.push({ path: 'path', message: 'must be a path starting with / without spaces, query, fragment, backslashes, encoded dots or slashes, or dot segments', code: 'invalid_format' });
  }
  // fetch refuses to build a GET with a body: caught here, it is bad input, not a failed connection.
  if (params.method === 'GET' && params.body !== undefined) {
    issues.push({ path: 'body', message: 'a GET request carries no body: send its parameters as query', code: 'invalid_value' });
  }
  if (params.query !== undefined && (typeof params.query !== 'object' || params.query === null || Array.isArray(params.query))) {
    issues.push({ path: 'query', message: 'must be an object', code: 'invalid_type' });
  }
  if (params.scope !== undefined) {
    const list = typeof params.scope === 'string' ? [params.scope] : Array.isArray(params.scope) ? params.scope : undefined;
    if (!list) issues.push({ path: 'scope', message: 'must be a scope name or an array of them', code: 'invalid_type' });
    else for (const s of list) if (!(SCOPES as readonly string[]).includes(s)) issues.push({ path: 'scope', message: `"${String(s)}" is not a scope of the spec`, code: 'invalid_value' });
  }
  if (params.secretFields !== undefined && (!Array.isArray(params.secretFields) || params.secretFields.some((f) => typeof f !== 'string' || f === ''))) {
    issues.push({ path: 'secretFields', message: 'must be an array of body field names', code: 'invalid_type' });
  }
  if (params.urlTemplate !== undefined && (typeof params.urlTemplate !== 'string' || !params.urlTemplate.startsWith('/'))) {
    issues.push({ path: 'urlTemplate', message: 'must be a path template starting with /', code: 'invalid_format' });
  }
  if (params.customer !== undefined && typeof params.customer !== 'boolean') issues.push({ path: 'customer', message: 'must be a boolean', code: 'invalid_type' });
  return issues;
}

/**
 * `ob.request` (and a session's `request`): the parameters checked, then the call through the
 * pipeline with the given token source. Loaded with the first of them (`client.ts`): typed
 * operations never need these checks.
 */
export function sendRequest(transport: Transport, params: RequestParams, options: RequestOptions | undefined, bearer: BearerSource, urlTemplate: string): Promise<WithResponse<unknown>> {
  const secretRequestFields = Array.isArray(params?.secretFields) ? params.secretFields : DEFAULT_REQUEST_SECRET_FIELDS;
  return transport.send({ declared: { name: 'request', method: params?.method, secretRequestFields }, path: params?.path, urlTemplate, query: params?.query, body: params?.body, bearer }, options, () => {
    const issues = checkRequestParams(params);
    if (issues.length > 0) throw new ValidationError('Invalid request parameters', issues);
  });
}
