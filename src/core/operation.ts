import type * as z from 'zod/mini';
import type { Endpoints } from './config.js';
import type { HttpMethod } from './http.js';

/**
 * Which token an operation is sent with: `client` (client credentials), `customer` (the token of
 * a session from `ob.forCustomer`; on `ob` the call rejects unsent), or `both` (client credentials
 * on `ob`, the customer's token on a session).
 * @group Client
 */
export type TokenKind = 'client' | 'customer' | 'both';

/**
 * One provider operation, as data: everything the core needs to send it and read its answer, and
 * the docs to describe it. Declared next to its zod schemas in the namespace's module under
 * `schemas/`, which loads with the namespace's first call; the token kind and default scopes, which
 * are needed up front, are in `resources/catalog.ts`.
 */
export interface OperationDescriptor {
  /** The method's name under the client, e.g. `'accounts.balances.retrieve'`: the key of `OPERATION_SCOPES`. */
  readonly name: string;
  readonly method: HttpMethod;
  /** Path template under the base URL; `{name}` segments are the positional path parameters, in order. */
  readonly path: string;
  /** The `endpoints` option that overrides the path (unofficial paths only). */
  readonly endpoint?: keyof Endpoints;
  /** What the argument after the path parameters is: a JSON body, a query (required or optional), or nothing. */
  readonly input: 'body' | 'query' | 'optional-query' | 'none';
  /** Checks the body or the query before anything is sent. */
  readonly request?: z.ZodMiniType;
  /** Checks (and shapes) `data` of a 2xx answer. */
  readonly response?: z.ZodMiniType;
  /**
   * Reads a shape of `data` the provider sends besides the documented one (a bare array, a lone
   * object, `loans` for `savings`) as the documented one, before `response` checks it. A plain
   * function rather than a zod transform: zod's transform would add to the code every namespace's
   * first call loads.
   */
  readonly reshape?: (data: unknown) => unknown;
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
}

/** What a namespace's lazily loaded module provides: its operations by method key. */
export interface OperationModule {
  readonly operations: Readonly<Record<string, OperationDescriptor>>;
}

/** Declares an operation: a descriptor with its path parameters read from the template. */
export function defineOperation(spec: Omit<OperationDescriptor, 'params'>): OperationDescriptor {
  const params = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return Object.freeze({ ...spec, params: Object.freeze(params) });
}
