/** The OpenAPI 3.1 document for the `operations` of `openbanking-ng/schemas`, written with its `toJsonSchema` and `toJsonSchemas`. */
export function buildDocument(input: {
  operations: Record<string, unknown>;
  scopes: readonly string[];
  version: string;
  toJsonSchema: (schema: never, options?: { io?: 'input' | 'output' }) => Record<string, unknown>;
  toJsonSchemas: (registry: never, options: { io?: 'input' | 'output'; uri: (id: string) => string }) => Record<string, Record<string, unknown>>;
}): Record<string, unknown>;
