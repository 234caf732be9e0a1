import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { operations, toJsonSchema, toJsonSchemas } from '../../src/schemas.js';
import { pathParameter } from '../../src/schemas/common.js';

// DESIGN "The API described" and "Agents": one conversion of the published schemas to JSON Schema,
// for openapi.json and the MCP tools alike: the id rule kept, a nullable value as anyOf with null
// (never a type array), no look-around in a pattern, a refine it cannot describe refused.

type Json = Record<string, unknown>;
const nodes = (value: unknown): Json[] => {
  if (Array.isArray(value)) return value.flatMap(nodes);
  if (typeof value !== 'object' || value === null) return [];
  return [value as Json, ...Object.values(value).flatMap(nodes)];
};
const SCHEMAS = Object.entries(operations).flatMap(([name, op]) => (['params', 'query', 'body', 'response'] as const).flatMap((part) => (op[part as keyof typeof op] ? [[`${name} ${part}`, op[part as keyof typeof op] as z.ZodMiniType] as const] : [])));

describe('toJsonSchema', () => {
  it('every published schema, input and output: no type array, no look-around, no empty additionalProperties', () => {
    expect(SCHEMAS.length).toBeGreaterThan(50);
    for (const [name, schema] of SCHEMAS) {
      for (const io of ['input', 'output'] as const) {
        for (const node of nodes(toJsonSchema(schema, { io }))) {
          expect(Array.isArray(node.type), `${name} ${io}`).toBe(false);
          if (typeof node.pattern === 'string') expect(node.pattern, `${name} ${io}`).not.toMatch(/\(\?<?[=!]/);
          if (typeof node.additionalProperties === 'object') expect(Object.keys(node.additionalProperties as object).length, `${name} ${io}`).toBeGreaterThan(0);
        }
      }
    }
  });

  it('the id rule is an integer within ±(2^53 − 1), a nullable member anyOf with null', () => {
    const plan = (toJsonSchema(operations['savings.list'].response!, { io: 'output' }) as { properties: { savings: { items: { properties: Record<string, unknown> } } } }).properties.savings.items.properties;
    expect(plan.savings_id).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer', minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 }, { type: 'null' }] });
    expect(plan.currency).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('a refine it cannot describe is refused, unless `refines` says how to write it', () => {
    const even = (n: number) => n % 2 === 0;
    const schema = z.object({ n: z.number().check(z.refine(even)) });
    expect(() => toJsonSchema(schema)).toThrow(/refine the document cannot describe \(even\)/);
    const json = toJsonSchema(schema, { refines: new Map([[even, (_type: string, node: Json) => ((node.multipleOf = 2), true)]]) });
    expect((json.properties as Record<string, unknown>).n).toEqual({ type: 'number', multipleOf: 2 });
  });

  it('toJsonSchemas converts a registry by the same rules', () => {
    const registry = z.registry<{ id?: string }>();
    registry.add(operations['savings.list'].response, { id: 'Savings' });
    const converted = toJsonSchemas(registry, { uri: (id) => `#/defs/${id}`, io: 'output' });
    expect(converted.Savings).toMatchObject({ type: 'object', required: ['savings'] });
    expect(nodes(converted).some((node) => Array.isArray(node.type))).toBe(false);
    expect(JSON.stringify(converted)).toContain('{"anyOf":[{"type":"string"},{"type":"null"}]}');
  });
});

describe('the path parameter rule without look-ahead', () => {
  /** The rule as it was written before, with look-ahead. */
  const before = (text: string) => text.length >= 1 && /^(?!\.\.?(?:;|$))/.test(text);
  const now = (text: string) => pathParameter().safeParse(text).success;

  it('refuses exactly the strings the look-ahead refused: `.` and `..`, alone or before `;`', () => {
    for (const text of ['', '.', '..', '.;', '..;', '.;x', '..;x', '...', '.x', '..x', '.\n', 'a', 'a.', ';', '.;.;']) expect(now(text), JSON.stringify(text)).toBe(before(text));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.constantFrom('.', ';', 'a', '\n', '/', '%'), { maxLength: 6 }).map((chars) => chars.join(''))), (text) => now(text) === before(text)),
      { numRuns: 5_000 },
    );
  });
});
