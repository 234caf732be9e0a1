/*
 * The sandbox's own hashing, through Web Crypto, for the checks the service makes: the request
 * signature and the PKCE challenge. Written here rather than taken from the client, so that a
 * mistake in the client's signing is refused by the sandbox instead of being mirrored by it.
 */

/** SHA-256 of the UTF-8 bytes of `text`. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** Lowercase hex of `bytes`. */
export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Standard base64, padded, of `bytes`. */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The spec's request signature: SHA-256 of `clientSecret;idempotencyKey`, in hex or base64. */
export async function specSignature(clientSecret: string, idempotencyKey: string, encoding: 'hex' | 'base64'): Promise<string> {
  const digest = await sha256(`${clientSecret};${idempotencyKey}`);
  return encoding === 'hex' ? hex(digest) : base64(digest);
}
