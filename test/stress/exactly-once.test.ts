import { describe, expect, it } from 'vitest';
import { aesGcmCipher } from '../../src/index.js';
import { runExactlyOnce } from '../reliability/exactly-once.js';

// `npm run test:stress`: the long exactly-once runs (the short ones are in `npm test`).
describe('exactly once under faults (stress)', () => {
  it('1,000 cards.create at concurrency 50, 30 % of attempts faulted: 1,000 cards, no duplicates, no leaks', async () => {
    const figures = await runExactlyOnce({ calls: 1_000, concurrency: 50, seed: 'once-1000' });
    expect(figures.cards).toBe(1_000);
    expect(figures.duplicates).toBe(0);
    expect(figures.leaks).toBe(0);
  });

  it('1,000 calls mixing cards.create, transfers.create, bills.pay and directDebits.charge, 30 % faulted: each performed once', async () => {
    const figures = await runExactlyOnce({ calls: 1_000, concurrency: 50, seed: 'once-1000-mix', mix: true });
    expect(figures.cards).toBe(250);
    expect(figures.payments).toBe(750);
    expect(figures.duplicates).toBe(0);
    expect(figures.leaks).toBe(0);
  });

  it('the same with the PIN under AES-GCM (a random IV per encryption)', async () => {
    const figures = await runExactlyOnce({ calls: 1_000, concurrency: 50, seed: 'once-1000-gcm', cipher: aesGcmCipher });
    expect(figures.cards).toBe(1_000);
    expect(figures.duplicates).toBe(0);
    expect(figures.leaks).toBe(0);
  });
});
