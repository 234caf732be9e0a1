import * as z from 'zod/mini';
import { ValidationError, type ValidationIssue } from '../errors/base.js';
import type { Endpoints } from './config.js';
import type { HttpMethod } from './http.js';
import { type Scope, SCOPES } from './scopes.js';
import { once, parse, quoted, rule } from './validation.js';

// What a call is given: a typed operation's declaration (declared beside its method under
// `resources/`), or `ob.request`'s parameters, checked before anything is sent.

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
  const declared = { ...rest, params: Object.freeze(params) } as OperationDeclaration<Name>;
  for (const key of Object.keys(declared)) Object.defineProperty(declared, key, { writable: false, configurable: false });
  // The first read builds the schemas and puts them in place of the getter: later calls read a plain, frozen property.
  Object.defineProperty(declared, 'schemas', {
    configurable: true,
    enumerable: true,
    get: () => {
      const schemas = build();
      Object.defineProperty(declared, 'schemas', { value: schemas, writable: false, configurable: false });
      return schemas;
    },
  });
  return Object.preventExtensions(declared);
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

/** `ob.request`'s parameters (built by the first `request`). */
const requestParams = once(() => {
  const scopeName = z.enum(SCOPES, { error: (issue) => `${quoted(issue.input)} is not a scope of the spec` });
  return z
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
});

/** Checks `request` parameters; returns the problems. */
export function checkRequestParams(params: RequestParams): ValidationIssue[] {
  return parse(requestParams(), params).issues;
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
