// zod's JSON Schema conversion of the published schemas, and what zod's conversion leaves out of
// them: a `refine` is dropped by `z.toJSONSchema`, so every refine a schema carries is either
// written here as the JSON Schema it means, or stops the build (a rule the document would lose).
import * as z from 'zod/mini';

/** `accounts.transactions.list` → `AccountsTransactionsList`. */
export const pascal = (name) => name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/** A `$ref` to `#/components/<kind>/<name>`. */
export const ref = (kind, name) => ({ $ref: `#/components/${kind}/${name}` });

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The refines the document can describe, by their function: `Number.isSafeInteger` on a number is
 * the client's id rule (a whole number within ±(2^53 − 1): one beyond was rounded by JSON parsing).
 */
const REFINES = new Map([
  [
    Number.isSafeInteger,
    (type, json) => {
      if (type !== 'number') return false;
      json.type = 'integer';
      json.minimum = Math.max(json.minimum ?? -SAFE, -SAFE);
      json.maximum = Math.min(json.maximum ?? SAFE, SAFE);
      return true;
    },
  ],
]);

/** zod's `override` hook: writes each known refine into the JSON Schema, and refuses any other. */
function describeRefines({ zodSchema, jsonSchema }) {
  const def = zodSchema._zod.def;
  for (const check of def.checks ?? []) {
    const { check: kind, fn } = check._zod.def;
    if (kind !== 'custom') continue;
    if (!REFINES.get(fn)?.(def.type, jsonSchema)) {
      throw new Error(`openapi: a ${def.type} schema carries a refine the document cannot describe (${fn?.name || 'anonymous'}): add it to REFINES in scripts/openapi/convert.mjs, or use zod's own checks`);
    }
  }
}

/** `{anyOf: [{anyOf: [a, b]}, c]}` → `{anyOf: [a, b, c]}`: a nullable union written as one list. */
function flattenAnyOf(value) {
  if (Array.isArray(value)) return value.map(flattenAnyOf);
  if (value === null || typeof value !== 'object') return value;
  const out = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, flattenAnyOf(item)]));
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.flatMap((branch) => (Object.keys(branch).length === 1 && Array.isArray(branch.anyOf) ? branch.anyOf : [branch]));
  return out;
}

/** zod's JSON Schema of one schema, as the wire carries its input. */
export function toJson(schema) {
  return flattenAnyOf(z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', override: describeRefines }));
}

/**
 * Converts a registry's schemas with zod (input: what the client sends, and what it takes in from an
 * answer) and returns them as components. zod puts what several schemas share under `__shared`; each
 * such piece is named after the first component and member that uses it (`CardsCreateBodyCardExpiry`),
 * and every `$ref` points into `#/components/schemas`.
 */
export function convert(registry) {
  const { schemas } = z.toJSONSchema(registry, { io: 'input', reused: 'ref', target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}`, override: describeRefines });
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
  for (const [id, schema] of Object.entries(schemas)) components[id] = flattenAnyOf(rewrite(schema));
  for (const [def, name] of [...names].sort((a, b) => a[1].localeCompare(b[1]))) components[name] = flattenAnyOf(rewrite(shared[def]));
  return components;
}

/** The members of an object schema's JSON Schema: `[name, schema, required]`, descriptions apart. */
export function membersOf(schema) {
  if (!schema) return [];
  const json = toJson(schema);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { $schema: _, ...rest } = s;
    return [name, rest, required.has(name)];
  });
}
