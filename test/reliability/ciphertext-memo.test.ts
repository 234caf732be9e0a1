import { describe, expect, it } from 'vitest';
import { CiphertextMemo } from '../../src/core/field-crypto.js';
import { aesCbcCipher, aesGcmCipher, BadRequestError, OpenBanking, plaintextCipher, ResponseValidationError, type FieldCipher } from '../../src/index.js';
import { createSandbox } from '../../src/testing.js';
import { CARDS, validCard } from './support.js';

/** Counts encryptions; each one different (a random-IV scheme in miniature). */
function countingCipher() {
  let n = 0;
  const cipher: FieldCipher = {
    encrypt: async (text) => `${++n}:${text}`,
    decrypt: async (text) => text.slice(text.indexOf(':') + 1),
  };
  return { cipher, encryptions: () => n };
}

describe('CiphertextMemo', () => {
  it('reuses the ciphertext sent under a key while it still decrypts to the value; encrypts afresh otherwise', async () => {
    const memo = new CiphertextMemo();
    const { cipher, encryptions } = countingCipher();
    const first = await memo.encrypt(cipher, 'k1', 'card_default_pin', '1234');
    expect(await memo.encrypt(cipher, 'k1', 'card_default_pin', '1234')).toBe(first);
    expect(await memo.encrypt(cipher, 'k1', 'card_default_pin', '9999')).not.toBe(first);
    expect(await memo.encrypt(cipher, 'k2', 'card_default_pin', '1234')).not.toBe(first);
    expect(encryptions()).toBe(3);
  });

  it('shares one encryption between concurrent calls under the same key', async () => {
    const memo = new CiphertextMemo();
    const { cipher, encryptions } = countingCipher();
    const [a, b] = await Promise.all([memo.encrypt(cipher, 'k', 'f', '1234'), memo.encrypt(cipher, 'k', 'f', '1234')]);
    expect(a).toBe(b);
    expect(encryptions()).toBe(1);
  });

  it('keeps only the most recent entries, and never a failed encryption', async () => {
    const memo = new CiphertextMemo(2);
    const { cipher } = countingCipher();
    const first = await memo.encrypt(cipher, 'a', 'f', 'x');
    await memo.encrypt(cipher, 'b', 'f', 'x');
    await memo.encrypt(cipher, 'c', 'f', 'x');
    expect(await memo.encrypt(cipher, 'a', 'f', 'x')).not.toBe(first);

    let fail = true;
    const flaky: FieldCipher = { encrypt: async (t) => (fail ? Promise.reject(new Error('no key')) : `ok:${t}`), decrypt: async (t) => t.slice(3) };
    await expect(memo.encrypt(flaky, 'd', 'f', 'x')).rejects.toThrow('no key');
    fail = false;
    await expect(memo.encrypt(flaky, 'd', 'f', 'x')).resolves.toBe('ok:x');
  });

  it('leaves the identity cipher alone', async () => {
    const memo = new CiphertextMemo();
    expect(await memo.encrypt(plaintextCipher, 'k', 'f', '1234')).toBe('1234');
  });
});

describe('retrying with the idempotency key under a random-IV cipher', () => {
  for (const [name, make] of [['aesGcmCipher', aesGcmCipher], ['aesCbcCipher', aesCbcCipher]] as const) {
    it(`${name}: the retry carries the same ciphertext and replays the card; a changed PIN is refused`, async () => {
      const secret = 'memo-secret';
      const sandbox = createSandbox({ seed: name, clients: [{ clientId: 'memo-app', clientSecret: secret }], cipher: make(secret) });
      const ob = new OpenBanking({ clientId: 'memo-app', clientSecret: secret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logLevel: 'off', cipher: make(secret) });
      sandbox.faults.inject({ path: CARDS, fault: { type: 'malformed-json' } });
      const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ResponseValidationError;
      expect(error).toBeInstanceOf(ResponseValidationError);
      const retry = await ob.cards.create(validCard(), { idempotencyKey: error.idempotencyKey! }).withResponse();
      expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.data.card_default_pin).toBe('1234');
      expect(sandbox.cards()).toHaveLength(1);
      await expect(ob.cards.create(validCard({ card_default_pin: '5678' }), { idempotencyKey: error.idempotencyKey! })).rejects.toMatchObject({
        constructor: BadRequestError,
        errorCode: 'IDEMPOTENCY_KEY_REUSED',
      });
    });
  }
});
