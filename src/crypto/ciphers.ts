import { CipherError } from '../errors/base.js';
import { checkCiphertext, checkPlaintext, checkSecret, concat, fromBase64, fromUtf8, type IvSource, lazyKey, randomIv, subtle, takeIv, toBase64, utf8, fromHex, toHex } from './bytes.js';

/**
 * Encrypts and decrypts one secret card field (PIN, CVV2, card number, card token).
 *
 * The service says these fields are "encrypted with the client secret" and does not name the
 * scheme, so the SDK never guesses: pick the built-in cipher your provider documents, or write
 * your own in a few lines. Both methods work on one string and must be inverse of each other.
 *
 * @example
 * ```ts
 * import type { FieldCipher } from 'openbanking-ng';
 * const reversed: FieldCipher = {
 *   encrypt: async (text) => [...text].reverse().join(''),
 *   decrypt: async (text) => [...text].reverse().join(''),
 * };
 * ```
 * @group Ciphers
 */
export interface FieldCipher {
  /** Turns a plaintext value into the text sent on the wire. */
  encrypt(plaintext: string): Promise<string>;
  /** Turns a value received from the service back into plaintext; rejects when it cannot. */
  decrypt(ciphertext: string): Promise<string>;
}

/**
 * The identity cipher: values cross the wire unchanged, as the provider's public sandbox shows
 * them. It is the default; in `environment: 'production'` it must be chosen explicitly
 * (`cipher: plaintextCipher`) before the SDK sends a secret field.
 * @group Ciphers
 */
export const plaintextCipher: FieldCipher = /* @__PURE__ */ Object.freeze({
  encrypt: (plaintext: string) => Promise.resolve(plaintext),
  decrypt: (ciphertext: string) => Promise.resolve(ciphertext),
});

const GCM = 'aesGcmCipher';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM through Web Crypto, for any runtime that has `crypto.subtle` (Node 20+, Bun, Deno,
 * browsers, edge workers).
 *
 * The recipe, to the byte:
 * - key: the 32 bytes of SHA-256 over the secret's UTF-8 bytes;
 * - IV: 12 random bytes, fresh for every `encrypt`;
 * - tag: 16 bytes (128 bits), no additional authenticated data;
 * - text: UTF-8;
 * - output: standard padded base64 of `IV ‖ ciphertext ‖ tag`.
 *
 * GCM authenticates what it encrypts: a value encrypted under another key, or altered by one bit,
 * fails to decrypt. The empty string is a valid plaintext (its output is `IV ‖ tag`). The key is
 * derived once per cipher, on first use.
 *
 * @param secret The client secret (a non-empty string). It is not kept once the key exists.
 * @throws {@link CipherError} when `secret` is not a non-empty string.
 * @example
 * ```ts
 * import { OpenBanking, aesGcmCipher } from 'openbanking-ng';
 *
 * const ob = new OpenBanking({
 *   clientId: process.env.OB_CLIENT_ID!,
 *   clientSecret: process.env.OB_CLIENT_SECRET!,
 *   cipher: aesGcmCipher(process.env.OB_CLIENT_SECRET!),
 * });
 * ```
 * @group Ciphers
 */
export function aesGcmCipher(secret: string): FieldCipher {
  return createAesGcmCipher(secret);
}

/**
 * {@link aesGcmCipher} with its IV source replaceable, so that tests can reproduce a vector made
 * with a fixed IV. Not part of the package's public entry.
 * @internal
 */
export function createAesGcmCipher(secret: string, ivSource: IvSource = randomIv): FieldCipher {
  checkSecret(GCM, secret);
  let pendingSecret: string | undefined = secret;
  const key = lazyKey(async () => {
    const api = subtle(GCM);
    const digest = await api.digest('SHA-256', utf8(pendingSecret!));
    const cryptoKey = await api.importKey('raw', digest, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    pendingSecret = undefined;
    return cryptoKey;
  });

  return Object.freeze({
    async encrypt(plaintext: string): Promise<string> {
      checkPlaintext(GCM, plaintext);
      const cryptoKey = await key();
      const iv = takeIv(GCM, ivSource, IV_BYTES);
      const sealed = await subtle(GCM).encrypt({ name: 'AES-GCM', iv, tagLength: TAG_BYTES * 8 }, cryptoKey, utf8(plaintext));
      return toBase64(concat(iv, new Uint8Array(sealed)));
    },

    async decrypt(ciphertext: string): Promise<string> {
      checkCiphertext(GCM, ciphertext);
      const raw = fromBase64(GCM, ciphertext);
      if (raw.length < IV_BYTES + TAG_BYTES) {
        throw new CipherError(`${GCM}.decrypt: the value is ${raw.length} bytes, shorter than IV ‖ tag (${IV_BYTES + TAG_BYTES} bytes)`);
      }
      const cryptoKey = await key();
      let plain: ArrayBuffer;
      try {
        plain = await subtle(GCM).decrypt({ name: 'AES-GCM', iv: raw.subarray(0, IV_BYTES), tagLength: TAG_BYTES * 8 }, cryptoKey, raw.subarray(IV_BYTES));
      } catch {
        throw new CipherError(`${GCM}.decrypt: the value does not authenticate (wrong key, or the value was altered)`);
      }
      return fromUtf8(GCM, plain);
    },
  });
}

const CBC = 'aesCbcCipher';
const BLOCK = 16;

/**
 * The 32 key bytes of {@link aesCbcCipher}: the first 32 characters of base64(SHA-256(UTF-8 of the
 * secret)), taken as their 32 ASCII (= UTF-8) bytes.
 * @internal
 */
export async function aesCbcKeyBytes(secret: string): Promise<Uint8Array<ArrayBuffer>> {
  const digest = await subtle(CBC).digest('SHA-256', utf8(secret));
  return utf8(toBase64(new Uint8Array(digest)).slice(0, 32));
}

/**
 * AES-256-CBC through Web Crypto: the scheme a Nigerian card-issuing API publishes for its card
 * fields. Runs wherever `crypto.subtle` does.
 *
 * The recipe, to the byte:
 * - key: the first 32 characters of base64(SHA-256(the secret's UTF-8 bytes)), taken as 32 UTF-8
 *   bytes (base64 characters are ASCII, so one byte each);
 * - IV: 16 random bytes, fresh for every `encrypt`;
 * - padding: PKCS#7;
 * - text: UTF-8;
 * - output: lowercase hex of `IV ‖ ciphertext` (uppercase hex is accepted by `decrypt`).
 *
 * CBC has no authentication tag. `decrypt` rejects a value whose padding or UTF-8 is broken, which
 * is what a wrong key or an altered value almost always produces, but it cannot prove integrity the
 * way {@link aesGcmCipher} does. The empty string is a valid plaintext (one block of padding). The
 * key is derived once per cipher, on first use.
 *
 * @param secret The client secret (a non-empty string). It is not kept once the key exists.
 * @throws {@link CipherError} when `secret` is not a non-empty string.
 * @example
 * ```ts
 * import { OpenBanking, aesCbcCipher } from 'openbanking-ng';
 *
 * const ob = new OpenBanking({
 *   clientId: process.env.OB_CLIENT_ID!,
 *   clientSecret: process.env.OB_CLIENT_SECRET!,
 *   cipher: aesCbcCipher(process.env.OB_CLIENT_SECRET!),
 * });
 * ```
 * @group Ciphers
 */
export function aesCbcCipher(secret: string): FieldCipher {
  return createAesCbcCipher(secret);
}

/**
 * {@link aesCbcCipher} with its IV source replaceable, so that tests can reproduce a vector made
 * with a fixed IV. Not part of the package's public entry.
 * @internal
 */
export function createAesCbcCipher(secret: string, ivSource: IvSource = randomIv): FieldCipher {
  checkSecret(CBC, secret);
  let pendingSecret: string | undefined = secret;
  const key = lazyKey(async () => {
    const bytes = await aesCbcKeyBytes(pendingSecret!);
    const cryptoKey = await subtle(CBC).importKey('raw', bytes, { name: 'AES-CBC' }, false, ['encrypt', 'decrypt']);
    bytes.fill(0);
    pendingSecret = undefined;
    return cryptoKey;
  });

  return Object.freeze({
    async encrypt(plaintext: string): Promise<string> {
      checkPlaintext(CBC, plaintext);
      const cryptoKey = await key();
      const iv = takeIv(CBC, ivSource, BLOCK);
      const sealed = await subtle(CBC).encrypt({ name: 'AES-CBC', iv }, cryptoKey, utf8(plaintext));
      return toHex(concat(iv, new Uint8Array(sealed)));
    },

    async decrypt(ciphertext: string): Promise<string> {
      checkCiphertext(CBC, ciphertext);
      const raw = fromHex(CBC, ciphertext);
      if (raw.length < 2 * BLOCK || raw.length % BLOCK !== 0) {
        throw new CipherError(`${CBC}.decrypt: the value is ${raw.length} bytes; IV ‖ ciphertext must be a multiple of ${BLOCK} and at least ${2 * BLOCK}`);
      }
      const cryptoKey = await key();
      let plain: ArrayBuffer;
      try {
        // Web Crypto checks the whole PKCS#7 padding and rejects when it is wrong.
        plain = await subtle(CBC).decrypt({ name: 'AES-CBC', iv: raw.subarray(0, BLOCK) }, cryptoKey, raw.subarray(BLOCK));
      } catch {
        throw new CipherError(`${CBC}.decrypt: the padding is wrong (wrong key, or the value was altered)`);
      }
      // With a wrong key the padding still checks out about once in 250 tries; the strict UTF-8
      // decoding rejects all but a few in a million of those.
      return fromUtf8(CBC, plain);
    },
  });
}
