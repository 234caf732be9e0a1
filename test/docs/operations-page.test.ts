import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPERATION_SCOPES, type OperationName } from '../../src/index.js';
import { OPERATIONS, operationsPage } from './operations-page.js';

const PAGE = fileURLToPath(new URL('../../docs/operations.md', import.meta.url));

describe('docs/operations.md', () => {
  it('is what the operation descriptors generate (npm run docs:operations rewrites it)', () => {
    const generated = operationsPage();
    if (process.env.UPDATE_DOCS === '1') writeFileSync(PAGE, generated);
    expect(readFileSync(PAGE, 'utf8')).toBe(generated);
  });

  it('lists every operation once, and OPERATION_SCOPES has exactly their names', () => {
    const names = OPERATIONS.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(OPERATION_SCOPES).sort()).toEqual([...names].sort());
    // The OperationName union and the descriptors agree (a name missing from either fails to compile or here).
    const typed: Record<OperationName, true> = Object.fromEntries(names.map((n) => [n, true])) as Record<OperationName, true>;
    expect(Object.keys(typed)).toHaveLength(names.length);
  });
});
