import { describe, expect, it } from 'vitest';
import { aesGcmCipher } from '../../src/index.js';
import { runExactlyOnce } from './exactly-once.js';

// The short run of the exactly-once suite; `npm run test:stress` runs 1,000 calls.
describe('exactly once under faults', () => {
  it('200 cards.create at concurrency 50, 30 % of attempts faulted: 200 cards, no duplicates, no leaks', async () => {
    const figures = await runExactlyOnce({ calls: 200, concurrency: 50, seed: 'once-200' });
    expect(figures.cards).toBe(200);
    expect(figures.attempts).toBeGreaterThan(200);
  });

  it('200 calls mixing cards, transfers, bill payments and direct debits: each performed once', async () => {
    const figures = await runExactlyOnce({ calls: 200, concurrency: 50, seed: 'once-200-mix', mix: true });
    expect([figures.cards, figures.payments, figures.duplicates]).toEqual([50, 150, 0]);
  });

  it('the same with AES-GCM on the PIN: a retry under the key re-sends the same ciphertext, so it replays', async () => {
    const figures = await runExactlyOnce({ calls: 200, concurrency: 50, seed: 'once-200-gcm', cipher: aesGcmCipher });
    expect(figures.cards).toBe(200);
    expect(figures.rejected).toBeGreaterThan(0);
  });
});
