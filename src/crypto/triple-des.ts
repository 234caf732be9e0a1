// Node only: Web Crypto has no TripleDES. Reached through `openbanking-ng/node`, never from the
// main entry.
import { Buffer } from 'node:buffer';
import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject } from 'node:crypto';
import { CipherError } from '../errors/base.js';
import type { FieldCipher } from './ciphers.js';
import { checkCiphertext, checkPlaintext, checkSecret, fromBase64, isWellFormed } from './bytes.js';

const NAME = 'tripleDesCipher';
const ALGORITHM = 'des-ede3-cbc';
const BLOCK = 8;
const ZERO_IV = Buffer.alloc(BLOCK);

/**
 * The 24 key bytes of {@link tripleDesCipher}: MD5 of the secret's UTF-16LE bytes (16 bytes,
 * K1 ‖ K2), extended to K1 ‖ K2 ‖ K1.
 * @internal
 */
export function tripleDesKeyBytes(secret: string): Buffer {
  const digest = createHash('md5').update(Buffer.from(secret, 'utf16le')).digest();
  return Buffer.concat([digest, digest.subarray(0, BLOCK)]);
}

/**
 * TripleDES (DES-EDE3) in CBC mode through `node:crypto`: the scheme a Nigerian payments gateway
 * publishes for its secure fields. Node only, hence its own entry point `openbanking-ng/node`.
 *
 * The recipe, to the byte:
 * - key: MD5 of the secret encoded as UTF-16LE (16 bytes, K1 ‖ K2), extended to 24 bytes as
 *   K1 ‖ K2 ‖ K1 (two-key TripleDES);
 * - IV: 8 zero bytes, always;
 * - padding: PKCS#5 (PKCS#7 on 8-byte blocks);
 * - text: UTF-16LE;
 * - output: standard padded base64 of the ciphertext (no IV in front).
 *
 * With a fixed IV the scheme is deterministic: equal values give equal ciphertexts. It has no
 * authentication tag; `decrypt` rejects a value whose padding is wrong, whose length is odd or whose
 * UTF-16 is broken, which catches most wrong keys and alterations but not all. Use it because your
 * provider does, not by choice. The empty string is a valid plaintext (one block of padding). The key
 * is derived once per cipher, on first use.
 *
 * @param secret The client secret (a non-empty string). It is not kept once the key exists.
 * @throws `CipherError` (exported by `openbanking-ng`) when `secret` is not a non-empty string.
 * @example
 * ```ts
 * import { OpenBanking } from 'openbanking-ng';
 * import { tripleDesCipher } from 'openbanking-ng/node';
 *
 * const ob = new OpenBanking({
 *   clientId: process.env.OB_CLIENT_ID!,
 *   clientSecret: process.env.OB_CLIENT_SECRET!,
 *   cipher: tripleDesCipher(process.env.OB_CLIENT_SECRET!),
 * });
 * ```
 * @group Ciphers
 */
export function tripleDesCipher(secret: string): FieldCipher {
  checkSecret(NAME, secret);
  let pendingSecret: string | undefined = secret;
  let cached: KeyObject | undefined;
  const key = (): KeyObject => {
    if (cached) return cached;
    const bytes = tripleDesKeyBytes(pendingSecret!);
    cached = createSecretKey(bytes);
    bytes.fill(0);
    pendingSecret = undefined;
    return cached;
  };

  return Object.freeze({
    async encrypt(plaintext: string): Promise<string> {
      checkPlaintext(NAME, plaintext);
      const cipher = createCipheriv(ALGORITHM, key(), ZERO_IV);
      return Buffer.concat([cipher.update(Buffer.from(plaintext, 'utf16le')), cipher.final()]).toString('base64');
    },

    async decrypt(ciphertext: string): Promise<string> {
      checkCiphertext(NAME, ciphertext);
      const raw = fromBase64(NAME, ciphertext);
      if (raw.length === 0 || raw.length % BLOCK !== 0) {
        throw new CipherError(`${NAME}.decrypt: the value is ${raw.length} bytes, not a whole number of ${BLOCK}-byte blocks`);
      }
      let plain: Buffer;
      try {
        const decipher = createDecipheriv(ALGORITHM, key(), ZERO_IV);
        plain = Buffer.concat([decipher.update(raw), decipher.final()]);
      } catch {
        throw new CipherError(`${NAME}.decrypt: the padding is wrong (wrong key, or the value was altered)`);
      }
      // Node decodes UTF-16LE leniently (it drops a trailing odd byte, keeps unpaired surrogates):
      // check both, since either means the bytes are not what was encrypted.
      const text = plain.length % 2 === 0 ? plain.toString('utf16le') : undefined;
      plain.fill(0);
      if (text === undefined || !isWellFormed(text)) {
        throw new CipherError(`${NAME}.decrypt: the decrypted bytes are not UTF-16LE text (wrong key, or the value was altered)`);
      }
      return text;
    },
  });
}
