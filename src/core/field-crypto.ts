import { type FieldCipher, plaintextCipher } from '../crypto/ciphers.js';
import { CipherError, OpenBankingError } from '../errors/base.js';
import type { PipelineConfig } from './config.js';
import { type FleetAccess, keyPart } from './store.js';

/**
 * The secret fields of a call, both ways: request fields encrypted once per logical call (the
 * ciphertext remembered under its idempotency key, so a retry re-sends the same bytes), response
 * fields decrypted after validation.
 */
export class FieldCrypto {
  readonly #ciphertexts: CiphertextMemo;

  /** Private, never an own property: it holds the client secret and the cipher. */
  readonly #config: PipelineConfig;

  constructor(config: PipelineConfig) {
    this.#config = config;
    this.#ciphertexts = new CiphertextMemo(CIPHERTEXT_MEMO_SIZE, config.fleet);
  }

  /** `body` with its secret top-level `fields` encrypted; the body itself when none is carried. */
  async encryptRequest(body: unknown, fields: readonly string[] | undefined, idempotencyKey: string): Promise<unknown> {
    if (!fields?.length || !body || typeof body !== 'object') return body;
    const carried = fields.filter((f) => typeof (body as Record<string, unknown>)[f] === 'string');
    if (carried.length === 0) return body;
    const o = this.#config;
    if (o.environment === 'production' && !o.cipherExplicit) {
      throw new OpenBankingError(
        `Refusing to send ${carried.join(', ')} in production without a cipher: the provider encrypts card secrets with a scheme it does not publish. Configure the cipher your provider documents (e.g. cipher: aesCbcCipher(clientSecret)), or cipher: plaintextCipher if it really takes plain text.`,
      );
    }
    const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    for (const field of carried) {
      try {
        copy[field] = await this.#ciphertexts.encrypt(o.cipher, idempotencyKey, field, copy[field] as string);
      } catch (cause) {
        throw new CipherError(`Could not encrypt ${field}`, { field, cause: cipherCause(cause) });
      }
      if (typeof copy[field] !== 'string') throw new CipherError(`The cipher returned a non-string for ${field}`, { field });
    }
    return copy;
  }

  /** Decrypts, in place, the string values at `fields` (dotted paths into `data`, `*` for every array item). */
  async decryptResponse(data: unknown, fields: readonly string[] | undefined, idempotencyKey: string): Promise<void> {
    const { cipher, decryptResponses } = this.#config;
    // The identity cipher hands every value back unchanged: nothing to visit.
    if (!decryptResponses || cipher === plaintextCipher || !fields?.length || !data || typeof data !== 'object') return;
    for (const field of fields) {
      const name = field.slice(field.lastIndexOf('.') + 1);
      await mapStrings(data, field.split('.'), (value) => decryptField(cipher, value, name, idempotencyKey));
    }
  }
}

async function decryptField(cipher: FieldCipher, value: string, name: string, idempotencyKey: string): Promise<string> {
  if (value === '') return value; // an empty field carries no secret to decrypt
  try {
    const plain = await cipher.decrypt(value);
    if (typeof plain !== 'string') throw new TypeError('non-string result');
    return plain;
  } catch (cause) {
    throw new CipherError(`Could not decrypt ${name} of the response: the value does not match the configured cipher`, {
      field: name,
      idempotencyKey,
      cause: cipherCause(cause),
    });
  }
}

/** Reads a value at a dotted path with `*` for array items, replacing each string leaf by `visit`'s answer. */
async function mapStrings(target: unknown, path: string[], visit: (value: string) => Promise<string>): Promise<void> {
  if (target === null || typeof target !== 'object') return;
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (head === '*') {
    if (Array.isArray(target)) await Promise.all(target.map((item) => mapStrings(item, rest, visit)));
    return;
  }
  const record = target as Record<string, unknown>;
  if (rest.length === 0) {
    if (typeof record[head] === 'string') record[head] = await visit(record[head]);
    return;
  }
  await mapStrings(record[head], rest, visit);
}

/** A user cipher's error may quote the value it failed on: only its class name is kept. */
function cipherCause(cause: unknown): unknown {
  if (cause instanceof OpenBankingError) return cause;
  const copy = new Error('the cipher failed (its message is withheld: it may quote the value)');
  copy.name = cause instanceof Error ? cause.name : 'Error';
  return copy;
}

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
    // The identity cipher is deterministic (nothing to remember) and hands the value back as it is.
    if (cipher === plaintextCipher) return plaintext;
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
