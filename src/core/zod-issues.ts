import type * as z from 'zod/mini';
import type { ValidationIssue } from '../errors/index.js';

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

/** The JSON types a value was expected to have: an `invalid_type` issue's, or every branch's of a union that failed on type alone. */
function expectedOf(issue: RawIssue): string | undefined {
  if (issue.code === 'invalid_type') return issue.expected === 'int' ? 'whole number' : issue.expected;
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return undefined;
  const types: string[] = [];
  for (const branch of issue.errors) {
    const only = branch.length === 1 ? branch[0] : undefined;
    if (only?.code !== 'invalid_type' || only.path.length > 0) return undefined;
    types.push(only.expected);
  }
  return types.join(' or a ');
}

function describe(issue: RawIssue, given: unknown, expected: string | undefined): string {
  if (expected === 'whole number' && typeof given === 'number') return 'must be a whole number';
  if (expected !== undefined && given !== undefined && issue.code === 'invalid_union') return `must be a ${expected}`;
  if (expected !== undefined) return given === undefined ? 'is required' : `must be ${expected === 'array' ? 'an array' : `a ${expected}`}, got ${typeName(given)}`;
  switch (issue.code) {
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string') return `must have at least ${String(issue.minimum)} character(s)`;
      return issue.inclusive === false ? `must be greater than ${String(issue.minimum)}` : `must be at least ${String(issue.minimum)}`;
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
      const expected = expectedOf(issue);
      const given = expected === undefined ? null : valueAt(input, issue.path);
      out.push({ path: join(issue.path), message: describe(issue, given, expected), code: given === undefined ? 'missing' : expected !== undefined ? 'invalid_type' : issue.code });
    }
  }
  return out;
}
