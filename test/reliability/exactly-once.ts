import { expect } from 'vitest';
import { type Card, type FieldCipher, OpenBanking, OpenBankingError, isOpenBankingError } from '../../src/index.js';
import { startSandboxServer, type SandboxFault } from '../../src/testing.js';
import { capturingLogger, sweep } from '../support/leaks.js';
import { table, validCard } from './support.js';

/**
 * The faults the sandbox can inject on `POST /cards`, retryable or not. Slow answers are left to
 * the fault matrix: a timeout is real time, and 50 calls sharing two cores would trip a short
 * one on their own, turning the figures into a measure of the machine.
 */
export const FAULT_MIX: readonly SandboxFault[] = [
  { type: 'status', status: 429, retryAfter: 1 },
  { type: 'status', status: 429 },
  { type: 'status', status: 500 },
  { type: 'status', status: 502 },
  { type: 'status', status: 503 },
  { type: 'status', status: 504 },
  { type: 'html', status: 502 },
  { type: 'empty', status: 503 },
  { type: 'drop' },
  { type: 'drop', when: 'after' },
  { type: 'truncate' },
  // Not retried by the SDK (the 201 arrived but cannot be read): the caller retries with the key.
  { type: 'malformed-json' },
  { type: 'html' },
  { type: 'omit-field', field: 'data.card_id' },
];

/** The POST paths the exactly-once runs send to: cards and, with `mix`, the three money movers. */
const MOVERS = /^\/openapi\/v1\/(cards|transactions\/transfer|bills\/.+\/reference\/.+|direct-debits\/.+)$/;

export interface ExactlyOnceFigures {
  calls: number;
  concurrency: number;
  attempts: number;
  sandboxRequests: number;
  faults: number;
  resolved: number;
  rejected: number;
  rejectedBy: Record<string, number>;
  retriedWithKey: number;
  cards: number;
  /** Transfers, bill payments and debits performed (with `mix`). */
  payments: number;
  duplicates: number;
  leaks: number;
}

/**
 * `calls` × `cards.create` at `concurrency`, over real HTTP, with `faultRate` of all attempts
 * faulted (seeded). Every call must resolve or reject with a typed error carrying its key; every
 * rejected call is then retried with its key (faults off) and must resolve; the sandbox must end
 * with exactly one card per call. Secrets are planted and searched for in every log line and error.
 */
export async function runExactlyOnce(params: {
  calls: number;
  concurrency: number;
  faultRate?: number;
  seed: string;
  /** Given the client secret, the cipher both sides use (default: plaintext). */
  cipher?: (secret: string) => FieldCipher;
  /**
   * Mix the money movers in: calls go in turn to `cards.create`, `transfers.create`, `bills.pay`
   * and `directDebits.charge` (the last three on a customer session), all faulted alike.
   */
  mix?: boolean;
}): Promise<ExactlyOnceFigures> {
  const { calls, concurrency, faultRate = 0.3, seed, mix = false } = params;
  const S = { secret: `sec_ONCE_SENTINEL_${seed}`, pin: '60718293' };
  const cipher = params.cipher?.(S.secret);
  const server = await startSandboxServer({ seed, clients: [{ clientId: 'once-app', clientSecret: S.secret }], ...(cipher ? { cipher } : {}) });
  try {
    const { logger, lines } = capturingLogger();
    let attempts = 0;
    const ob = new OpenBanking({
      clientId: 'once-app',
      clientSecret: S.secret,
      baseUrl: server.baseUrl,
      authUrl: server.authUrl,
      logger,
      logLevel: 'debug',
      timeout: 10_000,
      ...(cipher ? { cipher } : {}),
      retryDelay: 0, sleep: async () => undefined, // retries never wait for real
      fetch: (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        if ((init?.method ?? (input instanceof Request ? input.method : 'GET')) === 'POST' && MOVERS.test(new URL(url).pathname)) attempts++;
        return fetch(input, init);
      },
    });
    const session = ob.forCustomer({ ...server.issueTokens({ clientId: 'once-app', scope: ['transfers.transactions.create', 'bills.transactions.create', 'direct-debits.transaction.create'], expiresIn: 86_400 }), expires_at: Math.floor(Date.now() / 1000) + 86_400 });
    const rule = server.faults.inject({ path: MOVERS, method: 'POST', times: Infinity, probability: faultRate, fault: [...FAULT_MIX] });

    const body = (i: number) => validCard({ card_holder_name: `Holder ${i}`, card_default_pin: S.pin });
    const send = (i: number, key?: string): Promise<{ data: unknown; idempotencyKey: string }> => {
      const options = key === undefined ? undefined : { idempotencyKey: key };
      switch (mix ? i % 4 : 0) {
        case 1:
          return session.transfers.create({ amount: 1_000 + i, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '0987654321', reference: `T-${i}` }, options).withResponse();
        case 2:
          return session.bills.pay(3, 'DSTV', `BILL-${i}`, { amount: 1_000 + i, source_account_number: '0123456789', payer_info: { name: `Payer ${i}` } }, options).withResponse();
        case 3:
          return session.directDebits.charge('MAN000000001', { amount: 1_000 + i, reference: `D-${i}` }, options).withResponse();
        default:
          return ob.cards.create(body(i), options).withResponse();
      }
    };
    const outcomes: Array<{ key: string; card?: Card; data?: unknown; error?: OpenBankingError }> = [];
    const stray: unknown[] = [];
    let next = 0;
    const worker = async () => {
      while (next < calls) {
        const i = next++;
        try {
          const result = await send(i);
          outcomes[i] = { key: result.idempotencyKey, data: result.data, ...(mix && i % 4 !== 0 ? {} : { card: result.data as Card }) };
        } catch (error) {
          if (!isOpenBankingError(error) || typeof error.idempotencyKey !== 'string') stray.push(error);
          outcomes[i] = { key: (error as OpenBankingError).idempotencyKey!, error: error as OpenBankingError };
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    rule.cancel();
    const faults = rule.injected;
    const firstPass = attempts;

    // Every failure is typed and carries its key: never a raw TypeError or SyntaxError.
    expect(stray).toEqual([]);
    const rejected = outcomes.filter((o) => o.error);
    const rejectedBy: Record<string, number> = {};
    for (const o of rejected) rejectedBy[o.error!.name] = (rejectedBy[o.error!.name] ?? 0) + 1;

    // Retrying a rejected call with its key succeeds and stores nothing new.
    for (const o of rejected) {
      const i = outcomes.indexOf(o);
      const again = await send(i, o.key);
      o.data = again.data;
      if (!mix || i % 4 === 0) o.card = again.data as Card;
    }

    // Every attempt the client made reached the sandbox and was counted there.
    const sandboxRequests = server.requests.count({ path: MOVERS, method: 'POST' });
    expect(sandboxRequests).toBe(attempts);
    const stored = server.cards();
    const moved = server.payments();
    const perKey = new Map<string, number>();
    for (const key of [...stored.map((c) => c.idempotencyKey), ...moved.map((p) => p.idempotencyKey)]) perKey.set(key, (perKey.get(key) ?? 0) + 1);
    const duplicates = stored.length + moved.length - perKey.size;
    const byKey = new Map(stored.map((c) => [c.idempotencyKey, c.card]));
    const movedByKey = new Map(moved.map((p) => [p.idempotencyKey, p]));
    expect(outcomes).toHaveLength(calls);
    expect(new Set(outcomes.map((o) => o.key)).size).toBe(calls);
    for (const [i, o] of outcomes.entries()) {
      expect(perKey.get(o.key), `call ${i}`).toBe(1);
      if (mix && i % 4 !== 0) {
        expect(movedByKey.get(o.key), `call ${i}`).toMatchObject({ kind: ['', 'transfer', 'bill', 'debit'][i % 4], amount: 1_000 + i });
        continue;
      }
      expect(o.card?.card_id).toBe(byKey.get(o.key)?.card_id);
      expect(byKey.get(o.key)?.card_holder_name).toBe(`Holder ${i}`);
    }

    const leaks = sweep(lines, rejected.map((o) => o.error), Object.values(S)).length;
    const figures: ExactlyOnceFigures = {
      calls,
      concurrency,
      attempts,
      sandboxRequests,
      faults,
      resolved: calls - rejected.length,
      rejected: rejected.length,
      rejectedBy,
      retriedWithKey: rejected.length,
      cards: stored.length,
      payments: moved.length,
      duplicates,
      leaks,
    };
    console.log(
      `exactly once (${seed}${cipher ? ', card PIN under a random-IV cipher' : ''}${mix ? ', cards · transfers · bills · debits' : ''}):\n${table([
        {
          calls,
          concurrency,
          attempts,
          'faults injected': faults,
          'faulted (first pass)': `${((100 * faults) / firstPass).toFixed(1)} %`,
          'rejected (typed, with key)': rejected.length,
          'retried with key → ok': rejected.length,
          'cards stored': stored.length,
          ...(mix ? { 'transfers · bills · debits performed': ['transfer', 'bill', 'debit'].map((k) => moved.filter((p) => p.kind === k).length).join(' · ') } : {}),
          duplicates,
          'sentinel leaks': leaks,
        },
      ])}\nrejections by type: ${JSON.stringify(rejectedBy)}; attempts counted at the sandbox ${sandboxRequests} (retries with the key included)`,
    );
    expect(stored.length + moved.length).toBe(calls);
    expect(duplicates).toBe(0);
    expect(leaks).toBe(0);
    expect(faults).toBeGreaterThan(0);
    return figures;
  } finally {
    await server.close();
  }
}
