import * as z from 'zod/mini';
import { parse, quoted, type RequestOptions, rule } from '../core/validation.js';
import { type Endpoints } from '../core/config.js';
import { type Scope, SCOPES } from '../core/scopes.js';
import { makeAPIPromise, type APIPromise, type WithResponse, type BearerSource, type Transport, type OperationDeclaration, type OperationSchemas } from '../core/transport.js';
import type { Sleep } from '../core/retry-timing.js';
import { ValidationError, type ValidationIssue } from '../errors/index.js';
import type { HttpMethod } from '../core/http.js';

/** What the operations of one client or customer session run with. */
export interface RunnerContext {
  transport: Transport;
  endpoints: Endpoints;
  /** The scopes an operation asks for (its default, or the `operationScopes` option's). */
  scopes(op: OperationDeclaration): readonly Scope[];
  /** The client's client-credentials token source for `scopes` (one per scope set, from its one cache). */
  clientBearer(scopes: readonly Scope[]): BearerSource;
  /** The customer's token source on a session; undefined on the client. */
  customerBearer: BearerSource | undefined;
  /** On a session: the scopes the customer's token set grants (undefined when it names none). */
  granted?: (() => readonly string[] | undefined) | undefined;
  /** The client's clock and sleep (waits between polls follow them). */
  clock: { now(): number; sleep: Sleep };
}

/**
 * Runs operation descriptors: checks the path parameters with the operation's `params` schema,
 * picks the token, fills the path template, hands the rest to the transport, and walks pages.
 */
export class OperationRunner {
  readonly #ctx: RunnerContext;

  constructor(ctx: RunnerContext) {
    this.#ctx = ctx;
  }

  /** The client's clock and sleep. */
  get clock(): RunnerContext['clock'] {
    return this.#ctx.clock;
  }

  /** One call of `op`: `params` fill the path template, `input` is the body or query, `options` per call. */
  call<Data>(op: OperationDeclaration, params: readonly unknown[], input: unknown, options: RequestOptions | undefined): APIPromise<Data> {
    // An operation without input takes `(options)` or `(undefined, options)`: per-call options come second.
    if (op.input === 'none' && options === undefined) [input, options] = [undefined, input as RequestOptions | undefined];
    return makeAPIPromise(this.#send(op, params, input, options) as Promise<WithResponse<Data>>);
  }

  /** A paged call: the first page at once, the rest as the iteration asks for them. */
  paged<Page, Item>(op: OperationDeclaration, params: readonly unknown[], query: Record<string, unknown> | undefined, options: RequestOptions | undefined): PagePromise<Page, Item> {
    const start = typeof query?.page === 'number' && Number.isInteger(query.page) && query.page >= 1 ? query.page : 1;
    return makePagePromise<Page, Item>({
      first: start,
      // A caller's idempotency key goes with the first page only; later pages are new calls with fresh keys.
      fetch: (page, isFirst) => {
        const pageOptions = isFirst || options?.idempotencyKey === undefined ? options : { ...options, idempotencyKey: undefined };
        return this.#send(op, params, isFirst ? query : { ...query, page }, pageOptions) as Promise<WithResponse<Page>>;
      },
      items: (page) => {
        const list = (page as Record<string, unknown> | null)?.[op.pagedItems ?? 'items'];
        return Array.isArray(list) ? (list as Item[]) : [];
      },
      total: summaryPages,
    });
  }

  async #send(op: OperationDeclaration, params: readonly unknown[], input: unknown, options: RequestOptions | undefined): Promise<WithResponse<unknown>> {
    const schemas = op.schemas;
    const template = op.endpoint ? this.#ctx.endpoints[op.endpoint] : op.path;
    let path = template;
    const issues = paramIssues(op, schemas, params);
    if (issues.length === 0) {
      let i = 0;
      path = path.replace(/\{\w+\}/g, () => encodeURIComponent(String(params[i++])));
    }
    const bearer = this.#bearer(op);
    return this.#ctx.transport.send(
      {
        declared: op,
        path,
        urlTemplate: template,
        body: op.input === 'body' ? input : undefined,
        query: op.input === 'query' || op.input === 'optional-query' ? (input as Record<string, unknown> | undefined) : undefined,
        bearer: bearer ?? NO_BEARER,
      },
      options,
      () => this.#precheck(op, bearer, issues, input),
    );
  }

  /**
   * What a call of `op` with `params` would be refused for before sending (a customer operation on
   * the client, a scope the customer did not grant, a bad path parameter), rejected as the call
   * would: for waits that poll `op` and must refuse at once, not at their first poll.
   */
  async check(op: OperationDeclaration, params: readonly unknown[]): Promise<void> {
    const schemas = op.schemas;
    this.#precheck(op, this.#bearer(op), paramIssues(op, schemas, params), undefined);
  }

  /** The refusals before sending, in order: no customer token, a scope not granted, bad parameters. */
  #precheck(op: OperationDeclaration, bearer: BearerSource | undefined, issues: ValidationIssue[], input: unknown): void {
    if (bearer === undefined) {
      throw new ValidationError(`${op.name} needs a customer's token`, [
        { path: '', message: `${op.name} acts on a customer's resources: call it on a customer session, ob.forCustomer(tokens).${op.name}(…)`, code: 'customer_token_required' },
      ]);
    }
    if (bearer === this.#ctx.customerBearer) {
      const refused = scopeNotGranted(op.name, this.#ctx.scopes(op), this.#ctx.granted?.());
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
    const token = op.token;
    if (token === 'customer' && customer === undefined) return undefined;
    if (token !== 'client' && customer !== undefined) return customer;
    return this.#ctx.clientBearer(this.#ctx.scopes(op));
  }
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

/**
 * A namespace of operations (`ob.cards`, `session.accounts`, …): thin methods over the runner that
 * the client or customer session built it with. The runner is held privately, so printing a
 * namespace shows no part of the client.
 */
export abstract class Resource {
  readonly #runner: OperationRunner;

  /** @internal */
  constructor(runner: OperationRunner) {
    this.#runner = runner;
  }

  /** @internal The runner this namespace's methods call. */
  protected get run(): OperationRunner {
    return this.#runner;
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

/**
 * The refusal of a typed operation the customer's consent does not cover: the operation's scopes
 * (after `operationScopes`) that the token set's `scope` does not list. Undefined when all are
 * granted, or when the set carries no `scope` (nothing to check against).
 */
export function scopeNotGranted(operation: string, needed: readonly string[], granted: readonly string[] | undefined): ValidationError | undefined {
  if (granted === undefined) return undefined;
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length === 0) return undefined;
  const list = missing.join(' ');
  return new ValidationError(`${operation} needs a scope the customer's consent did not grant`, [
    {
      path: '',
      message: `${operation} needs the scope ${list}, which the customer's token does not carry: add it to the consent request (OPERATION_SCOPES['${operation}']) and have the customer consent again, or override it with the operationScopes option`,
      code: 'scope_not_granted',
    },
  ]);
}

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

/** True when `path`, resolved the way a URL parser does (`%2e%2e`, backslashes), stays under the base path. */
function staysUnder(path: string): boolean {
  const base = '/__base__';
  try {
    return new URL(`http://h${base}${path}`).pathname.startsWith(`${base}/`) && !/\\|%2e|%2f|%5c/i.test(path);
  } catch {
    return false;
  }
}

const scopeName = z.enum(SCOPES, { error: (issue) => `${quoted(issue.input)} is not a scope of the spec` });

/** `ob.request`'s parameters. */
const requestParams = z
  .strictObject({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    path: z.string().check(
      rule((path: string) => path.startsWith('/') && !path.startsWith('//') && !/[\s?#]|(^|\/)\.\.?(\/|$|;|%3b)/i.test(path) && staysUnder(path), 'must be a path starting with / without spaces, query, fragment, backslashes, encoded dots or slashes, or dot segments', 'invalid_format'),
    ),
    body: z.optional(z.unknown()),
    query: z.optional(z.record(z.string(), z.unknown())),
    scope: z.optional(z.pipe(z.transform((scope: unknown) => (typeof scope === 'string' ? [scope] : scope)), z.array(scopeName, { error: 'must be a scope name or an array of them' }))),
    customer: z.optional(z.boolean()),
    secretFields: z.optional(z.array(z.string().check(z.minLength(1)))),
    urlTemplate: z.optional(z.string().check(z.startsWith('/', { error: 'must be a path template starting with /' }))),
  })
  // fetch refuses to build a GET with a body: caught here, it is bad input, not a failed connection.
  .check(rule((params) => params.method !== 'GET' || params.body === undefined, 'a GET request carries no body: send its parameters as query', 'invalid_value', ['body']));

/** Checks `request` parameters; returns the problems. */
export function checkRequestParams(params: RequestParams): ValidationIssue[] {
  return parse(requestParams, params).issues;
}

/**
 * `ob.request` (and a session's `request`): the parameters checked, then the call through the
 * pipeline with the given token source.
 */
export function sendRequest(transport: Transport, params: RequestParams, options: RequestOptions | undefined, bearer: BearerSource, urlTemplate: string): Promise<WithResponse<unknown>> {
  const secretRequestFields = Array.isArray(params?.secretFields) ? params.secretFields : DEFAULT_REQUEST_SECRET_FIELDS;
  return transport.send({ declared: { name: 'request', method: params?.method, secretRequestFields }, path: params?.path, urlTemplate, query: params?.query, body: params?.body, bearer }, options, () => {
    const issues = checkRequestParams(params);
    if (issues.length > 0) throw new ValidationError('Invalid request parameters', issues);
  });
}

/**
 * What a paged operation returns: awaiting it gives the first page's `data` (and `.withResponse()`
 * its envelope and `Response`), `for await` over it yields **every item of every page**, and
 * `.pages()` yields each page's `data`. Each page is its own logical call (its own idempotency key,
 * signature and retries). Iteration stops after the last page (`summary.pages`), on an empty page,
 * or after 1,000 pages (a safety cap); an error on any page rejects the iteration and no later page is asked for.
 *
 * @example
 * ```ts
 * declare const session: import('openbanking-ng').CustomerSession;
 * for await (const tx of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' })) {
 *   console.log(tx.reference, tx.amount);
 * }
 * ```
 * @group Client
 */
export interface PagePromise<Page, Item> extends APIPromise<Page>, AsyncIterable<Item> {
  /** Yields each page's `data`, from the first page asked for to the last. */
  pages(): AsyncIterableIterator<Page>;
}

/** How many pages an iteration follows at most, whatever `summary.pages` says. */
export const MAX_PAGES = 1_000;

/** How to walk a paged operation. */
export interface Paging<Page, Item> {
  /** The page number of the first call. */
  first: number;
  /** Sends the call for page `n` (a new logical call each time). */
  fetch(page: number, isFirst: boolean): Promise<WithResponse<Page>>;
  /** The items of a page. */
  items(page: Page): readonly Item[];
  /** How many pages there are, as the page says; undefined when it does not say. */
  total(page: Page): number | undefined;
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

/** `summary.pages` as a positive integer (a numeric string is read as a number), or undefined. */
export function summaryPages(page: unknown): number | undefined {
  const pages = (page as { summary?: { pages?: unknown } } | null | undefined)?.summary?.pages;
  const n = typeof pages === 'string' && pages.trim() !== '' ? Number(pages) : pages;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
