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
export const plaintextCipher: FieldCipher = Object.freeze({
  encrypt: (plaintext: string) => Promise.resolve(plaintext),
  decrypt: (ciphertext: string) => Promise.resolve(ciphertext),
});
