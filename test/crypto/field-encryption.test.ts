// End to end through the client with msw standing in for the service: the server side decrypts
// the PIN from the raw request body and encrypts the answer's secret fields with independent
// node:crypto code, for every built-in cipher and for a cipher a user wrote.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  aesCbcCipher,
  aesGcmCipher,
  CipherError,
  type FieldCipher,
  isCipherError,
  OpenBankingError,
  plaintextCipher,
  ValidationError,
} from '../../src/index.js';
import { tripleDesCipher } from '../../src/node.js';
import { referenceAesCbc, referenceAesGcm, referenceTripleDes, type ReferenceScheme } from './cipher-reference.js';
import { BASE, createdCard, http, HttpResponse, type Recorded, SECRET, testClient, tokenHandler, useMsw, validCard } from '../support/msw.js';

const server = useMsw();

/**
 * A cipher a user might write for a provider with its own scheme: AES-256-CTR through Web Crypto,
 * key SHA-256('card-fields:' + secret), a random 16-byte counter block in front, base64url.
 */
function userCtrCipher(secret: string): FieldCipher {
  const key = crypto.subtle
    .digest('SHA-256', new TextEncoder().encode(`card-fields:${secret}`))
    .then((digest) => crypto.subtle.importKey('raw', digest, 'AES-CTR', false, ['encrypt', 'decrypt']));
  return {
    async encrypt(text) {
      const counter = crypto.getRandomValues(new Uint8Array(16));
      const body = await crypto.subtle.encrypt({ name: 'AES-CTR', counter, length: 128 }, await key, new TextEncoder().encode(text));
      return Buffer.concat([counter, new Uint8Array(body)]).toString('base64url');
    },
    async decrypt(value) {
      const raw = Buffer.from(value, 'base64url');
      if (raw.length < 16) throw new Error('too short');
      const plain = await crypto.subtle.decrypt({ name: 'AES-CTR', counter: raw.subarray(0, 16), length: 128 }, await key, raw.subarray(16));
      return new TextDecoder('utf-8', { fatal: true }).decode(plain);
    },
  };
}

/** The same user scheme on the server side, in node:crypto. */
const referenceUserCtr: ReferenceScheme = {
  encrypt(secret, plaintext) {
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-ctr', createHash('sha256').update(`card-fields:${secret}`).digest(), iv);
    return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64url');
  },
  decrypt(secret, ciphertext) {
    const raw = Buffer.from(ciphertext, 'base64url');
    const decipher = createDecipheriv('aes-256-ctr', createHash('sha256').update(`card-fields:${secret}`).digest(), raw.subarray(0, 16));
    return Buffer.concat([decipher.update(raw.subarray(16)), decipher.final()]).toString('utf8');
  },
};

/** Flips one bit in the middle of a base64 value. */
const flipBit = (value: string) => {
  const raw = Buffer.from(value, 'base64');
  raw[raw.length >> 1]! ^= 0x10;
  return raw.toString('base64');
};
/** The same text encrypted under another secret: well formed, but not ours. */
const otherKey = (scheme: ReferenceScheme) => () => scheme.encrypt(`${SECRET}-not-ours`, CARD.card_cvv2);

/** Each scheme, its server side, and how a response value gets damaged in the tamper test. */
const schemes: ReadonlyArray<readonly [string, (secret: string) => FieldCipher, ReferenceScheme, (value: string) => string]> = [
  ['aesGcmCipher', aesGcmCipher, referenceAesGcm, flipBit],
  ['aesCbcCipher', aesCbcCipher, referenceAesCbc, otherKey(referenceAesCbc)],
  ['tripleDesCipher', tripleDesCipher, referenceTripleDes, otherKey(referenceTripleDes)],
  // CTR has neither tag nor padding, so only a value the cipher itself refuses (too short) is sure to fail.
  ['a user-written cipher', userCtrCipher, referenceUserCtr, (value) => value.slice(0, 8)],
];

const CARD = { card_number: '5399831234567890', card_cvv2: '739', card_token: 'tok_Ọ̀ṣun_💳' };
const PIN = '0427';

interface ServerState {
  seen: Recorded[];
  /** PINs the server read after decrypting the raw body. */
  pins: string[];
  /** What the server sent for each secret field, last answer. */
  sent: Record<string, string>;
}

/**
 * `POST /cards` as the service would do it with `scheme`: decrypt the PIN from the raw body,
 * answer with every secret field encrypted. `answers` picks the status of each attempt.
 */
function cardsServer(scheme: ReferenceScheme, state: ServerState, options: { statuses?: number[]; tamper?: (sent: Record<string, string>) => void } = {}) {
  return http.post(`${BASE}/cards`, async ({ request }) => {
    const body = await request.text();
    state.seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
    const status = options.statuses?.[state.seen.length - 1] ?? 201;
    if (status >= 400) return HttpResponse.json({ status: '05', message: 'unavailable', data: {} }, { status });
    const pin = scheme.decrypt(SECRET, (JSON.parse(body) as { card_default_pin: string }).card_default_pin);
    state.pins.push(pin);
    const sent: Record<string, string> = {
      card_number: scheme.encrypt(SECRET, CARD.card_number),
      card_cvv2: scheme.encrypt(SECRET, CARD.card_cvv2),
      card_default_pin: scheme.encrypt(SECRET, pin),
      card_token: scheme.encrypt(SECRET, CARD.card_token),
    };
    options.tamper?.(sent);
    state.sent = sent;
    return HttpResponse.json(createdCard(sent), { status: 201 });
  });
}

const newState = (): ServerState => ({ seen: [], pins: [], sent: {} });

describe.each(schemes)('cards.create with %s', (name, make, reference, damage) => {
  it('sends the PIN encrypted and returns the secret fields decrypted', async () => {
    const state = newState();
    server.use(tokenHandler({ tokenRequests: [] }), cardsServer(reference, state));
    const { ob } = testClient({ cipher: make(SECRET) });
    const { data: card, envelope } = await ob.cards.create({ ...validCard(), card_default_pin: PIN }).withResponse();

    expect(state.seen).toHaveLength(1);
    const wire = JSON.parse(state.seen[0]!.body) as Record<string, unknown>;
    expect(wire.card_default_pin).not.toBe(PIN);
    expect(state.pins).toEqual([PIN]); // decrypted by the server's own code
    expect(wire.account_number).toBe('0123456789'); // only the secret field is touched

    expect(card).toMatchObject({ ...CARD, card_default_pin: PIN, card_id: 'card_1' });
    // The envelope is what the service sent: still encrypted.
    expect((envelope?.data as Record<string, unknown>).card_cvv2).toBe(state.sent.card_cvv2);
  });

  it('re-sends byte-identical bodies on a retry (503 then 201), even with a random IV', async () => {
    const state = newState();
    server.use(tokenHandler({ tokenRequests: [] }), cardsServer(reference, state, { statuses: [503, 503, 201] }));
    const { ob, sleeps } = testClient({ cipher: make(SECRET) });
    const card = await ob.cards.create({ ...validCard(), card_default_pin: PIN });
    expect(card.card_cvv2).toBe(CARD.card_cvv2);
    expect(state.seen).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(new Set(state.seen.map((s) => s.body)).size).toBe(1);
    expect(new Set(state.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(state.pins).toEqual([PIN]);
  });

  it('raises CipherError naming the field when a response value does not decrypt, quoting nothing secret', async () => {
    const state = newState();
    let tampered = '';
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsServer(reference, state, {
        tamper: (sent) => {
          tampered = damage(sent.card_cvv2!);
          sent.card_cvv2 = tampered;
        },
      }),
    );
    const { ob } = testClient({ cipher: make(SECRET) });
    const error = (await ob.cards.create({ ...validCard(), card_default_pin: PIN }, { idempotencyKey: 'cipher-1' }).catch((e: unknown) => e)) as CipherError;

    expect(error).toBeInstanceOf(CipherError);
    expect(isCipherError(error)).toBe(true);
    expect(error.field).toBe('card_cvv2');
    expect(error.idempotencyKey).toBe('cipher-1');
    expect(error.message).toMatch(/card_cvv2/);
    const shown = [error.message, JSON.stringify(error), JSON.stringify(error.toJSON()), inspect(error, { depth: 5 })].join('\n');
    for (const needle of [tampered, ...Object.values(state.sent), CARD.card_cvv2, CARD.card_number, CARD.card_token, SECRET]) {
      expect(shown).not.toContain(needle);
    }
    expect(error.toJSON()).toEqual({ name: 'CipherError', message: error.message, idempotencyKey: 'cipher-1', field: 'card_cvv2' });
    // A built-in cipher's own error says what failed; a user's error is kept as a scrubbed copy.
    expect(error.cause).toBeInstanceOf(name === 'a user-written cipher' ? Error : CipherError);
  });

  it('keeps the ciphertext with decryptResponses: false', async () => {
    const state = newState();
    server.use(tokenHandler({ tokenRequests: [] }), cardsServer(reference, state));
    const { ob } = testClient({ cipher: make(SECRET), decryptResponses: false });
    const card = await ob.cards.create({ ...validCard(), card_default_pin: PIN });
    expect(state.pins).toEqual([PIN]); // the request is still encrypted
    for (const field of ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] as const) {
      expect(card[field]).toBe(state.sent[field]);
      expect(reference.decrypt(SECRET, card[field]!)).toBe(field === 'card_default_pin' ? PIN : CARD[field]);
    }
  });
});

describe('cards.list decrypts every card', () => {
  it('with aesCbcCipher', async () => {
    const enc = (text: string) => referenceAesCbc.encrypt(SECRET, text);
    const cards = ['1111', '2222', '3333'].map((pin, i) => ({
      card_id: `card_${i}`,
      card_status: 'ACTIVE',
      card_number: enc(`539983123456789${i}`),
      card_cvv2: enc(`${i}${i}${i}`),
      card_default_pin: enc(pin),
      card_token: enc(`tok_${i}`),
    }));
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.get(`${BASE}/cards`, () => HttpResponse.json({ status: '00', message: 'ok', data: { cards } })),
    );
    const { ob } = testClient({ cipher: aesCbcCipher(SECRET) });
    const { data: list, envelope } = await ob.cards.list().withResponse();
    expect((envelope?.data as { cards: unknown[] }).cards).toEqual(cards); // as the service sent them
    expect(list.cards.map((c) => [c.card_number, c.card_cvv2, c.card_default_pin, c.card_token])).toEqual([
      ['5399831234567890', '000', '1111', 'tok_0'],
      ['5399831234567891', '111', '2222', 'tok_1'],
      ['5399831234567892', '222', '3333', 'tok_2'],
    ]);
  });

  it('names the field of the one card that fails', async () => {
    const good = (text: string) => referenceAesGcm.encrypt(SECRET, text);
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.get(`${BASE}/cards`, () =>
        HttpResponse.json({
          status: '00',
          message: 'ok',
          data: { cards: [{ card_id: 'a', card_status: 'ACTIVE', card_number: good('1') }, { card_id: 'b', card_status: 'ACTIVE', card_token: 'plain-token-not-encrypted' }] },
        }),
      ),
    );
    const { ob } = testClient({ cipher: aesGcmCipher(SECRET) });
    const error = (await ob.cards.list().catch((e: unknown) => e)) as CipherError;
    expect(error).toBeInstanceOf(CipherError);
    expect(error.field).toBe('card_token');
    expect(JSON.stringify(error)).not.toContain('plain-token-not-encrypted');
  });
});

describe('production needs an explicit cipher', () => {
  const productionClient = (extra: Record<string, unknown> = {}) => testClient({ environment: 'production', ...extra });

  it('refuses to send a PIN without one: a clear OpenBankingError and zero requests', async () => {
    const tokens = { tokenRequests: [] as Recorded[] };
    const state = newState();
    server.use(tokenHandler(tokens), cardsServer(referenceAesGcm, state));
    const { ob } = productionClient();
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as OpenBankingError;
    expect(error).toBeInstanceOf(OpenBankingError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/card_default_pin/);
    expect(error.message).toMatch(/cipher/);
    expect(error.message).not.toContain(validCard().card_default_pin);
    expect(state.seen).toHaveLength(0);
    expect(tokens.tokenRequests).toHaveLength(0);
  });

  it('sends in plain text with cipher: plaintextCipher', async () => {
    const state = newState();
    const plain: ReferenceScheme = { encrypt: (_, text) => text, decrypt: (_, text) => text };
    server.use(tokenHandler({ tokenRequests: [] }), cardsServer(plain, state));
    const { ob } = productionClient({ cipher: plaintextCipher });
    const card = await ob.cards.create(validCard());
    expect(JSON.parse(state.seen[0]!.body).card_default_pin).toBe('1234');
    expect(card.card_cvv2).toBe(CARD.card_cvv2);
  });

  it('sends encrypted with a built-in cipher', async () => {
    const state = newState();
    server.use(tokenHandler({ tokenRequests: [] }), cardsServer(referenceAesGcm, state));
    const { ob } = productionClient({ cipher: aesGcmCipher(SECRET) });
    const card = await ob.cards.create(validCard());
    expect(state.pins).toEqual(['1234']);
    expect(card.card_default_pin).toBe('1234');
  });
});

describe('ob.request: secretFields and the production refusal', () => {
  it('encrypts the named fields (and card_default_pin by default) with the cipher', async () => {
    const bodies: string[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.post(`${BASE}/cards/pin`, async ({ request }) => {
        bodies.push(await request.text());
        return HttpResponse.json({ status: '00', message: 'ok', data: {} });
      }),
    );
    const cipher = { encrypt: async (t: string) => `enc(${t})`, decrypt: async (t: string) => t };
    const { ob } = testClient({ cipher });
    await ob.request({ method: 'POST', path: '/cards/pin', body: { card_default_pin: '1234', note: 'n' } });
    await ob.request({ method: 'POST', path: '/cards/pin', body: { new_pin: '5678', note: 'n' }, secretFields: ['new_pin'] });
    expect(JSON.parse(bodies[0]!)).toEqual({ card_default_pin: 'enc(1234)', note: 'n' });
    expect(JSON.parse(bodies[1]!)).toEqual({ new_pin: 'enc(5678)', note: 'n' });
  });

  it('refuses to send a secret field in production without a cipher, before any request', async () => {
    const { ob } = testClient({ environment: 'production' });
    // No handler: msw would fail the test on any request.
    await expect(ob.request({ method: 'POST', path: '/cards/pin', body: { new_pin: '5678' }, secretFields: ['new_pin'] })).rejects.toThrow(/Refusing to send new_pin in production/);
    await expect(ob.request({ method: 'POST', path: '/cards', body: { card_default_pin: '1234' } })).rejects.toThrow(/Refusing to send card_default_pin/);
    await expect(ob.request({ method: 'POST', path: '/x', body: {}, secretFields: 'pin' as never })).rejects.toBeInstanceOf(ValidationError);
  });
});
