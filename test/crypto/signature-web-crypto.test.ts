import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { computeSignature as nodeSignature } from '../../src/crypto/bytes.js';
import { createSandbox } from '../../src/testing.js';
import { validCard } from '../support/cards.js';

// Where `process.getBuiltinModule` is missing (browsers, Deno, edge runtimes) the signature is
// computed with Web Crypto (src/crypto/bytes.ts). Here the SDK is loaded afresh with it removed,
// and what it computes and sends is compared with node:crypto. The sandbox was loaded before, on
// node:crypto, and checks the header as the provider would.
const sha256 = (input: string, encoding: 'hex' | 'base64') => createHash('sha256').update(input, 'utf8').digest(encoding);

/** Runs `body` with `process.getBuiltinModule` absent and the SDK's modules loaded again inside it. */
async function withoutGetBuiltinModule<T>(body: () => Promise<T>): Promise<T> {
  const original = process.getBuiltinModule;
  expect(typeof original).toBe('function'); // else the Node branch itself is the one untested
  vi.resetModules();
  (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
  try {
    return await body();
  } finally {
    process.getBuiltinModule = original;
    vi.resetModules();
  }
}

const INPUTS: Array<[string, string]> = [
  ['sandbox-secret', 'b7d0f7a2-6a1e-4f7b-9a57-2f0c0d3b8e11'],
  ['test-secret-Ω-123', 'key-1'],
  ['', ''],
  ['s;e;c', 'k'.repeat(255)],
];

describe('the Web Crypto signature branch', () => {
  it('gives the bytes node:crypto gives, in hex and in base64', async () => {
    // On Node the module answers synchronously, with node:crypto.
    expect(nodeSignature('s', 'k', 'base64')).toBe(sha256('s;k', 'base64'));
    await withoutGetBuiltinModule(async () => {
      const { computeSignature } = await import('../../src/crypto/bytes.js');
      expect(computeSignature).not.toBe(nodeSignature);
      for (const [secret, key] of INPUTS) {
        const hex = computeSignature(secret, key, 'hex');
        expect(hex).toBeInstanceOf(Promise); // the Web Crypto branch ran
        expect(await hex).toBe(sha256(`${secret};${key}`, 'hex'));
        expect(await computeSignature(secret, key, 'base64')).toBe(sha256(`${secret};${key}`, 'base64'));
        expect(await computeSignature(secret, key)).toBe(sha256(`${secret};${key}`, 'hex'));
      }
    });
  });

  for (const encoding of ['hex', 'base64'] as const) {
    it(`a client loaded without node:crypto sends the ${encoding} signature the provider checks`, async () => {
      const sandbox = createSandbox({ seed: `web-crypto-${encoding}`, clients: [{ clientId: 'wc-app', clientSecret: 'wc-secret' }], signatureEncodings: [encoding] });
      const sent: Array<{ key: string | null; signature: string | null }> = [];
      const recording = ((input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input as Request, init);
        if (new URL(request.url).pathname.endsWith('/cards')) sent.push({ key: request.headers.get('idempotency-key'), signature: request.headers.get('signature') });
        return sandbox(request);
      }) as typeof fetch;
      await withoutGetBuiltinModule(async () => {
        const { OpenBanking } = await import('../../src/index.js');
        const ob = new OpenBanking({ clientId: 'wc-app', clientSecret: 'wc-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: recording, signatureEncoding: encoding, logLevel: 'off', maxRetries: 0 });
        const card = await ob.cards.create(validCard(), { idempotencyKey: `wc-${encoding}` });
        expect(card.card_id).toMatch(/^card_/);
      });
      // One attempt (a refused signature would have been a 401 and a renewal), signed as node:crypto signs.
      expect(sent).toEqual([{ key: `wc-${encoding}`, signature: sha256(`wc-secret;wc-${encoding}`, encoding) }]);
      expect(sandbox.cards()).toHaveLength(1);
    });
  }
});
