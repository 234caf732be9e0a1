// What travels where the client's schemas describe something else: the cipher's strings in place of
// plaintext secrets, the answers the client reads into the documented shape (OPERATIONS.md §4), path
// parameters as the text of the URL, and the headers the client writes.

/**
 * The members the configured cipher encrypts (OPERATIONS.md §1, docs/encryption.md), by operation:
 * in the request body and in `data`; `*` steps into a list's items.
 */
export const SECRET_FIELDS = {
  'cards.create': { body: ['card_default_pin'], data: ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] },
  'cards.list': { data: ['cards.*.card_number', 'cards.*.card_cvv2', 'cards.*.card_default_pin', 'cards.*.card_token'] },
};

const CIPHER_TEXT = 'Encrypted: the string the configured cipher sends (any string; `plaintextCipher` sends the plaintext). The plaintext\'s rule is `x-openbanking-plaintext`.';

/**
 * Rewrites `components[name]`'s secret members as the cipher's strings, each with its plaintext rule
 * under `x-openbanking-plaintext`. A `$ref` on the way is followed; a member that is not there stops
 * the build.
 */
export function describeSecrets(components, name, paths) {
  const resolve = (schema) => {
    while (schema?.$ref) schema = components[schema.$ref.split('/').pop()];
    return schema;
  };
  for (const path of paths) {
    const steps = path.split('.');
    const field = steps.pop();
    let owner = resolve(components[name]);
    for (const step of steps) owner = resolve(step === '*' ? owner?.items : owner?.properties?.[step]);
    const plain = resolve(owner?.properties?.[field]);
    if (plain?.type !== 'string') throw new Error(`openapi: secret field ${name}.${path} is not a string member of the schema`);
    owner.properties[field] = { type: 'string', description: CIPHER_TEXT, 'x-openbanking-plaintext': structuredClone(plain) };
  }
}

/**
 * The other shapes of `data` the client reads as the documented one (the `reshape` of
 * `openbanking-ng/schemas`), by operation: each takes the documented schema (its JSON Schema, and a
 * `$ref` to it) and gives the alternatives beside it.
 */
export const TOLERATED = {
  'disputes.retrieve': (list) => [{ ...list.items, description: 'A lone dispute, read as a list of one' }],
  'bills.categories.list': (_list, listRef) => [
    {
      type: 'object',
      description: 'An object whose only array member is the list, whatever its name (e.g. `{categories: […]}`), read as that list; with a second array member it is refused',
      additionalProperties: { anyOf: [listRef, { not: { type: 'array' } }] },
      // At least one member is an array.
      not: { additionalProperties: { not: { type: 'array' } } },
    },
  ],
  'savings.list': (documented) => [
    {
      type: 'object',
      description: "The API reference's name for the list, `loans`, when `savings` is absent: read as `savings`",
      required: ['loans'],
      // `savings: false`: absent.
      properties: { loans: documented.properties.savings, savings: false },
      additionalProperties: {},
    },
  ],
};

/** Number texts a path parameter's string rule must admit when the client also takes numbers there. */
const NUMBER_TEXTS = ['0', '-1', '1.5', '1e-7', '-9007199254740991', '9007199254740991'];

/**
 * A path parameter as the URL carries it: text. The client sends a number as its decimal text
 * (`String(n)`), so a member that takes strings or numbers is described by its string rule, once
 * that rule is known to admit the numbers' texts too.
 */
export function pathText(name, schema) {
  const branches = schema.anyOf ?? [schema];
  const strings = branches.filter((b) => b.type === 'string');
  const numbers = branches.filter((b) => b.type === 'number' || b.type === 'integer');
  if (strings.length !== 1 || strings.length + numbers.length !== branches.length) {
    throw new Error(`openapi: path parameter ${name} is neither a string nor a string-or-number; describe its text in scripts/openapi/wire.mjs`);
  }
  const [text] = strings;
  const admits = (value) => value.length >= (text.minLength ?? 0) && (text.pattern === undefined || new RegExp(text.pattern, 'u').test(value));
  const refused = numbers.length > 0 ? NUMBER_TEXTS.filter((t) => !admits(t)) : [];
  if (refused.length > 0) throw new Error(`openapi: path parameter ${name}'s string rule refuses the text of a number the client sends (${refused.join(', ')})`);
  const described = numbers.length > 0 ? 'Text, as the URL carries it: a string the client takes, or the decimal text of a number it takes (`String(n)`), percent-encoded' : undefined;
  return { ...text, ...(described ? { description: described } : {}) };
}

/** The headers every API call carries, as the client writes them. */
export function headerParameters() {
  return {
    IdempotencyKey: {
      name: 'idempotency-key',
      in: 'header',
      required: true,
      description: 'Makes the request idempotent: the same key and body replay the first answer. The client makes a UUID, or sends the caller\'s key (1–255 visible ASCII characters).',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    },
    Signature: {
      name: 'signature',
      in: 'header',
      required: true,
      description: 'SHA-256 of the client secret, a semicolon and the idempotency key: lowercase hex (64 characters), or padded base64 with `signatureEncoding: \'base64\'`.',
      schema: { type: 'string', pattern: '^(?:[0-9a-f]{64}|[A-Za-z0-9+/]{43}=)$' },
    },
    ConnectionId: { name: 'connection-id', in: 'header', required: false, description: 'Selects the target bank.', schema: { type: 'string', minLength: 1 } },
  };
}
