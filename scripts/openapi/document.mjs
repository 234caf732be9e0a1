// The OpenAPI 3.1 document of the provider's API, built from the SDK's own operation declarations
// (`openbanking-ng/schemas`): zod's JSON Schema conversion for every body, query, path parameter and
// response, the `{status, message, data}` envelope around each response, the spec's error bodies,
// headers, servers and OAuth 2.0 scopes. Pure: the same declarations give the same document.
import * as z from 'zod/mini';

const SANDBOX_API = 'https://api-sandbox.sparkle.fyi/openapi/v1';
const SANDBOX_IDENTITY = 'https://identity-sandbox.sparkle.fyi';

/** The scopes the spec describes in words (the authorization flow's); the others are named in its security scheme. */
const SCOPE_WORDS = {
  accounts: 'Read account information and balances',
  payments: 'Initiate payments and transfers',
  transactions: 'Read transaction history',
  standing_orders: 'Manage standing orders',
  openid: 'OpenID Connect sign-in',
};

/** `accounts.transactions.list` → `AccountsTransactionsList`. */
const pascal = (name) => name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

const ref = (kind, name) => ({ $ref: `#/components/${kind}/${name}` });

/**
 * The error bodies of the spec, by status. 400 has two shapes; 404 and 429 bodies are not documented
 * and take the common one, with no response code made up for them.
 */
function errorComponents() {
  const code = (example) => ({ type: 'string', description: 'ISO 8583-style response code', ...(example ? { examples: [example] } : {}) });
  const common = (example) => ({
    type: 'object',
    required: ['status', 'message'],
    properties: { status: code(example), message: { type: 'string' }, data: { type: ['object', 'null'], additionalProperties: {} } },
    additionalProperties: {},
  });
  const schemas = {
    BadRequestError: {
      description: 'A 400 body: the seed spec\'s shape (`error_code`, e.g. `MISSING_FIELD`), or the general description\'s (`errors[]`).',
      oneOf: [
        {
          type: 'object',
          required: ['status', 'error_code', 'message'],
          properties: { status: code('01'), error_code: { type: 'string', examples: ['MISSING_FIELD'] }, message: { type: 'string' }, data: { type: ['object', 'null'], additionalProperties: {} } },
          additionalProperties: {},
        },
        {
          type: 'object',
          required: ['status', 'message', 'errors'],
          properties: {
            status: { type: 'string', examples: ['error'] },
            message: { type: 'string' },
            errors: {
              type: 'array',
              items: { type: 'object', required: ['code', 'message'], properties: { field: { type: 'string' }, code: { type: 'string', examples: ['INVALID_AMOUNT'] }, message: { type: 'string' } }, additionalProperties: {} },
            },
          },
          additionalProperties: {},
        },
      ],
    },
    UnauthorizedError: common('02'),
    ForbiddenError: common('03'),
    NotFoundError: common(),
    TooManyRequestsError: common(),
    InternalServerError: common('05'),
  };
  const response = (description, schema, headers) => ({ description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: ref('schemas', schema) } } });
  const responses = {
    BadRequest: response('Bad request: a field is missing or invalid (`status` 01), or the idempotency key was reused with another body', 'BadRequestError'),
    Unauthorized: response('The bearer token or the signature was refused (`status` 02)', 'UnauthorizedError'),
    Forbidden: response('The token lacks the operation\'s scope or consent (`status` 03)', 'ForbiddenError'),
    NotFound: response('No such resource or path', 'NotFoundError'),
    TooManyRequests: response('Rate limit exceeded', 'TooManyRequestsError', {
      'Retry-After': { description: 'Seconds to wait, or an HTTP date', schema: { type: 'string' } },
    }),
    InternalServerError: response('The service failed (`status` 05)', 'InternalServerError'),
  };
  return { schemas, responses };
}

/** The headers every API call carries. */
function headerParameters() {
  return {
    IdempotencyKey: { name: 'idempotency-key', in: 'header', required: true, description: 'Makes the request idempotent: the same key and body replay the first answer.', schema: { type: 'string' } },
    Signature: {
      name: 'signature',
      in: 'header',
      required: true,
      description: 'SHA-256 of the client secret, a semicolon and the idempotency key (lowercase hex unless the provider says otherwise).',
      schema: { type: 'string' },
    },
    ConnectionId: { name: 'connection-id', in: 'header', required: false, description: 'Selects the target bank.', schema: { type: 'string' } },
  };
}

function securitySchemes(scopes) {
  const described = Object.fromEntries([...scopes].sort().map((s) => [s, SCOPE_WORDS[s] ?? `Scope \`${s}\` of the spec's security scheme`]));
  return {
    oauth2: {
      type: 'oauth2',
      description: 'OAuth 2.0 with `client_secret_post` client authentication. Device authorization (RFC 8628) starts at `x-device-authorization-url`.',
      flows: {
        authorizationCode: { authorizationUrl: `${SANDBOX_IDENTITY}/oauth/authorize`, tokenUrl: `${SANDBOX_IDENTITY}/oauth/token`, refreshUrl: `${SANDBOX_IDENTITY}/oauth/token`, scopes: described },
        clientCredentials: { tokenUrl: `${SANDBOX_IDENTITY}/oauth2/token`, scopes: described },
      },
      'x-device-authorization-url': `${SANDBOX_IDENTITY}/oauth2/device/code`,
    },
  };
}

/**
 * Converts the registry's schemas with zod (`io`: input for what is sent, output for what is read) and
 * returns them as components. zod puts what several schemas share under `__shared`; each such piece is
 * named after the first component and member that uses it (`CardsCreateBodyCardExpiry`), and every
 * `$ref` points into `#/components/schemas`.
 */
function convert(registry, io) {
  const { schemas } = z.toJSONSchema(registry, { io, reused: 'ref', target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` });
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

/** The members of an object schema's input JSON Schema, as parameters `where` (`path` or `query`). */
function parametersOf(schema, where) {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { $schema: _, description, ...rest } = s;
    return { name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** The status the provider answers a success with: 201 for creates, 200 otherwise. */
const successStatus = (name, op) => String(op.status ?? (op.method === 'POST' && name.endsWith('.create') ? 201 : 200));

/**
 * The OpenAPI 3.1 document for `operations` (the `operations` export of `openbanking-ng/schemas`).
 * @param {{ operations: Record<string, any>, scopes: readonly string[], version: string }} input
 */
export function buildDocument({ operations, scopes, version }) {
  const names = Object.keys(operations).sort();
  const inputs = z.registry();
  const outputs = z.registry();
  for (const name of names) {
    const op = operations[name];
    if (op.body) inputs.add(op.body, { id: `${pascal(name)}Body` });
    if (op.response) outputs.add(op.response, { id: `${pascal(name)}Data` });
  }
  const errors = errorComponents();
  const paths = {};
  for (const name of names) {
    const op = operations[name];
    const status = successStatus(name, op);
    // Success is the HTTP status alone; `status` ('00' or 'success') and `message` are left out on some
    // of the provider's pages and never read: only `data` is required (OPERATIONS.md Q2).
    const envelope = {
      type: 'object',
      required: ['data'],
      properties: {
        status: { type: 'string', description: 'Response code, `00` or `success`; not read', examples: ['00', 'success'] },
        message: { type: 'string', description: 'Human-readable text, often copied across pages; not read' },
        data: op.response ? ref('schemas', `${pascal(name)}Data`) : {},
      },
      additionalProperties: {},
    };
    const operation = {
      operationId: name,
      summary: `${name} (${op.token === 'customer' ? "customer's token" : op.token === 'client' ? 'client-credentials token' : "client-credentials or customer's token"})`,
      tags: [name.split('.')[0]],
      security: [{ oauth2: [...op.scopes] }],
      parameters: [...parametersOf(op.params, 'path'), ...parametersOf(op.query, 'query'), ref('parameters', 'IdempotencyKey'), ref('parameters', 'Signature'), ref('parameters', 'ConnectionId')],
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', `${pascal(name)}Body`) } } } } : {}),
      responses: {
        [status]: { description: 'Success: the `{status, message, data}` envelope', content: { 'application/json': { schema: envelope } } },
        400: ref('responses', 'BadRequest'),
        401: ref('responses', 'Unauthorized'),
        403: ref('responses', 'Forbidden'),
        404: ref('responses', 'NotFound'),
        429: ref('responses', 'TooManyRequests'),
        500: ref('responses', 'InternalServerError'),
      },
      'x-openbanking-token': op.token,
      ...(op.unofficial ? { 'x-openbanking-unofficial': true } : {}),
    };
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Open Banking Nigeria API (Sparkle)',
      version: '1',
      description:
        `Generated by openbanking-ng ${version} from the schemas its client validates with. The provider publishes no machine-readable description: ` +
        'operations marked `x-openbanking-unofficial` rest on integrator code rather than the provider\'s pages.',
    },
    servers: [
      { url: SANDBOX_API, description: 'Sandbox' },
      { url: 'https://{gateway}/openapi/v1', description: 'Production: the gateway host of your registration (`api_base_url`)', variables: { gateway: { default: 'api.example.com' } } },
    ],
    security: [{ oauth2: [] }],
    paths,
    components: {
      schemas: { ...convert(inputs, 'input'), ...convert(outputs, 'output'), ...errors.schemas },
      responses: errors.responses,
      parameters: headerParameters(),
      securitySchemes: securitySchemes(scopes),
    },
  };
}
