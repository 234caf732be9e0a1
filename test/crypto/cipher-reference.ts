// Reference implementations of the three published schemes, written straight from their recipes
// with node:crypto and sharing no code with the SDK. The tests use them as the "other side": the
// server that decrypts what the SDK sends and encrypts what it answers.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface ReferenceScheme {
  encrypt(secret: string, plaintext: string): string;
  decrypt(secret: string, ciphertext: string): string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** AES-256-GCM: key SHA-256(secret), 12-byte IV, base64(IV ‖ ciphertext ‖ tag). */
export const referenceAesGcm: ReferenceScheme = {
  encrypt(secret, plaintext) {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', sha256(secret), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
  },
  decrypt(secret, ciphertext) {
    const raw = Buffer.from(ciphertext, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', sha256(secret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  },
};

/** AES-256-CBC: key = first 32 chars of base64(SHA-256(secret)), 16-byte IV, hex(IV ‖ ciphertext). */
export const referenceAesCbc: ReferenceScheme = {
  encrypt(secret, plaintext) {
    const key = Buffer.from(sha256(secret).toString('base64').slice(0, 32), 'utf8');
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final()]).toString('hex');
  },
  decrypt(secret, ciphertext) {
    const key = Buffer.from(sha256(secret).toString('base64').slice(0, 32), 'utf8');
    const raw = Buffer.from(ciphertext, 'hex');
    const decipher = createDecipheriv('aes-256-cbc', key, raw.subarray(0, 16));
    return Buffer.concat([decipher.update(raw.subarray(16)), decipher.final()]).toString('utf8');
  },
};

const desKey = (secret: string) => {
  const md5 = createHash('md5').update(Buffer.from(secret, 'utf16le')).digest();
  return Buffer.concat([md5, md5.subarray(0, 8)]);
};

/** TripleDES-CBC: key MD5(UTF-16LE secret) as K1‖K2‖K1, zero IV, UTF-16LE text, base64. */
export const referenceTripleDes: ReferenceScheme = {
  encrypt(secret, plaintext) {
    const cipher = createCipheriv('des-ede3-cbc', desKey(secret), Buffer.alloc(8));
    return Buffer.concat([cipher.update(plaintext, 'utf16le'), cipher.final()]).toString('base64');
  },
  decrypt(secret, ciphertext) {
    const decipher = createDecipheriv('des-ede3-cbc', desKey(secret), Buffer.alloc(8));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf16le');
  },
};

export interface Vector {
  secret: string;
  plaintext: string;
  key: string;
  iv?: string;
  ciphertext: string;
}

export interface VectorFile {
  tools: { openssl: string; node: string };
  aesCbc: Vector[];
  aesGcm: Vector[];
  tripleDes: Vector[];
}
