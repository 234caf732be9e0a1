// A cipher of your own for the card secret fields: AES-256-CTR with key SHA-256(client secret),
// output base64(IV ‖ ciphertext), the scheme of docs/encryption.md's "A cipher of your own".
//
// The sandbox gets the same cipher, so it decrypts the PIN we send and encrypts the card number,
// CVV2, PIN and token it answers with. A fetch wrapper shows what really crossed the wire.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/custom-cipher.mjs
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { OpenBanking } from 'openbanking-ng';
import { startSandboxServer } from 'openbanking-ng/testing';

/**
 * @param {string} secret the client secret
 * @returns {import('openbanking-ng').FieldCipher}
 */
function aesCtrCipher(secret) {
  const key = createHash('sha256').update(secret, 'utf8').digest();
  return {
    async encrypt(text) {
      const iv = randomBytes(16);
      const cipher = createCipheriv('aes-256-ctr', key, iv);
      return Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final()]).toString('base64');
    },
    async decrypt(value) {
      const raw = Buffer.from(value, 'base64');
      if (raw.length < 17) throw new Error('too short to be IV ‖ ciphertext'); // never put the value in the message
      const decipher = createDecipheriv('aes-256-ctr', key, raw.subarray(0, 16));
      // fatal: a wrong key gives bytes that are not UTF-8, which throws instead of returning garbage.
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat([decipher.update(raw.subarray(16)), decipher.final()]));
    },
  };
}

// The application's credentials, known up front so the sandbox can share the cipher.
const clientId = 'cipher-example';
const clientSecret = 'sk_test_cipher_example_secret';
const cipher = aesCtrCipher(clientSecret);

const sandbox = await startSandboxServer({ cipher, clients: [{ clientId, clientSecret }] });
try {
  /** @type {{ sent?: string; received?: string }} */
  const wire = {};
  /** @type {typeof fetch} */
  const recordingFetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'POST' && request.url.endsWith('/cards')) wire.sent = await request.clone().text();
    const response = await fetch(request);
    if (request.method === 'POST' && request.url.endsWith('/cards')) wire.received = await response.clone().text();
    return response;
  };

  const ob = new OpenBanking({ clientId, clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, cipher, fetch: recordingFetch });
  const card = await ob.cards.create({
    account_number: '0123456789',
    card_holder_name: 'Ada Obi',
    card_status: 'ACTIVE',
    card_default_pin: '1234',
    card_expiry: { month: '09', year: '2029' },
  });

  const sentPin = JSON.parse(wire.sent ?? '{}').card_default_pin;
  const answered = JSON.parse(wire.received ?? '{}').data;
  console.log(`PIN on the wire:           ${sentPin}`);
  console.log(`PIN the sandbox decrypted: ${sandbox.cards()[0]?.card.card_default_pin}`);
  console.log(`card_number on the wire:   ${answered.card_number}`);
  console.log(`card_number you get:       ${card.card_number}`);

  if (sentPin === '1234' || answered.card_number === card.card_number || !/^\d+$/.test(card.card_number ?? '')) {
    throw new Error('the secret fields did not go through the cipher');
  }
  if ((await cipher.decrypt(sentPin)) !== '1234') throw new Error('the PIN does not decrypt to what was sent');
} finally {
  await sandbox.close();
}
