// The refusals: the spec's error bodies, and every status the client handles. The spec lists the
// members of each body and marks none of them required, so none is; 404, 408 and 429 bodies are not
// documented and take the common shape, with no response code made up for them.
import { ref } from './convert.mjs';

const code = (example) => ({ type: 'string', description: 'ISO 8583-style response code', ...(example ? { examples: [example] } : {}) });
const message = { type: 'string', description: 'Human-readable text' };
const data = { type: ['object', 'null'], description: 'Extra information about the error', additionalProperties: {} };

/** `{status, message, data}`: the spec's body for 401, 403 and 500. */
const common = (example) => ({ type: 'object', properties: { status: code(example), message, data }, additionalProperties: {} });

/** The error schemas, by name. */
function errorSchemas() {
  return {
    BadRequestError: {
      description: "A 400 body: the seed spec's shape (`error_code`, e.g. `MISSING_FIELD`), or the general description's (`errors[]`). No member is marked required.",
      anyOf: [
        { type: 'object', properties: { status: code('01'), error_code: { type: 'string', examples: ['MISSING_FIELD'] }, message, data }, additionalProperties: {} },
        {
          type: 'object',
          properties: {
            status: { type: 'string', examples: ['error'] },
            message,
            errors: {
              type: 'array',
              items: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'string', examples: ['INVALID_AMOUNT'] }, message }, additionalProperties: {} },
            },
          },
          additionalProperties: {},
        },
      ],
    },
    UnauthorizedError: common('02'),
    ForbiddenError: common('03'),
    NotFoundError: common(),
    RequestTimeoutError: common(),
    TooManyRequestsError: common(),
    InternalServerError: common('05'),
  };
}

const retryAfter = { 'Retry-After': { description: 'Seconds to wait, or an HTTP date; the client waits that long before its next attempt', schema: { type: 'string' } } };

/** The error responses, by name, with the status each is declared under on every operation. */
const RESPONSES = [
  ['400', 'BadRequest', 'Bad request: a field is missing or invalid (`status` 01), or the idempotency key was reused with another body', 'BadRequestError'],
  ['401', 'Unauthorized', 'The bearer token or the signature was refused (`status` 02)', 'UnauthorizedError'],
  ['403', 'Forbidden', "The token lacks the operation's scope or consent (`status` 03)", 'ForbiddenError'],
  ['404', 'NotFound', 'No such resource or path', 'NotFoundError'],
  ['408', 'RequestTimeout', 'The service gave up waiting for the request: the client sends it again with the same idempotency key', 'RequestTimeoutError', retryAfter],
  ['429', 'TooManyRequests', 'Rate limit exceeded: the client waits (`Retry-After`) and sends it again with the same idempotency key', 'TooManyRequestsError', retryAfter],
  ['500', 'InternalServerError', 'The service failed (`status` 05): the client sends it again with the same idempotency key', 'InternalServerError', retryAfter],
  ['5XX', 'ServerError', 'Another server error (502, 503, 504, …), with the 500 body: the client sends it again with the same idempotency key', 'InternalServerError', retryAfter],
];

/** `{schemas, responses}` of the components, and `byStatus`: the `$ref` of every error response by status. */
export function errorComponents() {
  const responses = {};
  const byStatus = {};
  for (const [status, name, description, schema, headers] of RESPONSES) {
    responses[name] = { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: ref('schemas', schema) } } };
    byStatus[status] = ref('responses', name);
  }
  return { schemas: errorSchemas(), responses, byStatus };
}
