import { concat, lazyKey, randomIv, subtle, utf8 } from './bytes.js';

/**
 * Marks a sealed value: `v1.` + base64url(key id ‖ IV ‖ AES-GCM ciphertext and tag). Values an
 * earlier version wrote carry no key id (`v1.` + base64url(IV ‖ ciphertext and tag)) and still open.
 */
const PREFIX = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 4;

/**
 * Seals the values the SDK keeps in a fleet's shared store: AES-256-GCM under a key derived with
 * HKDF-SHA-256 from the client secret, the store key as associated data, so a value can neither
 * be read without the secret nor moved to another key. The envelope names the key (a key id, also
 * derived from the secret), so that values sealed under an earlier secret open during a rotation.
 */
export interface StoreSealer {
  /** `value` sealed for `key`, always under the current secret. */
  seal(key: string, value: string): Promise<string>;
  /**
   * The value sealed for `key` under the current secret or one of the previous ones, or undefined
   * when `sealed` is absent or does not open (altered, planted, another key or an unknown secret).
   */
  open(key: string, sealed: string | undefined): Promise<string | undefined>;
}

/** One secret's sealing key and the id its envelopes carry. */
interface SealingKey {
  id: Uint8Array;
  key: CryptoKey;
}

function sealingKey(secret: string): () => Promise<SealingKey> {
  return lazyKey(async () => {
    const crypto = subtle('fleet store');
    const base = await crypto.importKey('raw', utf8(secret), 'HKDF', false, ['deriveKey', 'deriveBits']);
    const salt = utf8('openbanking-ng fleet store');
    const key = await crypto.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt, info: utf8('AES-256-GCM v1') }, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const id = new Uint8Array(await crypto.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: utf8('key id v1') }, base, KEY_ID_BYTES * 8));
    return { id, key };
  });
}

/** A {@link StoreSealer} keyed by `secret` (the client secret), opening too what `previous` secrets sealed. */
export function storeSealer(secret: string, previous: readonly string[] = []): StoreSealer {
  const current = sealingKey(secret);
  const keys = [current, ...previous.filter((p) => p !== secret).map(sealingKey)];
  const decrypt = async (key: CryptoKey, name: string, bytes: Uint8Array<ArrayBuffer>) => {
    try {
      const iv = bytes.slice(0, IV_BYTES);
      const plain = await subtle('fleet store').decrypt({ name: 'AES-GCM', iv, additionalData: utf8(name) }, key, bytes.slice(IV_BYTES));
      return new TextDecoder('utf-8', { fatal: true }).decode(plain);
    } catch {
      return undefined;
    }
  };
  return {
    async seal(name, value) {
      const { id, key } = await current();
      const iv = randomIv(IV_BYTES) as Uint8Array<ArrayBuffer>;
      const sealed = await subtle('fleet store').encrypt({ name: 'AES-GCM', iv, additionalData: utf8(name) }, key, utf8(value));
      return PREFIX + toBase64Url(concat(concat(id, iv), new Uint8Array(sealed)));
    },
    async open(name, sealed) {
      if (typeof sealed !== 'string' || !sealed.startsWith(PREFIX)) return undefined;
      let bytes: Uint8Array<ArrayBuffer>;
      try {
        bytes = fromBase64Url(sealed.slice(PREFIX.length));
      } catch {
        return undefined;
      }
      if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
      const loaded = await Promise.all(keys.map((k) => k()));
      // The key the envelope names; then, for a value written before envelopes named their key, every key.
      const named = bytes.length > KEY_ID_BYTES + IV_BYTES + TAG_BYTES ? loaded.find((k) => k.id.every((b, i) => bytes[i] === b)) : undefined;
      const opened = named && (await decrypt(named.key, name, bytes.slice(KEY_ID_BYTES)));
      if (opened !== undefined) return opened;
      for (const k of loaded) {
        const old = await decrypt(k.key, name, bytes);
        if (old !== undefined) return old;
      }
      return undefined;
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
