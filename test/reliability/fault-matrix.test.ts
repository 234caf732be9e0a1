import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  OpenBanking,
  OpenBankingError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  isOpenBankingError,
  type ClientOptions,
} from '../../src/index.js';
import { startSandboxServer, type FaultRule, type SandboxClient, type SandboxServer } from '../../src/testing.js';
import { capturingLogger, sweep } from '../support/leaks.js';
import { CARDS, table, validCard } from './support.js';
import { skipRetryWaits } from '../support/retry-waits.js';

// Sentinels: values planted where a careless log line or error message would pick them up.
const S = {
  secret: 'sec_MATRIX_SENTINEL_4c1d7a',
  pin: '73915046',
  cvv: 'cvv_MATRIX_SENTINEL_9e2f',
  cardNumber: 'pan_MATRIX_SENTINEL_5077',
  cardToken: 'ctk_MATRIX_SENTINEL_1b6d',
};

type ErrorClass = abstract new (...args: never[]) => OpenBankingError;

interface Row {
  name: string;
  faults: Array<Omit<FaultRule, 'path'>>;
  options?: Partial<ClientOptions>;
  /** `'resolved'`, or the class the user gets. */
  expect: 'resolved' | ErrorClass;
  attempts: number;
  cards: number;
  /** After the failure: retry with the same idempotency key, faults withdrawn; cards held then. */
  retrySameKey?: number;
  /** Client-credentials grants the call made, each attempt after a renewal with the new bearer (default 1). */
  tokens?: number;
  check?: (error: OpenBankingError) => void;
}

const storm = { times: Infinity } as const;
const sentinelCard = { card_id: 'card_x', card_status: 'ACTIVE', card_cvv2: S.cvv, card_number: S.cardNumber, card_default_pin: S.pin, card_token: S.cardToken };

const ROWS: Row[] = [
  { name: '429 storm, Retry-After: 1', faults: [{ ...storm, fault: { type: 'status', status: 429, retryAfter: 1 } }], expect: RateLimitError, attempts: 3, cards: 0, retrySameKey: 1, check: (e) => expect((e as RateLimitError).retryAfter).toBe(1_000) },
  { name: '429 storm, no Retry-After', faults: [{ ...storm, fault: { type: 'status', status: 429 } }], expect: RateLimitError, attempts: 3, cards: 0, check: (e) => expect((e as RateLimitError).retryAfter).toBeUndefined() },
  { name: '429, Retry-After > maxRetryDelay', faults: [{ fault: { type: 'status', status: 429, retryAfter: 120 } }], expect: RateLimitError, attempts: 1, cards: 0, check: (e) => expect((e as RateLimitError).retryAfter).toBe(120_000) },
  { name: '429 ×2 then OK', faults: [{ times: 2, fault: { type: 'status', status: 429, retryAfter: 1 } }], expect: 'resolved', attempts: 3, cards: 1 },
  ...[500, 502, 503, 504].map((status): Row => ({ name: `${status} storm`, faults: [{ ...storm, fault: { type: 'status', status } }], expect: InternalServerError, attempts: 3, cards: 0, retrySameKey: 1, check: (e) => expect((e as ApiError).status).toBe(status) })),
  { name: '503 ×2 then OK', faults: [{ times: 2, fault: { type: 'status', status: 503 } }], expect: 'resolved', attempts: 3, cards: 1 },
  { name: '408 storm', faults: [{ ...storm, fault: { type: 'status', status: 408 } }], expect: ApiError, attempts: 3, cards: 0 },
  { name: 'drop before store, storm', faults: [{ ...storm, fault: { type: 'drop' } }], expect: ConnectionError, attempts: 3, cards: 0, retrySameKey: 1 },
  { name: 'drop before store ×1', faults: [{ fault: { type: 'drop' } }], expect: 'resolved', attempts: 2, cards: 1 },
  { name: 'drop after store, storm', faults: [{ ...storm, fault: { type: 'drop', when: 'after' } }], expect: ConnectionError, attempts: 3, cards: 1, retrySameKey: 1 },
  { name: 'drop after store ×1', faults: [{ fault: { type: 'drop', when: 'after' } }], expect: 'resolved', attempts: 2, cards: 1 },
  { name: 'slow (after store), storm', faults: [{ ...storm, fault: { type: 'delay', ms: 900, when: 'after' } }], options: { timeout: 400 }, expect: TimeoutError, attempts: 3, cards: 1, retrySameKey: 1 },
  { name: 'slow (after store) ×1', faults: [{ fault: { type: 'delay', ms: 900, when: 'after' } }], options: { timeout: 400 }, expect: 'resolved', attempts: 2, cards: 1 },
  { name: 'truncated body, storm', faults: [{ ...storm, fault: { type: 'truncate' } }], expect: ConnectionError, attempts: 3, cards: 1, retrySameKey: 1 },
  { name: 'truncated body ×1', faults: [{ fault: { type: 'truncate' } }], expect: 'resolved', attempts: 2, cards: 1 },
  { name: 'malformed JSON on the 201', faults: [{ fault: { type: 'malformed-json' } }], expect: ResponseValidationError, attempts: 1, cards: 1, retrySameKey: 1, check: (e) => expect((e as ResponseValidationError).issues[0]!.code).toBe('invalid_json') },
  { name: 'malformed JSON on 502, storm', faults: [{ ...storm, fault: { type: 'malformed-json', status: 502 } }], expect: InternalServerError, attempts: 3, cards: 0 },
  { name: 'HTML page on the 201', faults: [{ fault: { type: 'html' } }], expect: ResponseValidationError, attempts: 1, cards: 1, retrySameKey: 1 },
  { name: 'HTML page on 502, storm', faults: [{ ...storm, fault: { type: 'html', status: 502 } }], expect: InternalServerError, attempts: 3, cards: 0, check: (e) => expect((e as ApiError).rawBody).toContain('502 Bad Gateway') },
  { name: 'HTML page on 503 ×1', faults: [{ fault: { type: 'html', status: 503 } }], expect: 'resolved', attempts: 2, cards: 1 },
  { name: 'empty body on the 201', faults: [{ fault: { type: 'empty' } }], expect: ResponseValidationError, attempts: 1, cards: 1, retrySameKey: 1, check: (e) => expect((e as ResponseValidationError).issues[0]!.code).toBe('empty_body') },
  { name: 'empty body on 503, storm', faults: [{ ...storm, fault: { type: 'empty', status: 503 } }], expect: InternalServerError, attempts: 3, cards: 0 },
  { name: '201 without data.card_id', faults: [{ fault: { type: 'omit-field', field: 'data.card_id' } }], expect: ResponseValidationError, attempts: 1, cards: 1, retrySameKey: 1, check: (e) => expect((e as ResponseValidationError).issues.map((i) => i.path)).toEqual(['data.card_id']) },
  { name: '201 without the envelope', faults: [{ fault: { type: 'response', status: 201, body: { card: sentinelCard } } }], expect: ResponseValidationError, attempts: 1, cards: 0 },
  { name: '201 cut-off JSON with secrets', faults: [{ fault: { type: 'response', status: 201, body: JSON.stringify({ status: '00', data: sentinelCard }).slice(0, -20) } }], expect: ResponseValidationError, attempts: 1, cards: 0 },
  { name: '400 echoing secrets', faults: [{ fault: { type: 'response', status: 400, body: { status: '01', error_code: 'INVALID_FIELD', message: 'bad', data: sentinelCard } } }], expect: BadRequestError, attempts: 1, cards: 0 },
  { name: '401 once (token renewed)', faults: [{ fault: { type: 'status', status: 401 } }], expect: 'resolved', attempts: 2, cards: 1, tokens: 2 },
  { name: '401 storm', faults: [{ ...storm, fault: { type: 'status', status: 401 } }], expect: AuthenticationError, attempts: 2, cards: 0, tokens: 2 },
  { name: '403', faults: [{ fault: { type: 'status', status: 403 } }], expect: PermissionDeniedError, attempts: 1, cards: 0 },
];

describe('fault matrix: every injected fault over real HTTP, as the user sees it', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  const { logger, lines } = capturingLogger();
  const thrown: unknown[] = [];
  const summary: Array<Record<string, string | number>> = [];

  beforeAll(async () => {
    server = await startSandboxServer({ seed: 'fault-matrix', clients: [{ clientId: 'matrix-app', clientSecret: S.secret }] });
    app = { clientId: 'matrix-app', clientSecret: S.secret } as SandboxClient;
  });
  afterAll(async () => {
    await server.close();
    console.log(`fault matrix (${ROWS.length} rows, real HTTP on 127.0.0.1):\n${table(summary)}`);
    console.log(`fault matrix secrets: log lines ${lines.length / 3}, errors inspected ${thrown.length}`);
  });

  /**
   * The bearer of every attempt at the cards endpoint, as it left the client: read from the global
   * fetch the client calls, whose arguments pass on untouched (the attempt's signal included).
   */
  const bearers: string[] = [];
  const realFetch = globalThis.fetch;
  beforeAll(() => {
    vi.stubGlobal('fetch', ((input: RequestInfo | URL, init?: RequestInit) => {
      if (input instanceof Request && input.method === 'POST' && new URL(input.url).pathname === CARDS) bearers.push(input.headers.get('authorization') ?? '');
      return realFetch(input, init);
    }) as typeof fetch);
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  const client = (options: Partial<ClientOptions> = {}) =>
    new OpenBanking({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      baseUrl: server.baseUrl,
      authUrl: server.authUrl,
      logger,
      logLevel: 'debug',
      retryDelay: 0, sleep: async () => undefined,
      ...options,
    });

  for (const row of ROWS) {
    it(row.name, async () => {
      const logged = lines.length;
      bearers.length = 0;
      server.reset();
      for (const rule of row.faults) server.faults.inject({ path: CARDS, method: 'POST', ...rule });
      const ob = client(row.options);
      const key = `matrix-${row.name.replace(/[^A-Za-z0-9]+/g, '-')}`;
      const outcome = await ob.cards.create(validCard({ card_default_pin: S.pin }), { idempotencyKey: key }).then(
        (card) => card,
        (error: unknown) => error,
      );
      // A held answer is logged when the sandbox finishes it, after the client gave up on it.
      const count = () => server.requests.count({ path: CARDS, method: 'POST' });
      await vi.waitFor(() => expect(count()).toBeGreaterThanOrEqual(row.attempts), { timeout: 5_000, interval: 10 });
      const attempts = count();
      const cards = server.cards().length;
      const tokens = server.requests.count({ path: '/oauth2/token', method: 'POST' });
      let after: number | string = '';

      if (row.expect === 'resolved') {
        expect(isOpenBankingError(outcome), String(outcome)).toBe(false);
      } else {
        thrown.push(outcome);
        // Always the SDK's own error, never a raw TypeError or SyntaxError, with the call's key.
        expect(outcome).toBeInstanceOf(OpenBankingError);
        expect(outcome).toBeInstanceOf(row.expect);
        const error = outcome as OpenBankingError;
        expect(error.name).toBe(error.constructor.name);
        expect(error.idempotencyKey).toBe(key);
        row.check?.(error);
      }
      // Every attempt carried the same key.
      expect(new Set(server.requests.list(CARDS).map((r) => r.idempotencyKey))).toEqual(new Set([key]));
      expect(attempts).toBe(row.attempts);
      expect(cards).toBe(row.cards);
      // A 401 renews the token: a grant at the identity host, and the next attempt carries the new bearer.
      expect(tokens).toBe(row.tokens ?? 1);
      expect(bearers).toHaveLength(attempts);
      expect(new Set(bearers).size).toBe(row.tokens ?? 1);

      if (row.retrySameKey !== undefined) {
        server.faults.clear();
        const card = await ob.cards.create(validCard({ card_default_pin: S.pin }), { idempotencyKey: key });
        expect(card.card_id).toMatch(/^card_/);
        after = server.cards().length;
        expect(after).toBe(row.retrySameKey);
        expect(server.cards()[0]!.card.card_id).toBe(card.card_id);
      }
      // No sentinel in what this row logged (at debug) or in the error it threw.
      expect(sweep(lines.slice(logged), row.expect === 'resolved' ? [] : [outcome], Object.values(S))).toEqual([]);
      summary.push({
        fault: row.name,
        'user gets': row.expect === 'resolved' ? 'resolved' : (outcome as Error).name,
        attempts,
        'cards after': cards,
        'retry same key → cards': after,
      });
    });
  }
});

describe('connection refused (DESIGN.md "what is retried"), over real HTTP', () => {
  it('every attempt is retried with the same key, then the call rejects with ConnectionError carrying it', async () => {
    const { createServer } = await import('node:net');
    // A port that was just free and is closed again: a connect there is refused.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as import('node:net').AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const identity = await startSandboxServer({ seed: 'refused' });
    try {
      const app = identity.registerClient();
      const ob = new OpenBanking({
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        baseUrl: `http://127.0.0.1:${closed}/openapi/v1`,
        authUrl: identity.authUrl,
        logLevel: 'off',
      });
      const sleeps = skipRetryWaits(ob);
      const keys: string[] = [];
      ob.on('request', (e) => {
        keys.push(e.idempotencyKey);
      });
      const error = await ob.cards.create(validCard(), { idempotencyKey: 'refused-1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).not.toBeInstanceOf(TimeoutError);
      expect((error as ConnectionError).idempotencyKey).toBe('refused-1');
      expect(keys).toEqual(['refused-1', 'refused-1', 'refused-1']);
      expect(sleeps).toHaveLength(2);
      expect(sleeps[0]).toBeGreaterThanOrEqual(375);
      expect(sleeps[0]).toBeLessThanOrEqual(500);
      expect(sleeps[1]).toBeGreaterThanOrEqual(750);
      expect(sleeps[1]).toBeLessThanOrEqual(1_000);
    } finally {
      await identity.close();
    }
  });
});
