import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { aesCbcCipher, aesGcmCipher, type CustomerSession, OPERATION_SCOPES, OpenBanking, plaintextCipher } from '../../src/index.js';
import { tripleDesCipher } from '../../src/node.js';
import { CARD_SECRET_REQUEST_FIELDS, CARD_SECRET_RESPONSE_FIELDS } from '../../src/schemas/cards.js';
import { operations, toJsonSchema, toJsonSchemas } from '../../src/schemas.js';
import { createSandbox } from '../../src/testing.js';
import { buildDocument } from '../../scripts/openapi/document.mjs';
import { validCard } from '../support/cards.js';
import { committedDocument, documentValidator, type Exchange, pointer, recordingFetch } from './wire-validator.js';

// DESIGN "The API described", document row: the document describes what travels, so that a validating
// proxy in front of the service accepts every request the client sends and every answer it accepts,
// and no more where JSON Schema can say so. Each rule is checked against the client itself.

const doc = committedDocument();
const validator = documentValidator(doc);
const SECRET = 'wire-secret-1';
const APP = { clientId: 'wire-app', clientSecret: SECRET };
const ACCOUNT = '0123456789';
const later = () => Math.floor(Date.now() / 1000) + 3600;
const schemas = doc.components.schemas as Record<string, { properties?: Record<string, Record<string, unknown>>; anyOf?: unknown[]; oneOf?: unknown[] }>;

/** A client and a customer session on a fresh sandbox, and the exchanges they make. */
function onSandbox() {
  const sandbox = createSandbox({ seed: 'wire', clients: [APP] });
  const exchanges: Exchange[] = [];
  const ob = new OpenBanking({ ...APP, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, logLevel: 'off', maxRetries: 0, fetch: recordingFetch((r) => sandbox(r), exchanges), retryDelay: 0, sleep: async () => undefined });
  const all = [...new Set(Object.values(OPERATION_SCOPES).flat())];
  const session = ob.forCustomer({ ...sandbox.issueTokens({ clientId: APP.clientId, scope: all, kind: 'customer' }), expires_at: later() });
  /** What the client and the document each make of `data` answered to `call` (sent to `path`). */
  async function verdicts(path: string, data: unknown, call: (s: CustomerSession) => Promise<unknown>, status = 200) {
    sandbox.faults.inject({ path: `/openapi/v1${path}`, fault: { type: 'response', status, body: { status: '00', message: 'ok', data } as Record<string, unknown> } });
    const before = exchanges.length;
    const client = await call(session).then(
      () => 'accepted',
      (e: unknown) => `refused (${(e as Error).name})`,
    );
    const sent = exchanges.slice(before);
    expect(sent, `${path}: one exchange`).toHaveLength(1);
    const { problems } = validator.checkExchange(sent[0]!);
    return { client, document: problems.length === 0 ? 'accepted' : `refused (${problems.join('; ')})` };
  }
  return { sandbox, ob, session, exchanges, verdicts };
}

/** The two verdicts without their reasons: `accepted` or `refused`. */
const bare = (v: { client: string; document: string }) => ({ client: v.client.split(' ')[0], document: v.document.split(' ')[0] });

describe('secret fields travel as the strings the configured cipher sends', () => {
  const body = pointer('paths', '/cards', 'post', 'requestBody', 'content', 'application/json', 'schema');

  it('a card body with the PIN as each built-in cipher sends it meets the document (the plaintext pattern refused every ciphertext)', async () => {
    for (const [name, cipher] of Object.entries({ plaintextCipher, aesGcmCipher: aesGcmCipher(SECRET), aesCbcCipher: aesCbcCipher(SECRET), tripleDesCipher: tripleDesCipher(SECRET) })) {
      const sent = validCard({ card_default_pin: await cipher.encrypt('482916') });
      expect(validator.check(body, sent), name).toBeUndefined();
    }
  });

  it('the plaintext rule is under x-openbanking-plaintext beside each secret field: for the PIN, the rule the client checks', () => {
    const pin = schemas.CardsCreateBody!.properties!.card_default_pin!;
    const rule = (z.toJSONSchema(operations['cards.create'].body, { io: 'input' }) as { properties: Record<string, unknown> }).properties.card_default_pin;
    expect(pin).toMatchObject({ type: 'string', 'x-openbanking-plaintext': rule });
    expect(pin['x-openbanking-plaintext']).toEqual({ type: 'string', pattern: '^\\d{4,12}$' });
    expect(pin).not.toHaveProperty('pattern');
  });

  it('the secret fields are exactly the ones the client encrypts and decrypts (cards.create request and answer, every listed card)', () => {
    const secretsOf = (schema: { properties?: Record<string, Record<string, unknown>> } | undefined) =>
      Object.entries(schema?.properties ?? {})
        .filter(([, s]) => 'x-openbanking-plaintext' in s)
        .map(([name]) => name)
        .sort();
    const listed = schemas.CardsListData!.properties!.cards as { items: { properties?: Record<string, Record<string, unknown>> } };
    expect(secretsOf(schemas.CardsCreateBody)).toEqual([...CARD_SECRET_REQUEST_FIELDS].sort());
    expect(secretsOf(schemas.CardsCreateData)).toEqual([...CARD_SECRET_RESPONSE_FIELDS].sort());
    expect(secretsOf(listed.items)).toEqual([...CARD_SECRET_RESPONSE_FIELDS].sort());
    const elsewhere = JSON.stringify(Object.entries(schemas).filter(([name]) => !['CardsCreateBody', 'CardsCreateData', 'CardsListData'].includes(name)));
    expect(elsewhere).not.toContain('x-openbanking-plaintext');
  });
});

describe('numeric ids are integers within ±(2^53 − 1), or strings: exactly what the client takes', () => {
  const VALUES: unknown[] = [2 ** 53 - 1, -(2 ** 53 - 1), 0, 42, '9007199254740993', 'TX-0001', null, 2 ** 53, -(2 ** 53), 2 ** 63, 1.5, true, {}];
  const ids: Array<[string, string, (v: unknown) => unknown, (s: CustomerSession) => Promise<unknown>]> = [
    ['accounts.transactions.list', `/accounts/${ACCOUNT}/transactions`, (v) => ({ transactions: [{ id: v }] }), (s) => s.accounts.transactions.list(ACCOUNT, { from: '2024-01-01', to: '2024-01-31' })],
    ['bills.categories.list', '/bills/categories', (v) => [{ id: v }], (s) => s.bills.categories.list()],
    ['bills.billers.list', '/bills/1/billers', (v) => ({ billers: [{ id: v, category_id: 1, products: [{ id: 'P1' }] }] }), (s) => s.bills.billers.list(1)],
    ['bills.billers.list', '/bills/1/billers', (v) => ({ billers: [{ id: 'B1', products: [{ id: v }] }] }), (s) => s.bills.billers.list(1)],
    ['bills.validate', '/bills/1/billers/2/reference/3', (v) => ({ product_info: { category_id: v } }), (s) => s.bills.validate(1, 2, '3')],
    ['disputes.categories.list', '/disputes/categories', (v) => ({ dispute_categories: [{ id: v }] }), (s) => s.disputes.categories.list()],
    ['directDebits.list', '/direct-debits', (v) => ({ mandates: [{ mandate_id: v }] }), (s) => s.directDebits.list()],
    ['savings.list', '/savings', (v) => ({ savings: [{ savings_id: v }] }), (s) => s.savings.list()],
    ['transfers.create', '/transactions/transfer', (v) => ({ batch_reference: v }), (s) => s.transfers.create({ amount: 1, source_account_number: ACCOUNT, destination_bank_code: '000007', destination_account_number: '0987654321' })],
  ];

  for (const [name, path, data, call] of ids) {
    it(`${name}: the document takes an id exactly when the client does`, async () => {
      const { verdicts } = onSandbox();
      for (const value of VALUES) {
        const v = await verdicts(path, data(value), call, name === 'transfers.create' ? 201 : 200);
        expect(bare(v).document, `${JSON.stringify(value)}: ${v.client} / ${v.document}`).toBe(bare(v).client);
      }
    });
  }

  it('a numeric id of 2^53 or more is refused by both (the zod refine no longer lost in conversion)', async () => {
    const { verdicts } = onSandbox();
    expect(bare(await verdicts('/savings', { savings: [{ savings_id: 2 ** 53 }] }, (s) => s.savings.list()))).toEqual({ client: 'refused', document: 'refused' });
    const id = (schemas.SavingsListData!.properties!.savings as { items: { properties: Record<string, unknown> } }).items.properties.savings_id;
    expect(id).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer', minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 }, { type: 'null' }] });
  });

  it('a refine the generator cannot describe stops the build, rather than being dropped', () => {
    const refined = { method: 'GET', path: '/x', token: 'client', scopes: [], response: z.looseObject({ code: z.string().check(z.refine((s) => s.length % 2 === 0)) }) };
    expect(() => buildDocument({ operations: { 'x.list': refined }, scopes: [], version: '0', toJsonSchema, toJsonSchemas })).toThrow(/refine the document cannot describe/);
  });
});

describe('the answers the client tolerates are alternatives of the document', () => {
  const dispute = { report_reference: 'RPT-1', report_status: 'LOGGED' };
  const category = { id: 3, name: 'TV', description: 'Cable TV' };
  const plan = { savings_id: 'SAV-1', savings_amount: 500 };
  const cases: Array<[string, string, unknown, (s: CustomerSession) => Promise<unknown>, 'accepted' | 'refused']> = [
    ['disputes.retrieve', '/disputes/RPT-1', [dispute], (s) => s.disputes.retrieve('RPT-1'), 'accepted'],
    ['disputes.retrieve', '/disputes/RPT-1', dispute, (s) => s.disputes.retrieve('RPT-1'), 'accepted'],
    ['disputes.retrieve', '/disputes/RPT-1', 'RPT-1', (s) => s.disputes.retrieve('RPT-1'), 'refused'],
    ['bills.categories.list', '/bills/categories', [category], (s) => s.bills.categories.list(), 'accepted'],
    ['bills.categories.list', '/bills/categories', { categories: [category] }, (s) => s.bills.categories.list(), 'accepted'],
    ['bills.categories.list', '/bills/categories', { items: [category], total: 1 }, (s) => s.bills.categories.list(), 'accepted'],
    ['bills.categories.list', '/bills/categories', { categories: 'TV' }, (s) => s.bills.categories.list(), 'refused'],
    ['bills.categories.list', '/bills/categories', {}, (s) => s.bills.categories.list(), 'refused'],
    ['bills.categories.list', '/bills/categories', { categories: [{ id: 2 ** 53 }] }, (s) => s.bills.categories.list(), 'refused'],
    ['savings.list', '/savings', { savings: [plan] }, (s) => s.savings.list(), 'accepted'],
    ['savings.list', '/savings', { loans: [plan] }, (s) => s.savings.list(), 'accepted'],
    ['savings.list', '/savings', { savings: [plan], loans: 'ignored' }, (s) => s.savings.list(), 'accepted'],
    ['savings.list', '/savings', { savings: null, loans: [plan] }, (s) => s.savings.list(), 'refused'],
    ['savings.list', '/savings', { loans: [{ savings_id: 1.5 }] }, (s) => s.savings.list(), 'refused'],
    ['savings.list', '/savings', { plans: [plan] }, (s) => s.savings.list(), 'refused'],
  ];

  for (const [name, path, data, call, expected] of cases) {
    it(`${name} answered ${JSON.stringify(data)}: ${expected} by the client and the document`, async () => {
      const { verdicts } = onSandbox();
      const v = await verdicts(path, data, call);
      expect(bare(v), `${v.client} / ${v.document}`).toEqual({ client: expected, document: expected });
    });
  }

  it('the one shape JSON Schema cannot refuse: categories under two array members (the client refuses it, the document cannot count them)', async () => {
    const { verdicts } = onSandbox();
    expect(bare(await verdicts('/bills/categories', { a: [category], b: [category] }, (s) => s.bills.categories.list()))).toEqual({ client: 'refused', document: 'accepted' });
  });
});

describe('every status the client handles is declared, with the spec\'s error bodies', () => {
  const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));

  it('every operation declares 400, 401, 403, 404, 408, 429, 500 and 5XX, each with its error body and Retry-After where the client waits', () => {
    for (const op of ops) {
      expect(Object.keys(op.responses), op.operationId).toEqual(expect.arrayContaining(['400', '401', '403', '404', '408', '429', '500', '5XX']));
    }
    for (const name of ['RequestTimeout', 'TooManyRequests', 'InternalServerError', 'ServerError']) expect(doc.components.responses[name]!.headers, name).toHaveProperty('Retry-After');
  });

  it('a 502, 503 or 504 with the spec\'s 500 body, and a 408, meet the document; the client retried each with the same key', async () => {
    const { sandbox, session, exchanges } = onSandbox();
    for (const status of [408, 502, 503, 504]) {
      sandbox.faults.inject({ path: '/openapi/v1/accounts', fault: { type: 'status', status, retryAfter: 0 } });
    }
    const retrying = new OpenBanking({ ...APP, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, logLevel: 'off', maxRetries: 4, fetch: recordingFetch((r) => sandbox(r), exchanges), retryDelay: 0, sleep: async () => undefined });
    await retrying.forCustomer(session.tokens).accounts.list();
    expect(exchanges.map((e) => e.status)).toEqual([408, 502, 503, 504, 200]);
    expect(new Set(exchanges.map((e) => e.headers['idempotency-key'])).size).toBe(1);
    expect(exchanges.flatMap((e) => validator.checkExchange(e).problems)).toEqual([]);
  });
});

describe('path parameters are the URL\'s text, constrained as the client checks them', () => {
  const VALUES: unknown[] = ['0123456789', 'a b/c', 'ÆØ-1', '-4985723040337976', -1, 1.5, 12345, '', '.', '..', '..;x', '.;x', '...', 'x;..'];

  it('every value the client sends validates as the text it sends; every string it refuses is refused by the document', async () => {
    const { session, exchanges } = onSandbox();
    for (const value of VALUES) {
      const accepted = operations['accounts.holds.list'].params!.safeParse({ account_number: value }).success;
      const before = exchanges.length;
      await session.accounts.holds.list(value as string).catch(() => undefined);
      expect(exchanges.length - before, `${JSON.stringify(value)} sent`).toBe(accepted ? 1 : 0);
      const text = validator.check(validator.parameterSchema('accounts.holds.list', 'account_number'), String(value), true);
      if (accepted) {
        const e = exchanges.at(-1)!;
        expect(validator.operationOf('GET', new URL(e.url).pathname.slice('/openapi/v1'.length))?.params.account_number).toBe(String(value));
        expect(validator.checkExchange(e).problems, JSON.stringify(value)).toEqual([]);
        expect(text, JSON.stringify(value)).toBeUndefined();
      } else if (typeof value === 'string') {
        expect(text, JSON.stringify(value)).toBeDefined();
      }
    }
  });

  it('no path parameter is a JSON number for a mock to draw from (a negative number such as -4985723040337976 is not a value of the document)', () => {
    for (const [name, op] of Object.entries(operations)) {
      for (const [, param] of op.path.matchAll(/\{(\w+)\}/g)) {
        const ref = validator.parameterSchema(name, param!);
        expect(validator.check(ref, -4985723040337976), `${name} ${param}`).toBeDefined();
        expect(validator.check(ref, 2 ** 53), `${name} ${param}`).toBeDefined();
        expect(validator.check(ref, '..', true), `${name} ${param}`).toBeDefined();
        expect(validator.check(ref, '', true), `${name} ${param}`).toBeDefined();
        expect(validator.check(ref, 'REF-1', true), `${name} ${param}`).toBeUndefined();
      }
    }
  });
});

describe('the headers are described as the client writes them', () => {
  it('a caller\'s idempotency key and a base64 signature meet the document; a key the client refuses does not', async () => {
    const sandbox = createSandbox({ seed: 'wire-headers', clients: [APP], signatureEncodings: ['hex', 'base64'] });
    const exchanges: Exchange[] = [];
    const ob = new OpenBanking({ ...APP, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, logLevel: 'off', signatureEncoding: 'base64', fetch: recordingFetch((r) => sandbox(r), exchanges) });
    await ob.bills.categories.list({ idempotencyKey: 'order-42:retry#1~' });
    await ob.bills.categories.list();
    expect(exchanges.map((e) => [e.status, validator.checkExchange(e).problems])).toEqual([
      [200, []],
      [200, []],
    ]);
    expect(exchanges[0]!.headers.signature).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    await expect(ob.bills.categories.list({ idempotencyKey: 'with space' })).rejects.toMatchObject({ name: 'ValidationError' });
    const key = pointer('components', 'parameters', 'IdempotencyKey', 'schema');
    expect([validator.check(key, 'with space'), validator.check(key, ''), validator.check(key, 'k'.repeat(256))].every(Boolean)).toBe(true);
  });
});

describe('the error bodies and the info', () => {
  const errorSchemas = ['BadRequestError', 'UnauthorizedError', 'ForbiddenError', 'NotFoundError', 'RequestTimeoutError', 'TooManyRequestsError', 'InternalServerError'];
  const body = (status: string) => validator.answerSchema('cards.create', Number(status));

  it('no member of an error body is required (the spec marks none), and the two 400 shapes are an anyOf', () => {
    for (const name of errorSchemas) expect(JSON.stringify(schemas[name]), name).not.toMatch(/"required"|"oneOf"/);
    expect(schemas.BadRequestError!.anyOf).toHaveLength(2);
    expect(validator.check(body('400'), { status: '01', error_code: 'MISSING_FIELD', data: { field: 'card_status' } })).toBeUndefined();
    expect(validator.check(body('400'), { status: 'error', errors: [{ code: 'INVALID_AMOUNT' }] })).toBeUndefined();
    // Both shapes at once: a oneOf refused it.
    expect(validator.check(body('400'), { status: '01', error_code: 'MISSING_FIELD', message: 'card_status is required', errors: [{ field: 'card_status', code: 'MISSING_FIELD' }] })).toBeUndefined();
    for (const status of ['401', '403', '404', '408', '429', '500', '503']) expect(validator.check(body(status), { status: '05', data: null }), status).toBeUndefined();
    expect(validator.check(body('401'), { status: 2, message: 'no' })).toBeDefined();
    expect(validator.check(body('400'), { status: 1, error_code: 'MISSING_FIELD' })).toBeDefined();
  });

  it('info.license is MIT, as package.json says', () => {
    const { license } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string };
    expect((doc as unknown as { info: { license: unknown } }).info.license).toEqual({ name: license, identifier: license });
  });

  it('the card created through the client meets the document, request and answer, with a cipher on both ends', async () => {
    const sandbox = createSandbox({ seed: 'wire-card', clients: [APP], cipher: aesCbcCipher(SECRET) });
    const exchanges: Exchange[] = [];
    const ob = new OpenBanking({ ...APP, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, logLevel: 'off', cipher: aesCbcCipher(SECRET), fetch: recordingFetch((r) => sandbox(r), exchanges) });
    await ob.cards.create(validCard());
    expect(exchanges.map((e) => [e.status, validator.checkExchange(e).problems])).toEqual([[201, []]]);
    expect((JSON.parse(exchanges[0]!.body) as { card_default_pin: string }).card_default_pin).toMatch(/^[0-9a-f]{64}$/);
  });
});
