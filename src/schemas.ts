/**
 * openbanking-ng/schemas: every typed operation of the API as data, the very declarations and zod
 * schemas the client validates with, for your own forms and tools. Loading it loads zod and every
 * namespace's schemas; the main entry never imports it. `openbanking-ng/openapi.json` is generated
 * from it.
 *
 * @example
 * ```ts
 * import { operations } from 'openbanking-ng/schemas';
 * const checked = operations['cards.create'].body.safeParse({ card_status: 'ACTIVE' });
 * if (!checked.success) console.log(checked.error.issues.map((i) => i.path.join('.')));
 * ```
 * @module openbanking-ng/schemas
 */
import type * as z from 'zod/mini';
import type { HttpMethod } from './core/http.js';
import type { OperationSchemas, TokenKind } from './core/operation.js';
import type { Scope } from './core/scopes.js';
import { OPERATIONS, type OperationName } from './resources/namespaces.js';
import { schemas as accounts } from './schemas/accounts.js';
import { schemas as bills } from './schemas/bills.js';
import { schemas as cards } from './schemas/cards.js';
import { schemas as customers } from './schemas/customers.js';
import { schemas as directDebits } from './schemas/direct-debits.js';
import { schemas as disputes } from './schemas/disputes.js';
import { schemas as savings } from './schemas/savings.js';
import { schemas as transfers } from './schemas/transfers.js';

const tables = { ...customers, ...accounts, ...transfers, ...bills, ...disputes, ...directDebits, ...cards, ...savings };

/**
 * One typed operation as data: how it is sent, and the zod schemas of what goes out and comes back.
 * @group API description
 */
export interface OperationDescription {
  /** HTTP method, upper case. */
  readonly method: HttpMethod;
  /** Path template under the base URL (which ends in `/openapi/v1`), e.g. `/accounts/{account_number}/balances`. */
  readonly path: string;
  /** The token it is sent with: client credentials, the customer's, or either. */
  readonly token: TokenKind;
  /** The scopes it asks for by default. */
  readonly scopes: readonly Scope[];
  /** True when the path or body rests on integrator code rather than the provider's pages. */
  readonly unofficial?: true;
  /** The path parameters, by name. */
  readonly params?: z.ZodMiniType;
  /** The query, checked before anything is sent. */
  readonly query?: z.ZodMiniType;
  /** The JSON body, checked before anything is sent. */
  readonly body?: z.ZodMiniType;
  /** `data` of a success answer, as the client returns it (unknown members kept). */
  readonly response?: z.ZodMiniType;
  /** Reads another shape of `data` the provider sends (a bare array, `loans`) as the documented one, before `response`. */
  readonly reshape?: (data: unknown) => unknown;
}

/**
 * Each operation's zod schemas by name, as the namespaces declare them: what gives
 * {@link operations} its precise types (`operations['cards.create'].body` is the card body's schema).
 * @group API description
 */
export type OperationSchemaTable = typeof tables;

/**
 * Every typed operation by name (`operations['cards.create']`): its method, path, token kind,
 * scopes and zod schemas.
 * @group API description
 */
export const operations: { readonly [K in OperationName]: OperationDescription & OperationSchemaTable[K] } = Object.freeze(
  Object.fromEntries(
    OPERATIONS.map((op) => {
      const schemas: OperationSchemas = tables[op.name];
      const description: OperationDescription = {
        method: op.method,
        path: op.path,
        token: op.token,
        scopes: op.scopes,
        ...(op.unofficial ? { unofficial: true as const } : {}),
        ...schemas,
      };
      return [op.name, Object.freeze(description)];
    }),
  ) as { readonly [K in OperationName]: OperationDescription & OperationSchemaTable[K] },
);

export type { OperationName } from './resources/namespaces.js';
export { type JsonSchema, type JsonSchemaOptions, type RefineWriter, toJsonSchema, toJsonSchemas } from './schemas/json-schema.js';
