import type * as z from 'zod/mini';
import type { Endpoints } from './config.js';
import type { HttpMethod } from './http.js';
import type { Scope } from './scopes.js';

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

/** Declares an operation: its path parameters are read from the template. */
export function defineOperation<const Name extends string>(spec: { readonly name: Name } & Omit<OperationDeclaration, 'params' | 'name'>): OperationDeclaration<Name> {
  const params = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return Object.freeze({ ...spec, params: Object.freeze(params) });
}
