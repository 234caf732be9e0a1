/** How the `signature` header's SHA-256 digest is written: lowercase hex (default) or base64. @group Client */
export type SignatureEncoding = 'hex' | 'base64';

type NodeCrypto = {
  createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(encoding: SignatureEncoding): string } };
};

// On Node, `process.getBuiltinModule` hands out node:crypto without a static `node:` import, so
// the main entry stays runtime-neutral; its synchronous hash costs ~1 µs against 15–50 µs for
// `crypto.subtle.digest`. Everywhere else (browsers, Deno, edge) Web Crypto computes the same bytes.
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

/**
 * The request signature of the spec: SHA-256 of `clientSecret + ';' + idempotencyKey`, written
 * in `encoding`. Computed once per logical call and re-sent unchanged on every retry.
 */
export function computeSignature(
  clientSecret: string,
  idempotencyKey: string,
  encoding: SignatureEncoding = 'hex',
): string | Promise<string> {
  const input = `${clientSecret};${idempotencyKey}`;
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(input, 'utf8').digest(encoding);
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(input)).then((buffer) => {
    const bytes = new Uint8Array(buffer);
    return encoding === 'hex' ? toHex(bytes) : toBase64(bytes);
  });
}
