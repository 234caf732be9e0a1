import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { SCOPES } from '../../src/index.js';
import { operations, toJsonSchema, toJsonSchemas } from '../../src/schemas.js';
import { buildDocument } from '../../scripts/openapi/document.mjs';
import { BASE, http, HttpResponse, testClient, tokenHandler, useMsw } from '../support/msw.js';

// DESIGN "The API described": `openbanking-ng/schemas` and the committed openapi.json.

const root = new URL('../../', import.meta.url);
const committed = JSON.parse(readFileSync(new URL('openapi.json', root), 'utf8')) as {
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string; security: { oauth2: string[] }[]; responses: Record<string, unknown>; 'x-openbanking-unofficial'?: boolean }>>;
  components: { securitySchemes: { oauth2: { flows: Record<string, { scopes: Record<string, string> }>; 'x-device-authorization-url'?: string } } };
};
const version = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string }).version;

/** The rows of docs/operations.md: name, method, path and scopes as the page shows them. */
function pageRows() {
  const page = readFileSync(new URL('docs/operations.md', root), 'utf8');
  return [...page.matchAll(/^\| `([\w.]+)\(.*?\)` \| `(\w+) (\S+?)[` ].*?\| .*? \| (.*?) \| /gm)].map((m) => ({
    name: m[1]!,
    method: m[2]!,
    path: m[3]!,
    scopes: [...m[4]!.matchAll(/`([^`]+)`/g)].map((s) => s[1]!),
  }));
}

describe('openbanking-ng/schemas', () => {
  it('has all 26 typed operations, each with the method, path and scopes of docs/operations.md', () => {
    const rows = pageRows();
    expect(rows).toHaveLength(26);
    expect(Object.keys(operations).sort()).toEqual(rows.map((r) => r.name).sort());
    for (const row of rows) {
      const op = operations[row.name as keyof typeof operations];
      expect({ method: op.method, path: op.path, scopes: [...op.scopes] }, row.name).toEqual({ method: row.method, path: row.path, scopes: row.scopes });
    }
  });

  it('every schema converts with z.toJSONSchema, input and output, with no unrepresentable part', () => {
    let converted = 0;
    for (const [name, op] of Object.entries(operations)) {
      for (const part of ['params', 'query', 'body', 'response'] as const) {
        const schema = (op as unknown as Record<string, z.ZodMiniType | undefined>)[part];
        if (!schema) continue;
        for (const io of ['input', 'output'] as const) {
          expect(() => z.toJSONSchema(schema, { io, unrepresentable: 'throw' }), `${name} ${part} ${io}`).not.toThrow();
          converted++;
        }
      }
    }
    expect(converted).toBeGreaterThan(26 * 2);
  });

  it('the schemas are the ones the client runs on: a form checks a card body as the client would', () => {
    const good = { account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } };
    expect(operations['cards.create'].body.safeParse(good).success).toBe(true);
    const bad = operations['cards.create'].body.safeParse({ ...good, card_expiry: { month: '13', year: '2029' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['card_expiry.month']);
    expect(operations['accounts.transactions.list'].params?.safeParse({ account_number: '..' }).success).toBe(false);
  });
});

describe('openapi.json', () => {
  it('is what a fresh generation from the declarations gives (run `npm run build` and commit it otherwise)', () => {
    expect(buildDocument({ operations, scopes: SCOPES, version, toJsonSchema, toJsonSchemas })).toEqual(committed);
  });

  it('is valid OpenAPI 3.1 for an independent validator', async () => {
    const result = await new Validator().validate(structuredClone(committed));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names every operation once, with its scopes, the envelope and the error bodies; marks the unofficial one; offers every scope of the spec', () => {
    const ops = Object.values(committed.paths).flatMap((item) => Object.values(item));
    expect(ops.map((o) => o.operationId).sort()).toEqual(Object.keys(operations).sort());
    for (const op of ops) {
      expect(op.security).toEqual([{ oauth2: [...operations[op.operationId as keyof typeof operations].scopes] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '404', '429', '500']));
    }
    expect(ops.filter((o) => o['x-openbanking-unofficial']).map((o) => o.operationId)).toEqual(['transfers.create']);
    expect(committed.paths['/cards']!.post!.responses).toHaveProperty('201');
    const { flows } = committed.components.securitySchemes.oauth2;
    expect(Object.keys(flows).sort()).toEqual(['authorizationCode', 'clientCredentials']);
    for (const flow of Object.values(flows)) expect(Object.keys(flow.scopes).sort()).toEqual([...SCOPES].sort());
    expect(committed.components.securitySchemes.oauth2['x-device-authorization-url']).toMatch(/\/oauth2\/device\/code$/);
    expect(committed.servers.map((s) => s.url)).toEqual(['https://api-sandbox.sparkle.fyi/openapi/v1', 'https://{gateway}/openapi/v1']);
  });
});

describe('openapi.json describes the answers the client takes', () => {
  const server = useMsw();
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema({ ...committed, $id: 'https://openbanking-ng.local/openapi.json' });
  const success = (path: string, method: string, status: string) =>
    `https://openbanking-ng.local/openapi.json#/paths/${path.replace(/\//g, '~1')}/${method}/responses/${status}/content/application~1json/schema`;

  it('the envelope requires `data` only: the client decides success by the HTTP status and never reads `status` or `message` (OPERATIONS.md Q2)', async () => {
    const answers = [{ data: { accounts: [] } }, { status: 'success', data: { accounts: [] } }, { status: '00', message: 'Account details retrieved successfully', data: { accounts: [] } }];
    server.use(tokenHandler({ tokenRequests: [] }), http.get(`${BASE}/accounts`, () => HttpResponse.json(answers.shift())));
    const { ob } = testClient();
    const session = ob.forCustomer({ access_token: 'customer-at', token_type: 'Bearer', expires_in: 3600 });
    for (const body of [...answers]) {
      await expect(session.accounts.list()).resolves.toEqual({ accounts: [] });
      expect(ajv.validate({ $ref: success('/accounts', 'get', '200') }, body), `${JSON.stringify(body)}: ${ajv.errorsText()}`).toBe(true);
    }
    expect(ajv.validate({ $ref: success('/accounts', 'get', '200') }, { status: '00', message: 'ok' })).toBe(false);
  });

  it('the error bodies carry the response codes the spec illustrates, and none for 404 and 429, whose bodies it does not show', () => {
    const schemas = (committed as unknown as { components: { schemas: Record<string, { properties?: { status?: { examples?: string[] } }; oneOf?: unknown[]; anyOf?: unknown[] }> } }).components.schemas;
    const example = (name: string) => schemas[name]?.properties?.status?.examples;
    expect([example('UnauthorizedError'), example('ForbiddenError'), example('InternalServerError')]).toEqual([['02'], ['03'], ['05']]);
    expect([example('NotFoundError'), example('TooManyRequestsError')]).toEqual([undefined, undefined]);
  });
});

describe('the published schemas are the very objects the client validates with', () => {
  const server = useMsw();
  const later = () => Math.floor(Date.now() / 1000) + 3600;

  /** A session whose calls are answered `data`, and the count of requests the gateway saw. */
  function session(data: unknown) {
    const seen = { requests: 0 };
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.all(`${BASE}/*`, () => {
        seen.requests++;
        return HttpResponse.json({ status: '00', message: 'ok', data });
      }),
    );
    return { seen, session: testClient().ob.forCustomer({ access_token: 'customer-at', token_type: 'Bearer', expires_in: 3600, expires_at: later() }) };
  }

  it('path parameters: the client runs the operation\'s `params` schema, and rejects unsent what it rejects', async () => {
    const params = operations['accounts.balances.retrieve'].params!;
    const spy = vi.spyOn(params, 'safeParse');
    try {
      const values: unknown[] = ['0123456789', 12345, '', '.', '..', '..;x', 'a b/c', 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, true, null, undefined, {}, []];
      for (const value of values) {
        const { seen, session: s } = session({ account_number: String(value) });
        spy.mockClear();
        const accepted = params.safeParse({ account_number: value }).success;
        spy.mockClear();
        const outcome = await s.accounts.balances.retrieve(value as string).then(
          () => 'sent',
          (e: unknown) => (e as Error).name,
        );
        expect(spy, `${String(value)}: the client checked it with the published schema`).toHaveBeenCalled();
        expect([String(value), outcome, seen.requests]).toEqual([String(value), accepted ? 'sent' : 'ValidationError', accepted ? 1 : 0]);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('bodies and queries: the client runs the published `body` and `query` schemas', async () => {
    const body = vi.spyOn(operations['accounts.holds.update'].body, 'safeParse');
    const query = vi.spyOn(operations['accounts.transactions.list'].query, 'safeParse');
    try {
      const { session: s } = session({ reference: 'H1', transactions: [] });
      await s.accounts.holds.update('0123456789', 'H1', { status: 'INACTIVE' });
      await s.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' });
      expect(body).toHaveBeenCalledWith({ status: 'INACTIVE' });
      expect(query).toHaveBeenCalledWith({ from: '2024-01-01', to: '2024-01-31' });
    } finally {
      body.mockRestore();
      query.mockRestore();
    }
  });
});
