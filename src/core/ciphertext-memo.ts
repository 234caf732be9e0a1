import { type FieldCipher, plaintextCipher } from '../crypto/cipher.js';
import { type FleetAccess, keyPart } from './store.js';

/** How many recent (idempotency key, field) ciphertexts a client remembers. */
export const CIPHERTEXT_MEMO_SIZE = 1_000;

/** How long a fleet keeps a call's ciphertexts under its idempotency key: 6 h, the OBN retry window. */
export const SHARED_CIPHERTEXT_TTL_MS = 6 * 60 * 60 * 1000;

/**
 * The ciphertexts a client sent for the secret fields of its recent calls, by idempotency key.
 *
 * A cipher with a random IV (AES-GCM, AES-CBC) encrypts the same PIN to different bytes every
 * time. Within one call that is handled by encrypting once; but a caller who retries a failed
 * call with its idempotency key, as the errors advise, makes a new call, and a server comparing
 * the requests made under a key would see another body and refuse it as a reused key. So the
 * client reuses the ciphertext it sent under that key, provided it still decrypts to the value
 * being sent now (a changed PIN gets a fresh encryption, and the server's refusal). Nothing
 * derived from the plaintext is kept; only ciphertexts that already went over the wire. Bounded
 * to the most recent {@link CIPHERTEXT_MEMO_SIZE} entries, in this process; with a fleet, also
 * in its shared store for {@link SHARED_CIPHERTEXT_TTL_MS}, so a retry from another process
 * re-sends the same bytes.
 */
export class CiphertextMemo {
  readonly #entries = new Map<string, Promise<string>>();
  readonly #shared: FleetAccess | undefined;

  constructor(
    private readonly limit: number = CIPHERTEXT_MEMO_SIZE,
    shared?: FleetAccess,
  ) {
    this.#shared = shared;
  }

  /** `plaintext` encrypted with `cipher`: the ciphertext already sent under this key and field when it still fits. */
  async encrypt(cipher: FieldCipher, idempotencyKey: string, field: string, plaintext: string): Promise<string> {
    // The identity cipher is deterministic: nothing to remember.
    if (cipher === plaintextCipher) return cipher.encrypt(plaintext);
    const id = `${idempotencyKey}\u0000${field}`;
    const remembered = this.#entries.get(id);
    if (remembered !== undefined && (await decryptsTo(cipher, remembered, plaintext))) {
      this.#entries.delete(id);
      this.#entries.set(id, remembered);
      return remembered;
    }
    const ciphertext = this.#shared ? this.#encryptShared(cipher, idempotencyKey, field, plaintext) : cipher.encrypt(plaintext);
    this.#entries.delete(id);
    this.#entries.set(id, ciphertext);
    // A failed encryption is the caller's error to see, not a value to replay.
    ciphertext.catch(() => {
      if (this.#entries.get(id) === ciphertext) this.#entries.delete(id);
    });
    if (this.#entries.size > this.limit) this.#entries.delete(this.#entries.keys().next().value!);
    return ciphertext;
  }

  /** The ciphertext another process of the fleet sent under this key when it still fits, else a fresh one, shared before it is sent. */
  async #encryptShared(cipher: FieldCipher, idempotencyKey: string, field: string, plaintext: string): Promise<string> {
    const shared = this.#shared!;
    // The key and the field name may come from the caller: escaped, so that neither can name another key.
    const key = shared.key('ciphertext', keyPart(idempotencyKey), keyPart(field));
    // Sealed in the store: what does not open (planted, altered) is a miss.
    const stored = await shared.open(key, await shared.get(key));
    if (stored !== undefined && (await decryptsTo(cipher, Promise.resolve(stored), plaintext))) return stored;
    const ciphertext = await cipher.encrypt(plaintext);
    if (typeof ciphertext === 'string') await shared.set(key, await shared.seal(key, ciphertext), SHARED_CIPHERTEXT_TTL_MS);
    return ciphertext;
  }
}

async function decryptsTo(cipher: FieldCipher, ciphertext: Promise<string>, plaintext: string): Promise<boolean> {
  try {
    return (await cipher.decrypt(await ciphertext)) === plaintext;
  } catch {
    return false;
  }
}
