import { ValidationError } from '../errors/index.js';

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
