// Issue 5's acceptance, end to end: each built-in cipher and a cipher a user wrote, configured the
// same way on the client and on the local sandbox served over real HTTP on 127.0.0.1. A
// pass-through proxy on 127.0.0.1 keeps the bytes that cross the wire, so the test reads the raw
// request body and the raw answer, and checks them with code that is not the SDK's.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  aesCbcCipher,
  aesGcmCipher,
  BadRequestError,
  CipherError,
  type FieldCipher,
  OpenBanking,
  OpenBankingError,
  plaintextCipher,
  ValidationError,
} from '../../src/index.js';
import { tripleDesCipher } from '../../src/node.js';
import { type SandboxServer, type SandboxServerOptions, startSandboxServer } from '../../src/testing.js';
import { referenceAesCbc, referenceAesGcm, referenceTripleDes } from '../crypto/cipher-reference.js';
import { clientFor, validCard } from '../sandbox/support.js';
import { type RecordingProxy, startRecordingProxy } from './support.js';

const SECRET = 'sk_test_Ọ̀ṣun-e2e-9f3c';
const APP = { clientId: 'cipher-e2e-app', clientSecret: SECRET };
const PIN = '0427';
const SECRET_FIELDS = ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] as const;

/**
 * A cipher a user might write for a provider with its own scheme, in a dozen lines:
 * ChaCha20-Poly1305 (node:crypto), key SHA-256('card-fields|' + secret), a random 12-byte nonce,
 * output base64url(nonce ‖ ciphertext ‖ tag).
 */
function chachaCipher(secret: string): FieldCipher {
  const key = createHash('sha256').update(`card-fields|${secret}`, 'utf8').digest();
  return {
    async encrypt(text) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
    },
    async decrypt(value) {
      const raw = Buffer.from(value, 'base64url');
      if (raw.length < 28) throw new Error('too short');
      const decipher = createDecipheriv('chacha20-poly1305', key, raw.subarray(0, 12), { authTagLength: 16 });
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}

/** How the test itself decrypts a wire value: the node:crypto reference of each built-in, or the user's own code. */
type Decrypt = (ciphertext: string) => string | Promise<string>;
const schemes: ReadonlyArray<readonly [string, (secret: string) => FieldCipher, Decrypt]> = [
  ['aesGcmCipher', aesGcmCipher, (c) => referenceAesGcm.decrypt(SECRET, c)],
  ['aesCbcCipher', aesCbcCipher, (c) => referenceAesCbc.decrypt(SECRET, c)],
  ['tripleDesCipher', tripleDesCipher, (c) => referenceTripleDes.decrypt(SECRET, c)],
  ['a user-written cipher (ChaCha20-Poly1305)', chachaCipher, (c) => chachaCipher(SECRET).decrypt(c)],
];

/** A client of the app that talks to the sandbox through `proxy`. */
const viaProxy = (proxy: RecordingProxy, overrides: Parameters<typeof clientFor>[2] = {}) =>
  clientFor({ authUrl: proxy.url, baseUrl: `${proxy.url}/openapi/v1` }, APP, overrides).ob;

const cardPosts = (proxy: RecordingProxy) => proxy.relayed.filter((r) => r.method === 'POST' && r.path === '/openapi/v1/cards');

/**
 * A sandbox on 127.0.0.1 started with `options` and a recording proxy in front of it, both for the
 * enclosing describe block, reset before each test.
 */
function useSandboxBehindProxy(options: () => SandboxServerOptions): { server: SandboxServer; proxy: RecordingProxy } {
  const env = {} as { server: SandboxServer; proxy: RecordingProxy };
  beforeAll(async () => {
    env.server = await startSandboxServer({ clients: [APP], ...options() });
    env.proxy = await startRecordingProxy(env.server.url);
  });
  afterAll(async () => {
    await env.proxy.close();
    await env.server.close();
  });
  beforeEach(() => {
    env.server.reset();
    env.proxy.relayed.length = 0;
  });
  return env;
}

describe.each(schemes)('cards end to end with %s on both sides', (_name, make, decryptOnTheTestSide) => {
  const env = useSandboxBehindProxy(() => ({ cipher: make(SECRET) }));

  it('the PIN crosses the wire encrypted; the answer\'s secret fields come back decrypted to what the sandbox stored', async () => {
    const ob = viaProxy(env.proxy, { cipher: make(SECRET) });
    const card = await ob.cards.create(validCard({ card_default_pin: PIN }));

    const [post] = cardPosts(env.proxy);
    expect(cardPosts(env.proxy)).toHaveLength(1);
    const wire = JSON.parse(post!.requestBody) as Record<string, string>;
    expect(wire.card_default_pin).not.toBe(PIN);
    expect(post!.requestBody).not.toContain(`"card_default_pin":"${PIN}"`);
    expect(await decryptOnTheTestSide(wire.card_default_pin!)).toBe(PIN);
    expect(wire.account_number).toBe('0123456789'); // only the secret field is touched

    const stored = env.server.cards();
    expect(stored).toHaveLength(1);
    const plain = stored[0]!.card;
    expect(plain.card_default_pin).toBe(PIN);

    // The answer on the wire carries every secret field encrypted...
    const answered = (JSON.parse(post!.responseBody) as { data: Record<string, string> }).data;
    for (const field of SECRET_FIELDS) {
      expect(answered[field]).not.toBe(plain[field]);
      expect(await decryptOnTheTestSide(answered[field]!)).toBe(plain[field]);
    }
    // ...and the SDK hands them over decrypted.
    for (const field of SECRET_FIELDS) expect(card[field]).toBe(plain[field]);
    expect(card.card_id).toBe(plain.card_id);
  });

  it('an answer lost after the card was stored: the retry re-sends the same encrypted bytes and the sandbox replays, one card', async () => {
    const ob = viaProxy(env.proxy, { cipher: make(SECRET) });
    env.server.faults.inject({ path: '/openapi/v1/cards', method: 'POST', times: 1, fault: { type: 'drop', when: 'after' } });
    const card = await ob.cards.create(validCard({ card_default_pin: PIN }));

    const attempts = env.server.requests.list({ path: '/openapi/v1/cards', method: 'POST' });
    expect(attempts.map((a) => a.status)).toEqual(['dropped', 201]);
    expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1);
    const posts = cardPosts(env.proxy); // the proxy saw the dropped attempt go out too
    expect(posts.map((p) => p.status)).toEqual([0, 201]);
    expect(posts[1]!.requestBody).toBe(posts[0]!.requestBody);
    expect(env.server.cards()).toHaveLength(1);
    expect(card.card_default_pin).toBe(PIN);
    expect(card.card_cvv2).toBe(env.server.cards()[0]!.card.card_cvv2);
  });

  it('cards.list decrypts every card to what the sandbox stored', async () => {
    const ob = viaProxy(env.proxy, { cipher: make(SECRET) });
    await Promise.all(['1111', '2222', '3333'].map((pin, i) => ob.cards.create(validCard({ card_default_pin: pin, card_holder_name: `Holder ${i}` }))));
    const { cards } = await ob.cards.list();
    const stored = env.server.cards().map((s) => s.card);
    const pick = (c: Record<string, unknown>) => [c.card_id, ...SECRET_FIELDS.map((f) => c[f])];
    expect(cards.map(pick).sort()).toEqual(stored.map((c) => pick(c as unknown as Record<string, unknown>)).sort());
    expect(cards.map((c) => c.card_default_pin).sort()).toEqual(['1111', '2222', '3333']);

    const listed = env.proxy.relayed.find((r) => r.method === 'GET' && r.path === '/openapi/v1/cards')!;
    const onTheWire = (JSON.parse(listed.responseBody) as { data: { cards: Array<Record<string, string>> } }).data.cards;
    for (const wireCard of onTheWire) expect(SECRET_FIELDS.map((f) => wireCard[f])).not.toContain(PIN);
    expect(onTheWire.map((c) => c.card_default_pin).some((v) => ['1111', '2222', '3333'].includes(v!))).toBe(false);
  });
});

describe('client and sandbox configured differently', () => {
  const env = useSandboxBehindProxy(() => ({ cipher: aesGcmCipher(SECRET) }));

  const mismatched: ReadonlyArray<readonly [string, FieldCipher]> = [
    ['another scheme (aesCbcCipher)', aesCbcCipher(SECRET)],
    ['the same scheme under another secret', aesGcmCipher(`${SECRET}-rotated`)],
    ['a user-written cipher', chachaCipher(SECRET)],
  ];

  it.each(mismatched)('%s: cards.list raises CipherError naming the field, quoting no value', async (_name, wrong) => {
    const right = viaProxy(env.proxy, { cipher: aesGcmCipher(SECRET) });
    await right.cards.create(validCard({ card_default_pin: PIN }));
    const plain = env.server.cards()[0]!.card;

    const error = await viaProxy(env.proxy, { cipher: wrong }).cards.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CipherError);
    const cipherError = error as CipherError;
    expect(cipherError.field).toBe('card_number'); // the first secret field of the first card
    expect(cipherError.message).toContain('card_number');
    // The idempotency key is a random UUID: a 3-digit CVV2 can appear in it by chance, so it is left out of the search.
    const shown = `${cipherError.message}\n${JSON.stringify(cipherError)}`.split(cipherError.idempotencyKey ?? '\u0000').join('<key>');
    for (const value of [plain.card_number, plain.card_cvv2, plain.card_token, PIN, SECRET]) expect(shown).not.toContain(value);
  });

  it('the sandbox refuses a PIN it cannot decrypt (400 INVALID_FIELD card_default_pin) and stores nothing', async () => {
    const error = await viaProxy(env.proxy, { cipher: aesCbcCipher(SECRET) }).cards.create(validCard({ card_default_pin: PIN })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, errorCode: 'INVALID_FIELD', errors: [expect.objectContaining({ field: 'card_default_pin' })] });
    expect(env.server.cards()).toEqual([]);
    expect(cardPosts(env.proxy)).toHaveLength(1); // a 400 is not retried
  });
});

describe('production needs an explicit cipher', () => {
  const env = useSandboxBehindProxy(() => ({ environment: 'production', cipher: aesCbcCipher(SECRET) }));
  const productionClient = (extra: Parameters<typeof clientFor>[2] = {}) => viaProxy(env.proxy, { environment: 'production', ...extra });

  it('without one: a clear OpenBankingError naming the field, and zero requests at the sandbox', async () => {
    const ob = productionClient();
    expect(ob).toBeInstanceOf(OpenBanking);
    const error = await ob.cards.create(validCard({ card_default_pin: PIN })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenBankingError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error).not.toBeInstanceOf(CipherError);
    const message = (error as Error).message;
    expect(message).toMatch(/card_default_pin/);
    expect(message).toMatch(/production/);
    expect(message).toMatch(/cipher/);
    expect(message).not.toContain(PIN);
    expect(env.server.requests.count()).toBe(0); // not even a token request
    expect(env.proxy.relayed).toEqual([]);
    expect(env.server.cards()).toEqual([]);
  });

  it('with the provider\'s cipher the same call goes through, encrypted', async () => {
    const card = await productionClient({ cipher: aesCbcCipher(SECRET) }).cards.create(validCard({ card_default_pin: PIN }));
    expect(card.card_default_pin).toBe(PIN);
    const wire = JSON.parse(cardPosts(env.proxy)[0]!.requestBody) as Record<string, string>;
    expect(referenceAesCbc.decrypt(SECRET, wire.card_default_pin!)).toBe(PIN);
  });

  it('cipher: plaintextCipher counts as explicit, and a sandbox that takes plain text accepts it', async () => {
    const plainServer = await startSandboxServer({ environment: 'production', clients: [APP] });
    const plainProxy = await startRecordingProxy(plainServer.url);
    try {
      const ob = viaProxy(plainProxy, { environment: 'production', cipher: plaintextCipher });
      const card = await ob.cards.create(validCard({ card_default_pin: PIN }));
      expect(card.card_default_pin).toBe(PIN);
      expect(JSON.parse(cardPosts(plainProxy)[0]!.requestBody).card_default_pin).toBe(PIN);
    } finally {
      await plainProxy.close();
      await plainServer.close();
    }
  });
});
