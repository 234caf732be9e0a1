import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_SCOPES, type OpenBanking } from '../../src/index.js';
import { startSandboxServer, type SandboxServer } from '../../src/testing.js';
import { clientFor, validCard } from '../sandbox/support.js';

// Every operation's sandbox answer, and every request body the calls send, checked with Ajv (JSON
// Schema 2020-12) against the committed openapi.json. Ajv shares no code with zod: a disagreement
// between the SDK's schemas, the document and the sandbox shows up here.

const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; requestBody?: unknown; responses: Record<string, { $ref?: string }> }>>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ ...doc, $id: 'https://openbanking-ng.local/openapi.json' });
const pointer = (...parts: string[]) => `https://openbanking-ng.local/openapi.json#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** The document's operation for a request under the base path: its template, method and success status. */
function operationFor(method: string, path: string) {
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    const op = item[method.toLowerCase()];
    if (op && pattern.test(path)) return { template, op };
  }
  return undefined;
}

/** The schema a response of `status` must meet: the operation's own, or the shared error response it names. */
function responseSchema(template: string, method: string, status: number) {
  const declared = doc.paths[template]![method.toLowerCase()]!.responses[String(status)];
  if (!declared) return undefined;
  const name = declared.$ref?.split('/').pop();
  return name ? pointer('components', 'responses', name, 'content', 'application/json', 'schema') : pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema');
}

interface Exchange {
  method: string;
  path: string;
  status: number;
  requestBody: string;
  responseBody: string;
}

const ALL_SCOPES = [...new Set(Object.values(OPERATION_SCOPES).flat())];
const ACCOUNT = '0123456789';

describe('the sandbox and the SDK agree with openapi.json (Ajv, draft 2020-12)', () => {
  let server: SandboxServer;
  const exchanges: Exchange[] = [];
  let ob: OpenBanking;

  beforeAll(async () => {
    server = await startSandboxServer({ seed: 'api-description' });
    const app = server.registerClient();
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const requestBody = await request.clone().text();
      const response = await fetch(request);
      const url = new URL(request.url);
      if (url.pathname.startsWith('/openapi/v1/')) {
        exchanges.push({ method: request.method, path: url.pathname.slice('/openapi/v1'.length), status: response.status, requestBody, responseBody: await response.clone().text() });
      }
      return response;
    };
    ob = clientFor(server, app, { fetch: recording }).ob;
    const session = ob.forCustomer(server.issueTokens({ clientId: app.clientId, scope: ALL_SCOPES, kind: 'customer' }));
    // Every typed operation once, with the bodies the docs and examples use.
    await session.customers.retrieve();
    await ob.accounts.create({ customer_ref: 'CUS-9', first_name: 'Chidi', dob: '1991-02-03', gender: 'M' });
    await session.accounts.list();
    await session.accounts.balances.retrieve(ACCOUNT);
    for await (const _ of session.accounts.transactions.list(ACCOUNT, { from: '2024-01-01', to: '2024-01-31' })); // every page
    await session.accounts.holds.create(ACCOUNT, { reference: 'HLD-X-1', amount: 2500, narration: 'Deposit', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' });
    await session.accounts.holds.list(ACCOUNT);
    await session.accounts.holds.update(ACCOUNT, 'HLD-X-1', { status: 'INACTIVE' });
    await ob.transfers.enquiry({ destination_bank_code: '000007', destination_account_number: '0987654321' });
    const sent = await session.transfers.create({ amount: 5_000, source_account_number: ACCOUNT, destination_bank_code: '000007', destination_account_number: '0987654321', narration: 'Rent' });
    await session.transfers.retrieve(sent.batch_reference ?? 'BATCH000000000');
    const categories = await ob.bills.categories.list();
    const { billers } = await ob.bills.billers.list(categories[2]!.id!);
    await session.bills.validate(categories[2]!.id!, billers[0]!.id!, '7012345678');
    await session.bills.pay(categories[2]!.id!, billers[0]!.id!, '7012345678', { amount: 12_500, source_account_number: ACCOUNT, payer_info: { name: 'Ada Obi' } });
    const { dispute_categories } = await ob.disputes.categories.list();
    const report = await session.disputes.create({ reference: 'DISP0000000001', description: 'Debited twice', customer_id: 'CUS-0001', dispute_category_id: String(dispute_categories[0]!.id), amount: 4_500 });
    await session.disputes.retrieve(report.report_reference ?? 'RPT000000000');
    const mandate = await session.directDebits.create({ reference: 'SUB-ADA-001', narration: 'Streaming subscription', amount: 4_400, start_date: '2024-02-01', frequency: 'MONTHLY' });
    await session.directDebits.list();
    const id = mandate.mandate_id ?? 'MAN000000001';
    await session.directDebits.charge(id, { amount: 4_400, reference: 'SUB-2024-02' });
    await session.directDebits.update(id, { reference: 'SUB-ADA-001', narration: 'Streaming subscription', amount: 4_400, mandate_status: 'INACTIVE' });
    await ob.cards.create(validCard());
    await ob.cards.list();
    const { savings } = await session.savings.list();
    for await (const _ of session.savings.transactions.list(savings[0]!.savings_id ?? 'SAV-0001'));
    // Refusals: their bodies must meet the document's error responses too.
    await ob.request({ method: 'POST', path: '/cards', body: { card_status: 'ACTIVE' }, scope: 'cards.create' }).catch(() => undefined); // 400 MISSING_FIELD
    const stranger = ob.forCustomer({ access_token: 'not-a-token', token_type: 'Bearer', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) + 3600 });
    await stranger.accounts.list().catch(() => undefined); // 401
  });
  afterAll(() => server?.close());

  it('every operation answered, and every answer and request body meets the document', () => {
    const seen = new Set<string>();
    const problems: string[] = [];
    let bodies = 0;
    for (const e of exchanges) {
      const found = operationFor(e.method, e.path);
      if (!found) {
        problems.push(`${e.method} ${e.path}: not in the document`);
        continue;
      }
      seen.add(found.op.operationId);
      const schema = responseSchema(found.template, e.method, e.status);
      if (!schema) problems.push(`${found.op.operationId}: status ${e.status} is not declared`);
      else if (!ajv.validate({ $ref: schema }, JSON.parse(e.responseBody))) problems.push(`${found.op.operationId} ${e.status}: ${ajv.errorsText()}`);
      // A refused request (sent on purpose through ob.request) is no example body.
      if (found.op.requestBody && e.status < 300) {
        bodies++;
        const body = pointer('paths', found.template, e.method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema');
        if (!ajv.validate({ $ref: body }, JSON.parse(e.requestBody))) problems.push(`${found.op.operationId} request: ${ajv.errorsText()}`);
      }
    }
    expect(problems).toEqual([]);
    expect([...seen].sort()).toEqual(Object.keys(OPERATION_SCOPES).sort());
    expect(exchanges.map((e) => e.status)).toEqual(expect.arrayContaining([200, 201, 400, 401]));
    console.log(`openapi.json cross-check: ${exchanges.length} sandbox answers and ${bodies} request bodies of ${seen.size} operations met the document`);
  });

  it('a deliberately broken answer fails the check', () => {
    const created = exchanges.find((e) => e.method === 'POST' && e.path === '/cards')!;
    const schema = responseSchema('/cards', 'POST', created.status)!;
    const body = JSON.parse(created.responseBody) as { data: Record<string, unknown> };
    expect(ajv.validate({ $ref: schema }, body)).toBe(true);
    expect(ajv.validate({ $ref: schema }, { ...body, data: { ...body.data, card_status: 42 } })).toBe(false);
    const { card_id: _, ...withoutId } = body.data;
    expect(ajv.validate({ $ref: schema }, { ...body, data: withoutId })).toBe(false);
    expect(ajv.validate({ $ref: schema }, { status: '00', message: 'ok' })).toBe(false);
  });
});
