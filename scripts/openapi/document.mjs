// The OpenAPI 3.1 document of the provider's API, built from the SDK's own operation declarations
// (`openbanking-ng/schemas`): the SDK's JSON Schema conversion of every body, query, path parameter and
// response (`toJsonSchema`, named in convert.mjs), written as the wire carries them (wire.mjs), the `{status, message, data}`
// envelope around each response, the spec's error bodies for every status the client handles
// (errors.mjs), headers, servers and OAuth 2.0 scopes. Pure: the same declarations give the same document.
import * as z from 'zod/mini';
import { convert, membersOf, pascal, ref } from './convert.mjs';
import { errorComponents } from './errors.mjs';
import { describeSecrets, headerParameters, pathText, SECRET_FIELDS, TOLERATED } from './wire.mjs';

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

/** The status the provider answers a success with: 201 for creates, 200 otherwise. */
const successStatus = (name, op) => String(op.status ?? (op.method === 'POST' && name.endsWith('.create') ? 201 : 200));

/** The path and query parameters of `op`: path parameters as the URL's text, query members as the client's schema types them. */
function parametersOf(op, toJsonSchema) {
  const path = membersOf(op.params, toJsonSchema).map(([name, schema]) => ({ name, in: 'path', required: true, schema: pathText(name, schema) }));
  const query = membersOf(op.query, toJsonSchema).map(([name, { description, ...schema }, required]) => ({ name, in: 'query', required, ...(description ? { description } : {}), schema }));
  return [...path, ...query];
}

/** `data` of `name`'s success answer: the documented shape, or it and the shapes the client reads as it. */
function dataOf(name, components) {
  const documented = ref('schemas', `${pascal(name)}Data`);
  const tolerated = TOLERATED[name]?.(components[`${pascal(name)}Data`], documented);
  return tolerated ? { anyOf: [documented, ...tolerated] } : documented;
}

/** Drops the schema components nothing refers to any more (a shared piece whose only users became secret members). */
function pruneSchemas(doc) {
  const schemas = doc.components.schemas;
  const reached = new Set();
  const walk = (value) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    const name = typeof value.$ref === 'string' && value.$ref.startsWith('#/components/schemas/') ? value.$ref.slice('#/components/schemas/'.length) : undefined;
    if (name !== undefined && !reached.has(name)) {
      reached.add(name);
      walk(schemas[name]);
    }
    Object.values(value).forEach(walk);
  };
  walk({ ...doc, components: { ...doc.components, schemas: {} } });
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  return doc;
}

/**
 * The OpenAPI 3.1 document for `operations`, written with `toJsonSchema` and `toJsonSchemas` (the
 * exports of `openbanking-ng/schemas`, the module `operations` comes from).
 * @param {{ operations: Record<string, any>, scopes: readonly string[], version: string, toJsonSchema: Function, toJsonSchemas: Function }} input
 */
export function buildDocument({ operations, scopes, version, toJsonSchema, toJsonSchemas }) {
  const names = Object.keys(operations).sort();
  const inputs = z.registry();
  const outputs = z.registry();
  for (const name of names) {
    const op = operations[name];
    if (op.body) inputs.add(op.body, { id: `${pascal(name)}Body` });
    if (op.response) outputs.add(op.response, { id: `${pascal(name)}Data` });
  }
  const schemas = { ...convert(inputs, toJsonSchemas), ...convert(outputs, toJsonSchemas) };
  // Each shape the client reads besides the documented one is described, or the build stops.
  for (const name of names) {
    if (Boolean(operations[name].reshape) !== Boolean(TOLERATED[name])) throw new Error(`openapi: ${name} ${operations[name].reshape ? 'reads other shapes of data: describe them in TOLERATED' : 'has TOLERATED shapes but no reshape'} (scripts/openapi/wire.mjs)`);
  }
  for (const [name, secret] of Object.entries(SECRET_FIELDS)) {
    if (!operations[name]) throw new Error(`openapi: SECRET_FIELDS names ${name}, which is no operation`);
    if (secret.body) describeSecrets(schemas, `${pascal(name)}Body`, secret.body);
    if (secret.data) describeSecrets(schemas, `${pascal(name)}Data`, secret.data);
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
        data: op.response ? dataOf(name, schemas) : {},
      },
      additionalProperties: {},
    };
    const operation = {
      operationId: name,
      summary: `${name} (${op.token === 'customer' ? "customer's token" : op.token === 'client' ? 'client-credentials token' : "client-credentials or customer's token"})`,
      tags: [name.split('.')[0]],
      security: [{ oauth2: [...op.scopes] }],
      parameters: [...parametersOf(op, toJsonSchema), ref('parameters', 'IdempotencyKey'), ref('parameters', 'Signature'), ref('parameters', 'ConnectionId')],
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', `${pascal(name)}Body`) } } } } : {}),
      responses: {
        [status]: { description: 'Success: the `{status, message, data}` envelope', content: { 'application/json': { schema: envelope } } },
        ...errors.byStatus,
      },
      'x-openbanking-token': op.token,
      ...(op.unofficial ? { 'x-openbanking-unofficial': true } : {}),
    };
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation;
  }
  return pruneSchemas({
    openapi: '3.1.0',
    info: {
      title: 'Open Banking Nigeria API (Sparkle)',
      version: '1',
      description:
        `Generated by openbanking-ng ${version} from the schemas its client validates with, as the wire carries them: secret card fields as the configured cipher's strings, ` +
        'the answer shapes the client tolerates as alternatives, every status it handles. The provider publishes no machine-readable description: ' +
        'operations marked `x-openbanking-unofficial` rest on integrator code rather than the provider\'s pages.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: SANDBOX_API, description: 'Sandbox' },
      { url: 'https://{gateway}/openapi/v1', description: 'Production: the gateway host of your registration (`api_base_url`)', variables: { gateway: { default: 'api.example.com' } } },
    ],
    security: [{ oauth2: [] }],
    paths,
    components: {
      schemas: { ...schemas, ...errors.schemas },
      responses: errors.responses,
      parameters: headerParameters(),
      securitySchemes: securitySchemes(scopes),
    },
  });
}
