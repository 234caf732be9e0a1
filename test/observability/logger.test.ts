import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.js';
import { AUTH, BASE, createdCard, http, HttpResponse, SECRET, testClient, tokenHandler, useMsw, validCard } from '../support/msw.js';

const server = useMsw();

function recorder() {
  const lines: Array<{ level: string; message: string; details?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, details?: object) => lines.push({ level, message, details: details as Record<string, unknown> });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { lines, logger };
}

describe('logger', () => {
  it('writes one debug line per attempt with method, path, status, attempt, key and elapsed time; secrets redacted', async () => {
    let n = 0;
    server.use(
      tokenHandler({ tokenRequests: [] }),
      http.post(`${BASE}/cards`, () => (++n === 1 ? new HttpResponse(null, { status: 503 }) : HttpResponse.json(createdCard(), { status: 201 }))),
    );
    const { lines, logger } = recorder();
    const { ob } = testClient({ logger, logLevel: 'debug' });
    await ob.cards.create(validCard(), { idempotencyKey: 'log-key-1' });
    const debug = lines.filter((l) => l.level === 'debug');
    expect(debug.map((l) => [l.details?.method, l.details?.path, l.details?.status, l.details?.attempt, l.details?.idempotencyKey])).toEqual([
      ['POST', `${AUTH}/oauth2/token`, 200, 1, undefined], // the token request the call needed
      ['POST', '/cards', 503, 1, 'log-key-1'],
      ['POST', '/cards', 201, 2, 'log-key-1'],
    ]);
    const attempts = debug.slice(1);
    expect(typeof attempts[0]!.details?.elapsedMs).toBe('number');
    const headers = attempts[0]!.details?.headers as Record<string, string>;
    expect(headers.authorization).toBe('[REDACTED]');
    expect(headers.signature).toBe('[REDACTED]');
    expect(headers['idempotency-key']).toBe('log-key-1');
    expect(JSON.parse(attempts[0]!.details?.body as string).card_default_pin).toBe('[REDACTED]');
    expect(lines.filter((l) => l.level === 'info')).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('logs each request to the identity host at debug, a refused client id before its OAuthError, the form never', async () => {
    server.use(http.post(`${AUTH}/oauth2/token`, () => HttpResponse.json({ error: 'invalid_client', error_description: 'unknown client' }, { status: 401 })));
    const { lines, logger } = recorder();
    const { ob } = testClient({ logger, logLevel: 'debug' });
    await expect(ob.auth.clientCredentials(['cards.list'])).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_client' });
    const debug = lines.filter((l) => l.level === 'debug');
    expect(debug.map((l) => [l.message, l.details?.status])).toEqual([[`openbanking-ng POST ${AUTH}/oauth2/token → 401 (attempt 1)`, 401]]);
    expect(debug[0]!.details?.body).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it("is quiet at the default 'warn' level and silent at 'off'", async () => {
    server.use(tokenHandler({ tokenRequests: [] }), http.post(`${BASE}/cards`, () => HttpResponse.json(createdCard(), { status: 201 })));
    for (const logLevel of [undefined, 'off'] as const) {
      const { lines, logger } = recorder();
      const { ob } = testClient({ logger, logLevel });
      await ob.cards.create(validCard());
      expect(lines).toEqual([]);
    }
  });

  it('takes the level from OPENBANKING_LOG when the option is absent', async () => {
    server.use(tokenHandler({ tokenRequests: [] }), http.post(`${BASE}/cards`, () => HttpResponse.json(createdCard(), { status: 201 })));
    const previous = process.env.OPENBANKING_LOG;
    process.env.OPENBANKING_LOG = 'debug';
    try {
      const { lines, logger } = recorder();
      const { ob } = testClient({ logger, logLevel: undefined });
      await ob.cards.create(validCard());
      expect(lines.filter((l) => l.level === 'debug').map((l) => l.details?.path)).toEqual([`${AUTH}/oauth2/token`, '/cards']);
    } finally {
      if (previous === undefined) delete process.env.OPENBANKING_LOG;
      else process.env.OPENBANKING_LOG = previous;
    }
  });

  it('an unknown OPENBANKING_LOG (verbose) is ignored with one warn line per process, naming the valid levels', () => {
    const previous = process.env.OPENBANKING_LOG;
    process.env.OPENBANKING_LOG = 'verbose';
    try {
      const { lines, logger } = recorder();
      testClient({ logger, logLevel: undefined });
      testClient({ logger, logLevel: undefined });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 'warn' });
      expect(JSON.stringify(lines[0])).toMatch(/OPENBANKING_LOG=verbose is not a log level.*off, error, warn, info, debug/);
    } finally {
      if (previous === undefined) delete process.env.OPENBANKING_LOG;
      else process.env.OPENBANKING_LOG = previous;
    }
  });

  it("each level writes its own and the quieter ones: 'info' the retries, 'warn' a Retry-After not waited for, 'error' neither", async () => {
    let n = 0;
    server.use(
      tokenHandler({ tokenRequests: [] }),
      // Per call: a 503 retried after backoff, then a 429 whose Retry-After is beyond maxRetryDelay.
      http.post(`${BASE}/cards`, () => (++n % 2 === 1 ? new HttpResponse(null, { status: 503 }) : new HttpResponse(null, { status: 429, headers: { 'retry-after': '120' } }))),
    );
    const seen: Record<string, string[]> = {};
    for (const logLevel of ['error', 'warn', 'info'] as const) {
      const { lines, logger } = recorder();
      const { ob } = testClient({ logger, logLevel });
      await expect(ob.cards.create(validCard())).rejects.toMatchObject({ name: 'RateLimitError' });
      seen[logLevel] = lines.map((l) => l.level);
    }
    expect(seen).toEqual({ error: [], warn: ['warn'], info: ['info', 'warn'] });
  });

  it('a throwing logger never breaks a call', async () => {
    server.use(tokenHandler({ tokenRequests: [] }), http.post(`${BASE}/cards`, () => HttpResponse.json(createdCard(), { status: 201 })));
    const boom = () => {
      throw new Error('logger down');
    };
    const { ob } = testClient({ logger: { debug: boom, info: boom, warn: boom, error: boom }, logLevel: 'debug' });
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
  });
});
