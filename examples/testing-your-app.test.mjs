// Testing your own code with openbanking-ng/testing: the sandbox as an in-process fetch handler
// (no port, no network), one sandbox per file, reset between tests, faults injected where a test
// needs them, and retries that never wait (`retryDelay: 0`).
//
//   npm install openbanking-ng
//   node --test node_modules/openbanking-ng/examples/testing-your-app.test.mjs
//
// The same tests run under vitest or jest; only the `test` / `assert` imports change.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { OpenBanking, isApiError } from 'openbanking-ng';
import { createSandbox } from 'openbanking-ng/testing';

// ---- The code under test: a small piece of "your app". -------------------------------------

/**
 * Issues a virtual card for a customer and returns what your app stores about it.
 * @param {OpenBanking} ob
 * @param {{ accountNumber: string; name: string; pin: string }} customer
 */
async function issueVirtualCard(ob, customer) {
  try {
    const card = await ob.cards.create({
      account_number: customer.accountNumber,
      card_holder_name: customer.name,
      card_status: 'ACTIVE',
      card_type: 'VIRTUAL',
      card_default_pin: customer.pin,
      card_expiry: { month: '12', year: '2030' },
    });
    return { ok: true, cardId: card.card_id, last4: card.card_number?.slice(-4) };
  } catch (error) {
    // Your app's policy: a refusal by the service is reported to the user, anything else escalates.
    if (isApiError(error) && error.status < 500) return { ok: false, reason: error.errorCode ?? error.message };
    throw error;
  }
}

// ---- The tests. ------------------------------------------------------------------------------

const sandbox = createSandbox();
const app = sandbox.registerClient(); // registered at once; stays across reset() only if given in `clients`
const ob = new OpenBanking({
  clientId: app.clientId,
  clientSecret: app.clientSecret,
  baseUrl: sandbox.baseUrl,
  authUrl: sandbox.authUrl,
  fetch: sandbox, // the sandbox answers in process: nothing leaves the test
  retryDelay: 0, // retries happen at once
  logLevel: 'off',
});

afterEach(() => sandbox.faults.clear()); // or sandbox.reset(), which also forgets cards, tokens and keys

test('issues a card and keeps the last four digits', async () => {
  const result = await issueVirtualCard(ob, { accountNumber: '0123456789', name: 'Ada Obi', pin: '1234' });
  assert.equal(result.ok, true);
  const stored = sandbox.cards({ clientId: app.clientId }).at(-1);
  assert.equal(stored?.card.card_id, result.cardId);
  assert.equal(stored?.card.card_default_pin, '1234'); // the sandbox holds the secret fields in plain text
  assert.equal(result.last4, stored?.card.card_number?.slice(-4));
});

test('rides out two 503s with one card created', async () => {
  const before = sandbox.cards().length;
  sandbox.faults.inject({ path: '/openapi/v1/cards', method: 'POST', times: 2, fault: { type: 'status', status: 503 } });
  const result = await issueVirtualCard(ob, { accountNumber: '0123456789', name: 'Chidi Okeke', pin: '4321' });
  assert.equal(result.ok, true);
  assert.equal(sandbox.cards().length, before + 1);
  const attempts = sandbox.requests.list('/openapi/v1/cards').slice(-3);
  assert.deepEqual(attempts.map((r) => r.status), [503, 503, 201]);
  assert.equal(new Set(attempts.map((r) => r.idempotencyKey)).size, 1); // one key for the three attempts
});

test('reports a refusal by the service to the user', async () => {
  sandbox.faults.inject({
    path: '/openapi/v1/cards',
    method: 'POST',
    fault: { type: 'response', status: 400, body: { status: '01', error_code: 'ACCOUNT_CLOSED', message: 'The account is closed', data: {} } },
  });
  const result = await issueVirtualCard(ob, { accountNumber: '0123456789', name: 'Bola Ade', pin: '1111' });
  assert.deepEqual(result, { ok: false, reason: 'ACCOUNT_CLOSED' });
});

test('escalates when the service stays down', async () => {
  sandbox.faults.inject({ path: '/openapi/v1/cards', method: 'POST', times: 3, fault: { type: 'status', status: 502 } });
  await assert.rejects(issueVirtualCard(ob, { accountNumber: '0123456789', name: 'Emeka Eze', pin: '2222' }), { name: 'InternalServerError', status: 502 });
});
