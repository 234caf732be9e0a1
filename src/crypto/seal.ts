import { concat, lazyKey, randomIv, subtle, utf8 } from './bytes.js';

/** Marks a sealed value and its format: `v1.` + base64url(IV ‖ AES-GCM ciphertext and tag). */
const PREFIX = 'v1.';
const IV_BYTES = 12;

/**
 * Seals the values the SDK keeps in a fleet's shared store: AES-256-GCM under a key derived with
 * HKDF-SHA-256 from the client secret, the store key as associated data, so a value can neither
 * be read without the secret nor moved to another key.
 */
export interface StoreSealer {
  /** `value` sealed for `key`. */
  seal(key: string, value: string): Promise<string>;
  /** The value sealed for `key`, or undefined when `sealed` is absent or does not open (altered, planted, another key or secret). */
  open(key: string, sealed: string | undefined): Promise<string | undefined>;
}

/** A {@link StoreSealer} keyed by `secret` (the client secret). */
export function storeSealer(secret: string): StoreSealer {
  const key = lazyKey(async () => {
    const crypto = subtle('fleet store');
    const base = await crypto.importKey('raw', utf8(secret), 'HKDF', false, ['deriveKey']);
    const params = { name: 'HKDF', hash: 'SHA-256', salt: utf8('openbanking-ng fleet store'), info: utf8('AES-256-GCM v1') };
    return crypto.deriveKey(params, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  });
  return {
    async seal(name, value) {
      const iv = randomIv(IV_BYTES) as Uint8Array<ArrayBuffer>;
      const sealed = await subtle('fleet store').encrypt({ name: 'AES-GCM', iv, additionalData: utf8(name) }, await key(), utf8(value));
      return PREFIX + toBase64Url(concat(iv, new Uint8Array(sealed)));
    },
    async open(name, sealed) {
      if (typeof sealed !== 'string' || !sealed.startsWith(PREFIX)) return undefined;
      try {
        const bytes = fromBase64Url(sealed.slice(PREFIX.length));
        if (bytes.length <= IV_BYTES + 16) return undefined;
        const iv = bytes.slice(0, IV_BYTES);
        const plain = await subtle('fleet store').decrypt({ name: 'AES-GCM', iv, additionalData: utf8(name) }, await key(), bytes.slice(IV_BYTES));
        return new TextDecoder('utf-8', { fatal: true }).decode(plain);
      } catch {
        return undefined;
      }
    },
  };
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[\w-]*$/.test(text)) throw new Error('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
