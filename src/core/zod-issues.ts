import type * as z from 'zod/mini';
import type { ValidationIssue } from '../errors.js';

type RawIssue = z.core.$ZodIssue;

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function describe(issue: RawIssue, input: unknown): string {
  const given = valueAt(input, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return given === undefined ? 'is required' : `must be ${issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}, got ${typeName(given)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'string' ? `must have at least ${String(issue.minimum)} character(s)` : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string' ? `must have at most ${String(issue.maximum)} characters` : `must be at most ${String(issue.maximum)}`;
    default:
      return issue.message && issue.message !== 'Invalid input' ? issue.message : 'is invalid';
  }
}

/**
 * zod issues → the SDK's issues: dotted paths, a message in words that never repeats the value,
 * zod's code; one issue per unknown key.
 */
export function toIssues(error: z.core.$ZodError, input: unknown, prefix = ''): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const join = (path: readonly PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join('.');
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: join([...issue.path, key]), message: 'is not a known field', code: issue.code });
    } else {
      const given = issue.code === 'invalid_type' ? valueAt(input, issue.path) : null;
      // A refinement standing for a type or a bound names its code in `params` (schemas/common.ts).
      const code = issue.code === 'custom' && typeof issue.params?.code === 'string' ? issue.params.code : issue.code;
      out.push({ path: join(issue.path), message: describe(issue, input), code: given === undefined ? 'missing' : code });
    }
  }
  return out;
}
