// Loaded before each guide block that runs (node --import): the local sandbox standing in for the
// provider's hosts, the environment a reader's shell would have, and what the block `declare`s.
//
// Every request to the provider's sandbox hosts, to the CLI sandbox's address (127.0.0.1:4010) or to
// the local sandbox's own hosts is answered in process by one sandbox, which approves every consent
// as a customer would. Nothing leaves 127.0.0.1.
import { randomUUID } from 'node:crypto';
import { OPERATION_SCOPES, OpenBanking } from 'openbanking-ng';
import { createSandbox } from 'openbanking-ng/testing';

// The credentials the guides write out (`my-client`, `my-secret`) and put in OB_CLIENT_ID / OB_CLIENT_SECRET.
const app = { clientId: 'my-client', clientSecret: 'my-secret' };
const REDIRECTS = ['https://app.example.com/callback', 'https://app.example/callback', 'https://my-fintech.example/callback', 'http://127.0.0.1:3000/callback'];
const sandbox = createSandbox({ clients: [{ ...app, redirectUris: REDIRECTS }], autoApprove: true, deviceCodeInterval: 1 });
const api = new URL(sandbox.baseUrl);
const identity = new URL(sandbox.authUrl);

/** Where a URL of the provider's sandbox, of `npx openbanking-ng-sandbox --port 4010` or of this sandbox goes, or undefined. */
function local(url) {
  const { origin, pathname } = url;
  const toApi = pathname.startsWith('/openapi/v1');
  if (origin === 'https://api-sandbox.sparkle.fyi' || origin === api.origin || (/^http:\/\/(127\.0\.0\.1|localhost):4010$/.test(origin) && toApi)) return new URL(`${api.origin}${url.pathname}${url.search}`);
  if (origin === 'https://identity-sandbox.sparkle.fyi' || origin === identity.origin || /^http:\/\/(127\.0\.0\.1|localhost):4010$/.test(origin)) return new URL(`${identity.origin}${url.pathname}${url.search}`);
  return undefined;
}

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  const target = local(new URL(request.url));
  if (!target) return realFetch(request);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  return sandbox(new Request(target, { method: request.method, headers: request.headers, body, redirect: request.redirect, signal: request.signal }));
};

Object.assign(process.env, {
  OB_CLIENT_ID: app.clientId,
  OB_CLIENT_SECRET: app.clientSecret,
  OB_ENVIRONMENT: 'sandbox',
  OB_AUTH_URL: 'http://127.0.0.1:4010',
  OB_BASE_URL: 'http://127.0.0.1:4010/openapi/v1',
  OB_USERNAME: 'docs-user',
  OB_PASSWORD: 'docs-password',
  OB_REGISTRATION_PASSWORD: 'docs-registration-password',
});

// A registration the guides' OB_USERNAME and OB_PASSWORD fetch back (GET /dcr).
await fetch('http://127.0.0.1:4010/dcr', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: process.env.OB_USERNAME, password: process.env.OB_PASSWORD, app_name: 'Docs', redirect_url: REDIRECTS[0] }),
});
const ob = new OpenBanking({ ...app, logLevel: 'off' });
const everyScope = [...new Set(Object.values(OPERATION_SCOPES).flat())];
const customerTokens = () => {
  const issued = sandbox.issueTokens({ clientId: app.clientId, scope: everyScope, kind: 'customer' });
  return { ...issued, expires_at: Math.floor(Date.now() / 1000) + issued.expires_in };
};
const card = { account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } };
const transfer = { amount: 5000, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '0987654321', narration: 'Docs' };
const recorder = () => async () => undefined;
const memory = () => {
  const values = new Map();
  return {
    async get(key) {
      return values.get(key) ?? null;
    },
    async set(key, value) {
      values.set(key, value);
      return 'OK';
    },
    async del(key) {
      return values.delete(key) ? 1 : 0;
    },
  };
};

/**
 * What a block's `declare const name: Type` / `declare function name(…)` stands for, by name and,
 * where one name means two things in two guides, by its type.
 */
const BINDINGS = {
  ob: () => ob,
  tokens: customerTokens,
  customer: () => ob.forCustomer(customerTokens()),
  session: (type) => (/CustomerSession/.test(type) ? ob.forCustomer(customerTokens()) : {}),
  userId: () => 'user-1',
  body: () => ({ ...card }),
  db: () => ({
    loadTokens: async () => customerTokens(),
    tokens: async () => customerTokens(),
    needsRelink: recorder(),
    saveTokens: recorder(),
    order: async () => ({ key: randomUUID(), body: { ...transfer } }),
  }),
  order: async () => ({ id: 'order-1', bankConnectionId: 'bank-123', key: randomUUID(), body: await billPayment() }),
  passphrase: () => 'the operator passphrase of the guide',
  redis: memory,
  kv: memory,
  histogram: () => ({ observe: () => undefined }),
  batchReference: async () => String((await ob.forCustomer(customerTokens()).transfers.create(transfer)).batch_reference),
  customerVisits: () => async (url) => (await fetch(url, { redirect: 'manual' })).headers.get('location'),
  saveTokens: recorder,
  save: recorder,
  sendSms: recorder,
  scheduleRetry: recorder,
  bucketStep: () => () => {
    throw new Error('bucketStep stands for your store’s own step; this guide block does not call it');
  },
};

/** A bill payment the sandbox accepts: the first biller's first product. */
async function billPayment() {
  const [category] = await ob.bills.categories.list();
  const { billers } = await ob.bills.billers.list(category.id);
  const biller = billers[0];
  return { amount: 1000, source_account_number: '0123456789', payer_info: { name: 'Ada Obi', email: 'ada@example.com', phone: '+2348012345678' }, product_info: { category_id: category.id, biller_id: biller.id, product_id: biller.products?.[0]?.id } };
}

globalThis.__docBlock = {
  /** The values of the names a block declares: `[{ name, type }]` → `{ name: value }`. */
  async bind(declared) {
    const out = {};
    for (const { name, type } of declared) {
      const make = BINDINGS[name];
      if (!make) throw new Error(`the block declares ${name}, which scripts/doc-blocks/harness.mjs does not provide: add it there, or mark the block <!-- not run: why -->`);
      out[name] = await make(type);
    }
    return out;
  },
};
