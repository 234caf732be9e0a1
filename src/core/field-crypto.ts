import { type FieldCipher, plaintextCipher } from '../crypto/cipher.js';
import { CipherError, OpenBankingError } from '../errors/index.js';
import type { PipelineConfig } from './config.js';
import { CIPHERTEXT_MEMO_SIZE, CiphertextMemo } from './ciphertext-memo.js';

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

/**
 * A cipher's own error may quote the value it failed on (a user-written cipher can say anything),
 * so only the SDK's own errors are kept as they are; others keep their class name alone.
 */
function cipherCause(cause: unknown): unknown {
  if (cause instanceof OpenBankingError) return cause;
  const copy = new Error('the cipher failed (its message is withheld: it may quote the value)');
  copy.name = cause instanceof Error ? cause.name : 'Error';
  return copy;
}
