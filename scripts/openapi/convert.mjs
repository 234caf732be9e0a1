// The published schemas as the document's components and parameters. The conversion itself is the
// SDK's one (`toJsonSchema` and `toJsonSchemas` of openbanking-ng/schemas, which the MCP server's
// tools are written with too: the id rule, nullable values as `anyOf`, a refine it cannot describe
// stopping the build); here the shared pieces get their names and the members their order.

/** `accounts.transactions.list` → `AccountsTransactionsList`. */
export const pascal = (name) => name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/** A `$ref` to `#/components/<kind>/<name>`. */
export const ref = (kind, name) => ({ $ref: `#/components/${kind}/${name}` });

/**
 * Converts a registry's schemas with zod (input: what the client sends, and what it takes in from an
 * answer) and returns them as components. zod puts what several schemas share under `__shared`; each
 * such piece is named after the first component and member that uses it (`CardsCreateBodyCardExpiry`),
 * and every `$ref` points into `#/components/schemas`.
 */
export function convert(registry, toJsonSchemas) {
  const schemas = toJsonSchemas(registry, { io: 'input', uri: (id) => `#/components/schemas/${id}` });
  const shared = schemas.__shared?.$defs ?? {};
  delete schemas.__shared;
  const SHARED = /^#\/components\/schemas\/__shared#\/\$defs\/(.+)$/;
  // Name each shared piece after its first use: the component, then the nearest member name on the way.
  const names = new Map();
  const taken = new Set(Object.keys(schemas));
  const visit = (value, owner, member) => {
    if (Array.isArray(value)) return value.forEach((item) => visit(item, owner, member));
    if (value === null || typeof value !== 'object') return;
    const m = typeof value.$ref === 'string' ? SHARED.exec(value.$ref) : null;
    if (m && !names.has(m[1])) {
      let name = `${owner}${pascal(member ?? 'Item')}`;
      for (let n = 2; taken.has(name); n++) name = `${owner}${pascal(member ?? 'Item')}${n}`;
      taken.add(name);
      names.set(m[1], name);
      visit(shared[m[1]], name, undefined);
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === 'properties') for (const [prop, sub] of Object.entries(item)) visit(sub, owner, prop);
      else visit(item, owner, member);
    }
  };
  for (const [id, schema] of Object.entries(schemas)) visit(schema, id, undefined);
  const rewrite = (value) => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '$schema' || key === '$id') continue;
      const m = key === '$ref' && typeof item === 'string' ? SHARED.exec(item) : null;
      out[key] = m ? `#/components/schemas/${names.get(m[1])}` : rewrite(item);
    }
    return out;
  };
  const components = {};
  for (const [id, schema] of Object.entries(schemas)) components[id] = rewrite(schema);
  for (const [def, name] of [...names].sort((a, b) => a[1].localeCompare(b[1]))) components[name] = rewrite(shared[def]);
  return components;
}

/** The members of an object schema's JSON Schema (converted by `toJsonSchema`): `[name, schema, required]`. */
export function membersOf(schema, toJsonSchema) {
  if (!schema) return [];
  const json = toJsonSchema(schema);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { $schema: _, ...rest } = s;
    return [name, rest, required.has(name)];
  });
}
