// OpenAI's published rules for strict function calling (Structured Outputs, "Supported schemas"),
// as a check: the root is an object, not `anyOf`; every object sets `additionalProperties: false`
// and lists every property in `required` (an optional one is a union with null); the types string,
// number, integer, boolean, object, array and null, `enum`, `const` and `anyOf`; per type only the
// supported keywords (string: pattern, and format date-time, time, date, duration, email, hostname,
// ipv4, ipv6 or uuid; number: multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum;
// array: minItems, maxItems); at most 10 levels of nesting and 5,000 properties; at most 1,000
// enum values; at most 120,000 characters of property names, enum and const values. Shared by the
// vitest suite and the agent frameworks' tests (which run on Node 22, outside vitest).

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const ANY = new Set(['type', 'description', 'title', 'enum', 'const', 'anyOf', '$ref', '$defs']);
const NUMBER = ['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'];
/** @type {Record<string, Set<string>>} */
const BY_TYPE = {
  string: new Set(['pattern', 'format']),
  number: new Set(NUMBER),
  integer: new Set(NUMBER),
  array: new Set(['items', 'minItems', 'maxItems']),
  object: new Set(['properties', 'required', 'additionalProperties']),
};

/**
 * What OpenAI's strict mode would refuse in `schema` (a function's `parameters`), one line each.
 * @param {Record<string, unknown>} schema
 * @returns {string[]}
 */
export function openAiStrictProblems(schema) {
  /** @type {string[]} */
  const problems = [];
  let properties = 0;
  let enums = 0;
  let text = 0;
  if (schema.type !== 'object' || 'anyOf' in schema) problems.push('root: must be an object, not anyOf');
  /** @param {unknown} node @param {string} path @param {number} depth */
  const visit = (node, path, depth) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return void problems.push(`${path}: a schema must be an object`);
    const n = /** @type {Record<string, any>} */ (node);
    const type = n.type;
    if (type !== undefined && (typeof type !== 'string' || !TYPES.has(type))) problems.push(`${path}: type ${JSON.stringify(type)} is not supported`);
    if (type === undefined && !Array.isArray(n.anyOf) && !('$ref' in n) && !('enum' in n) && !('const' in n)) problems.push(`${path}: no type`);
    const allowed = new Set([...ANY, ...(typeof type === 'string' ? (BY_TYPE[type] ?? []) : [])]);
    for (const key of Object.keys(n)) if (!allowed.has(key)) problems.push(`${path}: keyword ${key} is not supported${typeof type === 'string' ? ` for ${type}` : ''}`);
    if (typeof n.format === 'string' && !FORMATS.has(n.format)) problems.push(`${path}: format ${n.format} is not supported`);
    if (Array.isArray(n.enum)) {
      enums += n.enum.length;
      text += n.enum.map(String).join('').length;
    }
    if (n.const !== undefined) text += String(n.const).length;
    if (type === 'object') {
      if (depth > 10) problems.push(`${path}: more than 10 levels of nesting`);
      if (n.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
      const members = Object.entries(n.properties ?? {});
      const required = new Set(n.required ?? []);
      for (const [name, member] of members) {
        properties++;
        text += name.length;
        if (!required.has(name)) problems.push(`${path}.${name}: every property must be in required`);
        visit(member, `${path}.${name}`, depth + 1);
      }
      for (const name of required) if (!members.some(([member]) => member === name)) problems.push(`${path}: required names ${name}, which is no property`);
    }
    if (Array.isArray(n.anyOf)) n.anyOf.forEach((branch, i) => visit(branch, `${path}|${i}`, depth));
    if (n.items !== undefined) visit(n.items, `${path}[]`, depth);
  };
  visit(schema, '$', 1);
  if (properties > 5_000) problems.push(`more than 5,000 properties (${properties})`);
  if (enums > 1_000) problems.push(`more than 1,000 enum values (${enums})`);
  if (text > 120_000) problems.push(`more than 120,000 characters of names and values (${text})`);
  return problems;
}
