// Errors and retries, each provoked with the sandbox's fault injection:
//
//   1. a bad body: ValidationError, nothing sent;
//   2. two 503s: retried with the same idempotency key, the card created once;
//   3. an answer lost after the card was stored: the retry gets the stored card back, no second card;
//   4. a 429 with Retry-After: 1: waited for, then retried;
//   5. a Retry-After longer than maxRetryDelay: RateLimitError at once, retryAfter set;
//   6. every attempt fails: InternalServerError with the key, and a later retry with that key;
//   7. a key reused with another body: BadRequestError IDEMPOTENCY_KEY_REUSED, never retried;
//   8. a wrong client secret: OAuthError invalid_client from the identity host.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/errors-and-retries.mjs
import {
  OpenBanking,
  isApiError,
  isOAuthError,
  isRateLimitError,
  isValidationError,
} from 'openbanking-ng';
import { startSandboxServer } from 'openbanking-ng/testing';

const CARDS = '/openapi/v1/cards';
const sandbox = await startSandboxServer();
try {
  const app = sandbox.registerClient();
  const ob = new OpenBanking({
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    maxRetries: 2, // the default: three attempts in all
    maxRetryDelay: 5_000, // wait for a Retry-After of up to 5 s; fail at once above that
    // Retries are logged at info: print them.
    logger: { debug() {}, info: (message) => console.log(`   log: ${message}`), warn: (message) => console.log(`   log: ${message}`), error: console.error },
    logLevel: 'info',
  });
  /** @param {Partial<import('openbanking-ng').CreateCardParams>} [changes] @returns {import('openbanking-ng').CreateCardParams} */
  const card = (changes = {}) => ({
    account_number: '0123456789',
    card_holder_name: 'Ada Obi',
    card_status: 'ACTIVE',
    card_default_pin: '1234',
    card_expiry: { month: '09', year: '2029' },
    ...changes,
  });
  /** @param {boolean} condition @param {string} what */
  const check = (condition, what) => {
    if (!condition) throw new Error(`unexpected: ${what}`);
  };

  console.log('1. A bad body');
  const sentBefore = sandbox.requests.count(CARDS);
  try {
    await ob.cards.create(card({ account_number: '123', card_expiry: { month: '13', year: '29' } }));
    check(false, 'a bad body was accepted');
  } catch (error) {
    if (!isValidationError(error)) throw error;
    for (const issue of error.issues) console.log(`   ${issue.path}: ${issue.message}`);
    check(sandbox.requests.count(CARDS) === sentBefore, 'a request was sent');
  }

  console.log('2. Two 503s, then success');
  sandbox.faults.inject({ path: CARDS, method: 'POST', times: 2, fault: { type: 'status', status: 503 } });
  const { data: second, idempotencyKey } = await ob.cards.create(card()).withResponse();
  const keys = sandbox.requests.list(CARDS).slice(-3).map((r) => `${r.status} ${r.idempotencyKey}`);
  console.log(`   created ${second.card_id}; the three attempts: ${keys.join(', ')}`);
  check(keys.every((k) => k.endsWith(idempotencyKey)), 'a retry used another key');

  console.log('3. The answer lost after the card was stored');
  const storedBefore = sandbox.cards().length;
  sandbox.faults.inject({ path: CARDS, method: 'POST', fault: { type: 'drop', when: 'after' } });
  const third = await ob.cards.create(card({ card_holder_name: 'Chidi Okeke' }));
  console.log(`   got ${third.card_id}; cards stored by the two attempts: ${sandbox.cards().length - storedBefore}`);
  check(sandbox.cards().length - storedBefore === 1, 'the retry created a second card');

  console.log('4. A 429 with Retry-After: 1');
  sandbox.faults.inject({ path: CARDS, method: 'POST', fault: { type: 'status', status: 429, retryAfter: 1 } });
  const started = Date.now();
  await ob.cards.create(card());
  console.log(`   created after ${Date.now() - started} ms`);

  console.log('5. A Retry-After longer than maxRetryDelay');
  sandbox.faults.inject({ path: CARDS, method: 'POST', fault: { type: 'status', status: 429, retryAfter: 120 } });
  try {
    await ob.cards.create(card());
    check(false, 'the call succeeded');
  } catch (error) {
    if (!isRateLimitError(error)) throw error;
    console.log(`   ${error.name}: retry after ${error.retryAfter} ms, with the key ${error.idempotencyKey}`);
  }

  console.log('6. Every attempt fails; a later retry with the same key');
  sandbox.faults.inject({ path: CARDS, method: 'POST', times: 3, fault: { type: 'status', status: 500 } });
  let savedKey = '';
  try {
    await ob.cards.create(card({ card_holder_name: 'Bola Ade' }));
    check(false, 'the call succeeded');
  } catch (error) {
    if (!isApiError(error) || error.status < 500) throw error; // an InternalServerError
    console.log(`   ${error.name} ${error.status} (code ${error.code}) after three attempts; key ${error.idempotencyKey}`);
    savedKey = error.idempotencyKey ?? '';
  }
  // Later (from a queue, a cron job, another process): the same body with the same key.
  const retried = await ob.cards.create(card({ card_holder_name: 'Bola Ade' }), { idempotencyKey: savedKey });
  console.log(`   created ${retried.card_id} with the saved key`);

  console.log('7. A key reused with another body');
  try {
    await ob.cards.create(card({ card_holder_name: 'Someone Else' }), { idempotencyKey: savedKey });
    check(false, 'the call succeeded');
  } catch (error) {
    if (!isApiError(error)) throw error;
    console.log(`   ${error.name} ${error.status}: ${error.errorCode}, "${error.message}"`);
    check(error.errorCode === 'IDEMPOTENCY_KEY_REUSED', 'another error code');
  }

  console.log('8. A wrong client secret');
  const wrong = new OpenBanking({ clientId: app.clientId, clientSecret: 'not-the-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl });
  try {
    await wrong.cards.list();
    check(false, 'the call succeeded');
  } catch (error) {
    if (!isOAuthError(error)) throw error;
    console.log(`   ${error.name}: ${error.error} (${error.errorDescription})`);
  }
} finally {
  await sandbox.close();
}
