import { expect } from 'vitest';
import { ValidationError, type ValidationIssue } from '../../src/index.js';

/** The issues of the `ValidationError` that `fn` throws synchronously; fails the test when it throws nothing else. */
export function thrownIssues(fn: () => unknown): ValidationIssue[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  throw new Error('did not throw');
}
