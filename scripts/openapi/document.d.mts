/** The OpenAPI 3.1 document for the `operations` of `openbanking-ng/schemas`. */
export function buildDocument(input: { operations: Record<string, unknown>; scopes: readonly string[]; version: string }): Record<string, unknown>;
