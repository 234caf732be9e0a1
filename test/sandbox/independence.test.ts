import { describe, expect, it, vi } from 'vitest';
import { AuthenticationError, type FieldCipher } from '../../src/index.js';
import { createSandbox } from '../../src/testing.js';
import { clientFor, validCard } from './support.js';

// The sandbox checks the client from the spec, not with the client's own code: here the client's
// pieces are made wrong on purpose (as a bug would make them), and the sandbox must notice.
const broken = vi.hoisted(() => ({ signature: false }));

// A client that signs `idempotencyKey;clientSecret` instead of the spec's `clientSecret;idempotencyKey`.
vi.mock('../../src/crypto/bytes.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/crypto/bytes.js')>();
  return {
    ...original,
    computeSignature: (secret: string, key: string, encoding?: 'hex' | 'base64') =>
      broken.signature ? original.computeSignature(key, secret, encoding) : original.computeSignature(secret, key, encoding),
  };
});

// A client that forgets that the CVV2 of a response is one of the spec's encrypted fields.
vi.mock('../../src/schemas/cards.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/schemas/cards.js')>();
  return { ...original, CARD_SECRET_RESPONSE_FIELDS: original.CARD_SECRET_RESPONSE_FIELDS.filter((field) => field !== 'card_cvv2') };
});

const app = { clientId: 'app', clientSecret: 'app-secret' };

describe('the sandbox does not mirror the client it tests', () => {
  it('a client that computes the signature wrongly is refused with 401, however the client computes it', async () => {
    const sandbox = createSandbox({ clients: [app] });
    const { ob } = clientFor(sandbox, app, { fetch: sandbox, maxRetries: 0 });
    broken.signature = true;
    try {
      await expect(ob.cards.create(validCard())).rejects.toBeInstanceOf(AuthenticationError);
    } finally {
      broken.signature = false;
    }
    expect(sandbox.cards()).toHaveLength(0);
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_status: 'ACTIVE' });
  });

  it("every secret field of the spec's card answer is encrypted, also one the client forgets to decrypt", async () => {
    const tagged: FieldCipher = {
      encrypt: async (text) => `enc:${btoa(text)}`,
      decrypt: async (text) => {
        if (!text.startsWith('enc:')) throw new Error('not ciphertext');
        return atob(text.slice(4));
      },
    };
    const sandbox = createSandbox({ clients: [app], cipher: tagged });
    const { ob } = clientFor(sandbox, app, { fetch: sandbox, cipher: tagged });
    const card = await ob.cards.create(validCard());
    // The sandbox encrypted the CVV2 as the service does: the client's omission shows.
    expect(card.card_cvv2).toBe(`enc:${btoa(sandbox.cards()[0]!.card.card_cvv2!)}`);
    expect(card.card_number).toBe(sandbox.cards()[0]!.card.card_number);
  });
});
