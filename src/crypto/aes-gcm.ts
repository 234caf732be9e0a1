import { CipherError } from '../errors/index.js';
import type { FieldCipher } from './cipher.js';
import {
  checkCiphertext,
  checkPlaintext,
  checkSecret,
  concat,
  fromBase64,
  fromUtf8,
  type IvSource,
  lazyKey,
  randomIv,
  subtle,
  takeIv,
  toBase64,
  utf8,
} from './bytes.js';

const NAME = 'aesGcmCipher';
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
  checkSecret(NAME, secret);
  let pendingSecret: string | undefined = secret;
  const key = lazyKey(async () => {
    const api = subtle(NAME);
    const digest = await api.digest('SHA-256', utf8(pendingSecret!));
    const cryptoKey = await api.importKey('raw', digest, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    pendingSecret = undefined;
    return cryptoKey;
  });

  return Object.freeze({
    async encrypt(plaintext: string): Promise<string> {
      checkPlaintext(NAME, plaintext);
      const cryptoKey = await key();
      const iv = takeIv(NAME, ivSource, IV_BYTES);
      const sealed = await subtle(NAME).encrypt({ name: 'AES-GCM', iv, tagLength: TAG_BYTES * 8 }, cryptoKey, utf8(plaintext));
      return toBase64(concat(iv, new Uint8Array(sealed)));
    },

    async decrypt(ciphertext: string): Promise<string> {
      checkCiphertext(NAME, ciphertext);
      const raw = fromBase64(NAME, ciphertext);
      if (raw.length < IV_BYTES + TAG_BYTES) {
        throw new CipherError(`${NAME}.decrypt: the value is ${raw.length} bytes, shorter than IV ‖ tag (${IV_BYTES + TAG_BYTES} bytes)`);
      }
      const cryptoKey = await key();
      let plain: ArrayBuffer;
      try {
        plain = await subtle(NAME).decrypt({ name: 'AES-GCM', iv: raw.subarray(0, IV_BYTES), tagLength: TAG_BYTES * 8 }, cryptoKey, raw.subarray(IV_BYTES));
      } catch {
        throw new CipherError(`${NAME}.decrypt: the value does not authenticate (wrong key, or the value was altered)`);
      }
      return fromUtf8(NAME, plain);
    },
  });
}
