// Known-answer tests: the SDK against vectors written by OpenSSL (AES-256-CBC, TripleDES) and
// node:crypto (AES-256-GCM). The vectors are committed; test/fixtures/make-cipher-vectors.sh shows
// the exact commands that wrote them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { aesCbcCipher, aesGcmCipher, CipherError } from '../../src/index.js';
import { tripleDesCipher } from '../../src/node.js';
import { aesCbcKeyBytes, createAesCbcCipher } from '../../src/crypto/ciphers.js';
import { createAesGcmCipher } from '../../src/crypto/ciphers.js';
import { tripleDesKeyBytes } from '../../src/crypto/triple-des.js';
import type { IvSource } from '../../src/crypto/bytes.js';
import type { Vector, VectorFile } from './cipher-reference.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/cipher-vectors.json', import.meta.url), 'utf8')) as VectorFile;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
/** An IV source that hands out exactly the vector's IV, once. */
const fixedIv = (ivHex: string): IvSource => {
  let used = false;
  return (length) => {
    if (used) throw new Error('the fixed IV was asked for twice');
    used = true;
    const iv = Uint8Array.from(Buffer.from(ivHex, 'hex'));
    expect(iv.length).toBe(length);
    return iv;
  };
};
const label = (v: Vector) => `${JSON.stringify(v.plaintext)} under ${JSON.stringify(v.secret.slice(0, 14))}`;

describe('the committed vectors', () => {
  it('cover several secrets, the empty string, a 4-digit PIN and non-ASCII text', () => {
    for (const list of [vectors.aesCbc, vectors.aesGcm, vectors.tripleDes]) {
      expect(list.length).toBeGreaterThanOrEqual(30);
      expect(new Set(list.map((v) => v.secret)).size).toBeGreaterThanOrEqual(3);
      const texts = list.map((v) => v.plaintext);
      expect(texts).toContain('');
      expect(texts).toContain('1234');
      expect(texts.some((t) => /[ẹọṣụịṅ]/u.test(t))).toBe(true); // Yoruba, Igbo
      expect(texts.some((t) => /[ɓɗƙƴ]/u.test(t))).toBe(true); // Hausa
      expect(texts.some((t) => /\p{Extended_Pictographic}/u.test(t))).toBe(true); // emoji
      expect(list.some((v) => /[^\x00-\x7f]/.test(v.secret))).toBe(true); // a non-ASCII secret
    }
    expect(vectors.tools.openssl).toMatch(/^OpenSSL \d/);
  });
});

describe('aesCbcCipher against openssl enc -aes-256-cbc', () => {
  it.each(vectors.aesCbc.map((v) => [label(v), v] as const))('decrypts %s', async (_, v) => {
    await expect(aesCbcCipher(v.secret).decrypt(v.ciphertext)).resolves.toBe(v.plaintext);
    await expect(aesCbcCipher(v.secret).decrypt(v.ciphertext.toUpperCase())).resolves.toBe(v.plaintext);
  });

  it.each(vectors.aesCbc.map((v) => [label(v), v] as const))('reproduces %s byte for byte with its IV', async (_, v) => {
    await expect(createAesCbcCipher(v.secret, fixedIv(v.iv!)).encrypt(v.plaintext)).resolves.toBe(v.ciphertext);
  });

  it('derives the key openssl derived', async () => {
    for (const v of vectors.aesCbc) expect(hex(await aesCbcKeyBytes(v.secret))).toBe(v.key);
  });
});

describe('aesGcmCipher against node:crypto aes-256-gcm', () => {
  it.each(vectors.aesGcm.map((v) => [label(v), v] as const))('decrypts %s', async (_, v) => {
    await expect(aesGcmCipher(v.secret).decrypt(v.ciphertext)).resolves.toBe(v.plaintext);
  });

  it.each(vectors.aesGcm.map((v) => [label(v), v] as const))('reproduces %s byte for byte with its IV', async (_, v) => {
    await expect(createAesGcmCipher(v.secret, fixedIv(v.iv!)).encrypt(v.plaintext)).resolves.toBe(v.ciphertext);
  });

  it('uses SHA-256 of the secret as the key (checked through a vector made with that key)', async () => {
    const { createHash } = await import('node:crypto');
    for (const v of vectors.aesGcm) expect(createHash('sha256').update(v.secret, 'utf8').digest('hex')).toBe(v.key);
  });
});

describe('tripleDesCipher against openssl enc -des-ede3-cbc', () => {
  it.each(vectors.tripleDes.map((v) => [label(v), v] as const))('decrypts and reproduces %s', async (_, v) => {
    const cipher = tripleDesCipher(v.secret);
    await expect(cipher.decrypt(v.ciphertext)).resolves.toBe(v.plaintext);
    await expect(cipher.encrypt(v.plaintext)).resolves.toBe(v.ciphertext);
  });

  it('derives the key openssl derived: MD5(UTF-16LE secret) extended K1‖K2‖K1', () => {
    for (const v of vectors.tripleDes) {
      const key = tripleDesKeyBytes(v.secret);
      expect(key.toString('hex')).toBe(v.key);
      expect(key.subarray(16).equals(key.subarray(0, 8))).toBe(true);
    }
  });
});

describe('a vector under the wrong secret', () => {
  const first = (list: Vector[]) => list.find((v) => v.plaintext === '1234')!;
  it.each([
    ['aesGcmCipher', aesGcmCipher, first(vectors.aesGcm)],
    ['aesCbcCipher', aesCbcCipher, first(vectors.aesCbc)],
    ['tripleDesCipher', tripleDesCipher, first(vectors.tripleDes)],
  ] as const)('%s rejects with CipherError', async (_, make, v) => {
    await expect(make(`${v.secret}x`).decrypt(v.ciphertext)).rejects.toBeInstanceOf(CipherError);
  });
});
