import type { OperationDeclaration } from '../core/transport.js';
import { operations as accounts } from './accounts.js';
import { operations as bills } from './bills.js';
import { operations as cards } from './cards.js';
import { operations as customers } from './customers.js';
import { operations as directDebits } from './direct-debits.js';
import { operations as disputes } from './disputes.js';
import { operations as savings } from './savings.js';
import { operations as transfers } from './transfers.js';

export { OPERATION_SCOPES, type OperationName } from '../core/config.js';

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
