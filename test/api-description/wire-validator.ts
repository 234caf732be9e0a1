import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

// A small validating proxy's view of openapi.json, for the tests: it finds the operation of a recorded
// request and checks, with Ajv (JSON Schema 2020-12, no code shared with zod), what a proxy in front of
// the service would check: path and query parameters (as URL text, coerced to the schema's type as
// OpenAPI validators do), headers, the request body, the answer's status and body.

/** One request and its answer, as they crossed the wire. */
export interface Exchange {
  method: string;
  /** The full URL, as sent (encoded). */
  url: string;
  /** Request headers, lower-case names. */
  headers: Record<string, string>;
  /** Request body text ('' for none). */
  body: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: unknown;
}
interface Operation {
  operationId: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
}
/** The parts of the document the validator reads. */
export interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Parameter>; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>; schemas: Record<string, unknown> };
}

/** The committed openapi.json. */
export const committedDocument = (): ApiDocument => JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as ApiDocument;

const ID = 'https://openbanking-ng.local/openapi.json';
const escape = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
/** A JSON pointer into the document, as a `$ref` Ajv resolves. */
export const pointer = (...parts: string[]) => `${ID}#/${parts.map(escape).join('/')}`;
const local = (ref: string) => `${ID}${ref}`;

/** The validator of `doc`, for requests sent under `basePath`. */
export function documentValidator(doc: ApiDocument = committedDocument(), basePath = '/openapi/v1') {
  const strict = new Ajv2020({ strict: false, allErrors: true });
  // OpenAPI validators read a parameter's text as the schema's type ("2" for an integer page).
  const coercing = new Ajv2020({ strict: false, allErrors: true, coerceTypes: true });
  for (const ajv of [strict, coercing]) ajv.addSchema({ ...doc, $id: ID });
  const cache = new Map<string, ValidateFunction>();
  const compiled = (ajv: Ajv2020, ref: string) => {
    const key = `${ajv === coercing ? 'c' : 's'}${ref}`;
    let fn = cache.get(key);
    // Wrapped in an object so that a coerced scalar is checked as coerced.
    if (!fn) cache.set(key, (fn = ajv.compile({ type: 'object', properties: { value: { $ref: ref } }, required: ['value'] })));
    return fn;
  };

  /** Undefined when `value` meets the schema at `ref`, else Ajv's account of why not. */
  function check(ref: string, value: unknown, coerce = false): string | undefined {
    const ajv = coerce ? coercing : strict;
    const fn = compiled(ajv, ref);
    if (fn({ value })) return undefined;
    return ajv.errorsText(fn.errors?.map((e) => ({ ...e, instancePath: e.instancePath.replace(/^\/value/, '') })), { dataVar: 'value' });
  }

  /** The operation a request names: its template, method and path parameters (decoded). */
  function operationOf(method: string, path: string) {
    for (const [template, item] of Object.entries(doc.paths)) {
      const op = item[method.toLowerCase()];
      const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
      const m = op ? pattern.exec(path) : null;
      if (op && m) return { template, method: method.toLowerCase(), op, params: Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)])) };
    }
    return undefined;
  }

  /** The parameters of an operation, each with the pointer to its schema. */
  function parametersOf(template: string, method: string, op: Operation) {
    return (op.parameters ?? []).map((p, i) => {
      if ('$ref' in p) {
        const name = p.$ref.split('/').pop()!;
        return { ...doc.components.parameters[name]!, schemaRef: pointer('components', 'parameters', name, 'schema') };
      }
      return { ...p, schemaRef: pointer('paths', template, method, 'parameters', String(i), 'schema') };
    });
  }

  /** The declared response for `status` (exact, then `5XX`-style, then `default`), as the pointer parts of its Response Object. */
  function responseOf(template: string, method: string, op: Operation, status: number) {
    for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
      const declared = op.responses[key];
      if (!declared) continue;
      const name = declared.$ref?.split('/').pop();
      const base = name ? ['components', 'responses', name] : ['paths', template, method, 'responses', key];
      const object = name ? doc.components.responses[name]! : declared;
      return { base, headers: Object.keys(object.headers ?? {}), body: object.content ? pointer(...base, 'content', 'application/json', 'schema') : undefined };
    }
    return undefined;
  }

  /** What a validating proxy would refuse in `e`, request and answer alike: `[]` when nothing. */
  function checkExchange(e: Exchange): { operationId: string | undefined; problems: string[] } {
    const url = new URL(e.url);
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    const found = operationOf(e.method, path);
    if (!found) return { operationId: undefined, problems: [`${e.method} ${path}: no operation of the document`] };
    const { template, method, op, params } = found;
    const problems: string[] = [];
    const say = (what: string) => problems.push(`${op.operationId} ${e.status} ${what}`);
    const declared = parametersOf(template, method, op);
    for (const p of declared) {
      const value = p.in === 'path' ? params[p.name] : p.in === 'query' ? url.searchParams.get(p.name) : e.headers[p.name.toLowerCase()];
      if (value === undefined || value === null) {
        if (p.required) say(`${p.in} ${p.name}: missing`);
        continue;
      }
      const wrong = check(p.schemaRef, value, true);
      if (wrong) say(`${p.in} ${p.name} ${JSON.stringify(value)}: ${wrong}`);
    }
    for (const key of url.searchParams.keys()) if (!declared.some((p) => p.in === 'query' && p.name === key)) say(`query ${key}: not declared`);
    if (op.requestBody) {
      if (e.body === '') {
        if (op.requestBody.required) say('request body: missing');
      } else {
        const wrong = check(pointer('paths', template, method, 'requestBody', 'content', 'application/json', 'schema'), JSON.parse(e.body));
        if (wrong) say(`request body: ${wrong}`);
      }
    } else if (e.body !== '') say('request body: none is declared');
    const response = responseOf(template, method, op, e.status);
    if (!response) {
      say('status: not declared');
    } else {
      for (const name of response.headers) {
        const value = e.responseHeaders[name.toLowerCase()];
        const wrong = value === undefined ? undefined : check(pointer(...response.base, 'headers', name, 'schema'), value, true);
        if (wrong) say(`answer header ${name}: ${wrong}`);
      }
      if (response.body) {
        if (!/^application\/json\b/.test(e.responseHeaders['content-type'] ?? '')) say(`answer content-type ${e.responseHeaders['content-type']}: not JSON`);
        else {
          const wrong = check(response.body, JSON.parse(e.responseBody));
          if (wrong) say(`answer body: ${wrong}`);
        }
      }
    }
    return { operationId: op.operationId, problems };
  }

  /** The pointer to the body schema of `operationId`'s answer with `status`. */
  function answerSchema(operationId: string, status: number): string {
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op.operationId === operationId) return responseOf(template, method, op, status)!.body!;
      }
    }
    throw new Error(`no operation ${operationId}`);
  }

  /** The pointer to a path or query parameter's schema of `operationId`. */
  function parameterSchema(operationId: string, name: string): string {
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const p = op.operationId === operationId ? parametersOf(template, method, op).find((q) => q.name === name) : undefined;
        if (p) return p.schemaRef;
      }
    }
    throw new Error(`no parameter ${name} on ${operationId}`);
  }

  return { check, checkExchange, operationOf, answerSchema, parameterSchema, local };
}

/** A `fetch` that hands each request to `target` and records the exchanges under the API's base path. */
export function recordingFetch(target: (request: Request) => Promise<Response>, exchanges: Exchange[], basePath = '/openapi/v1'): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = await request.clone().text();
    const response = await target(request);
    if (new URL(request.url).pathname.startsWith(`${basePath}/`)) {
      exchanges.push({
        method: request.method,
        url: request.url,
        headers: Object.fromEntries(request.headers),
        body,
        status: response.status,
        responseHeaders: Object.fromEntries(response.headers),
        responseBody: await response.clone().text(),
      });
    }
    return response;
  };
}
