// Byte and text helpers of the built-in ciphers, and the one owner of hex, base64 and SHA-256 (the request signature). Every failure is a `CipherError` whose
// message names the cipher and the problem, never the value, the plaintext or the key.
import { CipherError } from '../errors/base.js';

/** Standard base64 with its padding, nothing else (no whitespace, no URL alphabet). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX_TEXT = /^(?:[0-9a-fA-F]{2})+$/;
/** In a `u` regex a surrogate range matches only unpaired surrogates (pairs are read as one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const utf8Encoder = new TextEncoder();
// `fatal` turns invalid UTF-8 into an error instead of U+FFFD; `ignoreBOM` keeps a leading U+FEFF
// that was part of the text.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What a value is, for an error message that must not quote the value itself. */
function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** Fails the cipher factory unless the secret is a non-empty string. */
export function checkSecret(cipher: string, secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new CipherError(`${cipher}(secret): the secret must be a non-empty string, got ${typeof secret === 'string' ? 'an empty string' : kind(secret)}`);
  }
}

/** Checks a plaintext handed to `encrypt`: any well-formed string, the empty string included. */
export function checkPlaintext(cipher: string, plaintext: unknown): asserts plaintext is string {
  if (typeof plaintext !== 'string') throw new CipherError(`${cipher}.encrypt expects a string, got ${kind(plaintext)}`);
  if (LONE_SURROGATE.test(plaintext)) {
    throw new CipherError(`${cipher}.encrypt: the text is not well-formed Unicode (it has an unpaired surrogate) and cannot be encoded faithfully`);
  }
}

/** Checks a value handed to `decrypt`: a non-empty string. */
export function checkCiphertext(cipher: string, ciphertext: unknown): asserts ciphertext is string {
  if (typeof ciphertext !== 'string') throw new CipherError(`${cipher}.decrypt expects a string, got ${kind(ciphertext)}`);
  if (ciphertext.length === 0) throw new CipherError(`${cipher}.decrypt: the value is empty`);
}

/** Whether a string holds no unpaired surrogate. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return utf8Encoder.encode(text) as Uint8Array<ArrayBuffer>;
}

/** Strict UTF-8 decoding: bytes that are not UTF-8 (typically a wrong key) are an error, not U+FFFD. */
export function fromUtf8(cipher: string, bytes: ArrayBuffer | Uint8Array): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw new CipherError(`${cipher}.decrypt: the decrypted bytes are not UTF-8 text (wrong key, or the value was altered)`);
  }
}

/** Decodes standard padded base64, refusing anything else. */
export function fromBase64(cipher: string, text: string): Uint8Array<ArrayBuffer> {
  if (!BASE64.test(text)) throw new CipherError(`${cipher}.decrypt: the value is not standard padded base64`);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Decodes hex (either case), refusing odd lengths and other characters. */
export function fromHex(cipher: string, text: string): Uint8Array<ArrayBuffer> {
  if (!HEX_TEXT.test(text)) throw new CipherError(`${cipher}.decrypt: the value is not hex (an even number of 0-9 a-f characters)`);
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** `a ‖ b`. */
export function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Web Crypto's `SubtleCrypto`, read when needed so that importing the SDK never fails without it. */
export function subtle(cipher: string): SubtleCrypto {
  const found = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!found) throw new CipherError(`${cipher} needs Web Crypto (globalThis.crypto.subtle), which this runtime does not provide`);
  return found;
}

/** Where a cipher gets its IVs. Tests replace it to reproduce published vectors. */
export type IvSource = (length: number) => Uint8Array;

/** A fresh IV of `length` random bytes from Web Crypto. */
export const randomIv: IvSource = (length) => {
  const cryptoApi = (globalThis as { crypto?: Crypto }).crypto;
  if (!cryptoApi?.getRandomValues) throw new CipherError('Web Crypto (globalThis.crypto.getRandomValues) is not available in this runtime');
  return cryptoApi.getRandomValues(new Uint8Array(length));
};

/** Takes an IV from `source` and checks its length. */
export function takeIv(cipher: string, source: IvSource, length: number): Uint8Array<ArrayBuffer> {
  const iv = source(length);
  if (!(iv instanceof Uint8Array) || iv.length !== length) throw new CipherError(`${cipher}: the IV source must return ${length} bytes`);
  return Uint8Array.from(iv);
}

/**
 * A key derived once, on first use, then shared by every call. A failed derivation is forgotten so
 * that the next call tries again.
 */
export function lazyKey<T>(derive: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= derive().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}

/** How the `signature` header's SHA-256 digest is written: lowercase hex (default) or base64. @group Client */
export type SignatureEncoding = 'hex' | 'base64';

type NodeCrypto = {
  createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(encoding: SignatureEncoding): string } };
};

// Node's synchronous hash through `process.getBuiltinModule` (no static `node:` import); Web Crypto elsewhere.
const nodeCrypto: NodeCrypto | undefined = (() => {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    return proc?.getBuiltinModule?.('crypto') as NodeCrypto | undefined; // the bare id: the main entry carries no `node:` specifier
  } catch {
    return undefined;
  }
})();

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** Standard base64 (with padding) of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** SHA-256 of `text`'s UTF-8 bytes, in `encoding`: Node's hash where there is one (synchronous), Web Crypto elsewhere. */
export function sha256(text: string, encoding: SignatureEncoding = 'hex'): string | Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(text, 'utf8').digest(encoding);
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)).then((buffer) => {
    const bytes = new Uint8Array(buffer);
    return encoding === 'hex' ? toHex(bytes) : toBase64(bytes);
  });
}

/**
 * The request signature of the spec: SHA-256 of `clientSecret + ';' + idempotencyKey`, written
 * in `encoding`. Computed once per logical call and re-sent unchanged on every retry.
 */
export function computeSignature(
  clientSecret: string,
  idempotencyKey: string,
  encoding: SignatureEncoding = 'hex',
): string | Promise<string> {
  return sha256(`${clientSecret};${idempotencyKey}`, encoding);
}
