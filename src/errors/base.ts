// The root of the SDK's errors, and the brand that recognises them across two copies of the package.

const BRAND = Symbol.for('openbanking-ng.error');

/** One problem found in a request body, an option or a response, with a dotted path. @group Errors */
export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `'card_expiry.month'`; `''` for the whole value. */
  path: string;
  /** What is wrong, in words. Never contains the offending value. */
  message: string;
  /** Machine-readable reason, e.g. `'invalid_type'`, `'invalid_format'`, `'unrecognized_keys'`. */
  code: string;
}

/**
 * Base class of every error the SDK raises. Check with `instanceof` or, across two copies of the
 * package (ESM and CJS), with {@link isOpenBankingError}.
 * @group Errors
 */
export class OpenBankingError extends Error {
  /** Always `'OpenBankingError'`, also after minification. */
  override name = 'OpenBankingError';
  /** The idempotency key of the logical call, when the error comes from one: retrying with it is safe. */
  idempotencyKey: string | undefined;

  constructor(message: string, options?: { cause?: unknown; idempotencyKey?: string | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.idempotencyKey = options?.idempotencyKey;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** A JSON view with no secrets: the name, the message and the error's own public fields. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key === 'name' || key === 'message' || value === undefined) continue;
      out[key] = value;
    }
    return out;
  }
}

/**
 * A copy of `error` (same class, message, stack, cause and fields) carrying `idempotencyKey`.
 * A failure many calls share, such as one token request they all waited on, reaches each of them
 * as its own object, so each carries its own call's key.
 */
export function withIdempotencyKey<E extends OpenBankingError>(error: E, idempotencyKey: string): E {
  const copy = Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error)) as E;
  copy.idempotencyKey = idempotencyKey;
  return copy;
}

function isBranded(value: unknown): value is OpenBankingError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

function guard<T extends OpenBankingError>(names: readonly string[]): (value: unknown) => value is T {
  return (value: unknown): value is T => isBranded(value) && names.includes(value.name);
}

/** A guard recognising the SDK's errors by their class names, across two copies of the package. */
export { guard };

/** True for any error of this SDK, even one thrown by another copy of the package. @group Errors */
export const isOpenBankingError = (value: unknown): value is OpenBankingError => isBranded(value);
