import type { OperationDeclaration } from '../core/operation.js';
import type { Scope } from '../core/scopes.js';
import { operations as accounts } from './accounts.js';
import { operations as bills } from './bills.js';
import { operations as cards } from './cards.js';
import { operations as customers } from './customers.js';
import { operations as directDebits } from './direct-debits.js';
import { operations as disputes } from './disputes.js';
import { operations as savings } from './savings.js';
import { operations as transfers } from './transfers.js';

/** Every typed operation's declaration, in the order of the provider reference. */
export const OPERATIONS = [
  ...Object.values(customers),
  ...Object.values(accounts),
  ...Object.values(transfers),
  ...Object.values(bills),
  ...Object.values(disputes),
  ...Object.values(directDebits),
  ...Object.values(cards),
  ...Object.values(savings),
];

/**
 * The name of a typed operation, as its method is called under the client: the keys of
 * {@link OPERATION_SCOPES} and of the `operationScopes` option.
 * @group Client
 */
export type OperationName = (typeof OPERATIONS)[number]['name'];

/**
 * The scopes each typed operation asks for by default, keyed by its method name, read from the
 * operations' declarations. Use it to build the `scope` of a customer's consent request for the
 * operations your app calls; override an entry with the `operationScopes` client option when your
 * provider wants another scope.
 *
 * @example
 * ```ts
 * import { OPERATION_SCOPES } from 'openbanking-ng';
 * const scope = [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']];
 * ```
 * @group Client
 */
export const OPERATION_SCOPES: Readonly<Record<OperationName, readonly Scope[]>> = Object.freeze(
  Object.fromEntries(OPERATIONS.map((op: OperationDeclaration) => [op.name, op.scopes])) as Record<OperationName, readonly Scope[]>,
);

/** Each typed operation's path template as a pattern over concrete paths, static segments first. */
const TEMPLATES = OPERATIONS.map((op: OperationDeclaration) => ({
  method: op.method,
  template: op.path,
  pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
})).sort((a, b) => a.template.split('{').length - b.template.split('{').length);

/**
 * How events, traces and metrics name an `ob.request` path without a `urlTemplate`: the template
 * of the typed operation it matches (the same method first), else `/{path}`, so that a caller's
 * values never become a name.
 */
export function templateOfPath(method: unknown, path: unknown): string {
  if (typeof path !== 'string') return '/{path}';
  const matches = TEMPLATES.filter((t) => t.pattern.test(path));
  return (matches.find((t) => t.method === method) ?? matches[0])?.template ?? '/{path}';
}
