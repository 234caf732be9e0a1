import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConnectionError,
  InternalServerError,
  type OpenBankingError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  isOpenBankingError,
} from '../../src/index.js';
import { createSandbox, startSandboxServer, type SandboxClient, type SandboxFault, type SandboxServer } from '../../src/testing.js';
import { clientFor, validCard } from './support.js';

const CARDS = '/openapi/v1/cards';

describe('injected faults over real HTTP, as the SDK reports them', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  beforeAll(async () => {
    server = await startSandboxServer({ seed: 'faults' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    app = server.registerClient();
  });
  const client = (overrides = {}) => clientFor(server, app, overrides);
  const attempts = () => server.requests.count({ path: CARDS, method: 'POST' });

  it('429 with Retry-After: the SDK waits what it says and tries again with the same key', async () => {
    server.faults.inject({ path: CARDS, times: 2, fault: { type: 'status', status: 429, retryAfter: 1 } });
    const { ob, sleeps } = client();
    await ob.cards.create(validCard());
    expect(sleeps).toEqual([1000, 1000]);
    expect(attempts()).toBe(3);
    expect(new Set(server.requests.list(CARDS).map((r) => r.idempotencyKey)).size).toBe(1);
    expect(server.cards()).toHaveLength(1);
  });

  it('429 without Retry-After: backoff; a storm longer than the retries gives RateLimitError', async () => {
    server.faults.inject({ path: CARDS, times: Infinity, fault: { type: 'status', status: 429 } });
    const { ob, sleeps } = client();
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBeUndefined();
    expect(error.code).toBe('91');
    expect(sleeps).toHaveLength(2);
    expect(attempts()).toBe(3);
    expect(server.cards()).toHaveLength(0);
  });

  for (const status of [500, 502, 503, 504]) {
    it(`${status}: InternalServerError with code 05 once the retries are spent, nothing stored`, async () => {
      server.faults.inject({ path: CARDS, times: 3, fault: { type: 'status', status } });
      const { ob } = client();
      const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as InternalServerError;
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error.status).toBe(status);
      expect(error.code).toBe('05');
      expect(attempts()).toBe(3);
      expect(server.cards()).toHaveLength(0);
    });
  }

  it('a dropped connection before the card is stored: ConnectionError, no card; a retry stores one', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'drop' } });
    const { ob } = client({ maxRetries: 0 });
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(server.requests.list(CARDS)[0]!.status).toBe('dropped');
    expect(server.cards()).toHaveLength(0);
    await ob.cards.create(validCard(), { idempotencyKey: error.idempotencyKey! });
    expect(server.cards()).toHaveLength(1);
  });

  it('a dropped connection after the card is stored: ConnectionError, one card; retrying with the key replays it', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'drop', when: 'after' } });
    const { ob } = client({ maxRetries: 0 });
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(server.cards()).toHaveLength(1);
    const replay = await ob.cards.create(validCard(), { idempotencyKey: error.idempotencyKey! }).withResponse();
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data.card_id).toBe(server.cards()[0]!.card.card_id);
    expect(server.cards()).toHaveLength(1);
  });

  it('a body cut off after the status line is a ConnectionError, retried into a replay', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'truncate' } });
    const { ob } = client();
    const { response } = await ob.cards.create(validCard()).withResponse();
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(server.requests.list(CARDS).map((r) => r.fault)).toEqual(['truncate', undefined]);
    expect(server.cards()).toHaveLength(1);
  });

  it('a slow answer beyond the timeout: TimeoutError; the server still finishes; the retry replays', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'delay', ms: 250 } });
    const { ob } = client({ timeout: 50, maxRetries: 0 });
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server.cards()).toHaveLength(0);
    // The retry arrives while the first request is still held: the second one stores the card,
    // and the first one, when it finally runs, finds the key and replays instead of storing twice.
    await ob.cards.create(validCard(), { idempotencyKey: error.idempotencyKey! });
    // The sandbox records a request once it has answered it: wait for the held one to finish.
    await vi.waitFor(() => expect(server.requests.list(CARDS)).toHaveLength(2), { timeout: 5_000, interval: 10 });
    expect(server.requests.list(CARDS).map((r) => [r.fault, r.status])).toEqual([
      [undefined, 201],
      ['delay', 201],
    ]);
    expect(server.cards()).toHaveLength(1);
  });

  it('a slow answer after storing: TimeoutError with the card already there', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'delay', ms: 200, when: 'after' } });
    const { ob } = client({ timeout: 50, maxRetries: 0 });
    await expect(ob.cards.create(validCard())).rejects.toBeInstanceOf(TimeoutError);
    expect(server.cards()).toHaveLength(1);
  });

  it('malformed JSON on the 201: ResponseValidationError carrying the key (the card exists)', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'malformed-json' } });
    const { ob } = client();
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues[0]!.code).toBe('invalid_json');
    expect(error.idempotencyKey).toBeDefined();
    expect(server.cards()).toHaveLength(1);
    await ob.cards.create(validCard(), { idempotencyKey: error.idempotencyKey! });
    expect(server.cards()).toHaveLength(1);
  });

  it('malformed JSON or an HTML page on a 502: InternalServerError with the raw text', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'html', status: 502 } });
    server.faults.inject({ path: CARDS, fault: { type: 'malformed-json', status: 502 } });
    const { ob } = client({ maxRetries: 0 });
    const html = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as InternalServerError;
    expect(html).toBeInstanceOf(InternalServerError);
    expect(html.rawBody).toContain('<h1>502 Bad Gateway</h1>');
    expect(html.headers.get('content-type')).toBe('text/html');
    const json = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as InternalServerError;
    expect(json).toBeInstanceOf(InternalServerError);
    expect(json.code).toBeUndefined();
    expect(server.cards()).toHaveLength(0);
  });

  it('an empty body: on the 201 a ResponseValidationError, on a 503 a retry', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'empty' } });
    const { ob } = client();
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues[0]!.code).toBe('empty_body');
    server.faults.inject({ path: CARDS, fault: { type: 'empty', status: 503 } });
    await ob.cards.create(validCard());
    expect(server.cards()).toHaveLength(2);
  });

  it('a 201 whose data lacks card_id: ResponseValidationError naming data.card_id', async () => {
    server.faults.inject({ path: CARDS, fault: { type: 'omit-field', field: 'data.card_id' } });
    const { ob } = client();
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues.map((i) => i.path)).toEqual(['data.card_id']);
    expect(error.rawBody).not.toContain('"1234"');
  });

  it('a custom answer, and faults on the token endpoint', async () => {
    server.faults.inject({ path: '/oauth2/token', fault: { type: 'response', status: 400, body: { error: 'invalid_client', error_description: 'rotated' } } });
    const { ob } = client();
    await expect(ob.cards.create(validCard())).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_client' });
    expect(server.requests.count('/oauth2/token')).toBe(1);
  });

  it('50 concurrent cards.create under a 30 % mix of retryable faults leave exactly 50 cards', async () => {
    const faults: SandboxFault[] = [
      { type: 'status', status: 429, retryAfter: 0 },
      { type: 'status', status: 429 },
      { type: 'status', status: 500 },
      { type: 'status', status: 502 },
      { type: 'status', status: 503 },
      { type: 'status', status: 504 },
      { type: 'html', status: 502 },
      { type: 'drop' },
      { type: 'drop', when: 'after' },
      { type: 'truncate' },
    ];
    const rule = server.faults.inject({ path: CARDS, method: 'POST', times: Infinity, probability: 0.3, fault: faults });
    const { ob } = client({ maxRetries: 10, retryDelay: 0 }); // 50 calls at once over real I/O: no fake timers
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => ob.cards.create(validCard({ card_holder_name: `Holder ${i}` })).withResponse()));
    rule.cancel();

    const failures = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as OpenBankingError);
    expect(failures.every(isOpenBankingError)).toBe(true);
    expect(failures).toEqual([]);
    const stored = server.cards();
    expect(stored).toHaveLength(50);
    expect(new Set(stored.map((c) => c.idempotencyKey)).size).toBe(50);
    expect(new Set(stored.map((c) => c.card.card_holder_name)).size).toBe(50);
    const returned = results.map((r) => (r as PromiseFulfilledResult<{ data: { card_id: string } }>).value.data.card_id).sort();
    expect(returned).toEqual(stored.map((c) => c.card.card_id).sort());
    // Every call ends with exactly one unfaulted attempt (a fresh 201 or a replay); all the others were faulted.
    const unfaulted = server.requests.list(CARDS).filter((r) => r.fault === undefined);
    expect(unfaulted).toHaveLength(50);
    expect(unfaulted.every((r) => r.status === 201)).toBe(true);
    expect(rule.injected).toBeGreaterThan(5);
    expect(attempts()).toBe(50 + rule.injected);
  });
});

describe('fault rules', () => {
  it('times, probability, cancel and clear', async () => {
    const sandbox = createSandbox({ seed: 7 });
    const once = sandbox.faults.inject({ path: '/nowhere', fault: { type: 'status', status: 500 } });
    expect(once.remaining).toBe(1);
    expect((await sandbox('https://identity.openbanking-ng.test/nowhere')).status).toBe(500);
    expect(once).toMatchObject({ injected: 1, remaining: 0 });
    expect((await sandbox('https://identity.openbanking-ng.test/nowhere')).status).toBe(404);

    const half = sandbox.faults.inject({ path: /^\/maybe/, times: Infinity, probability: 0.5, fault: { type: 'status', status: 503 } });
    const statuses = [];
    for (let i = 0; i < 200; i++) statuses.push((await sandbox('https://identity.openbanking-ng.test/maybe')).status);
    const faulted = statuses.filter((s) => s === 503).length;
    expect(faulted).toBe(half.injected);
    expect(faulted).toBeGreaterThan(70);
    expect(faulted).toBeLessThan(130);
    half.cancel();
    expect((await sandbox('https://identity.openbanking-ng.test/maybe')).status).toBe(404);

    sandbox.faults.inject({ path: '/x', method: 'POST', times: 5, fault: { type: 'status', status: 500 } });
    expect((await sandbox('https://identity.openbanking-ng.test/x')).status).toBe(404);
    sandbox.faults.clear();
    expect((await sandbox('https://identity.openbanking-ng.test/x', { method: 'POST' })).status).toBe(404);
    expect(sandbox.faults.injected).toBe(1 + faulted);
  });

  it('refuses malformed rules with a TypeError', () => {
    const sandbox = createSandbox();
    const bad: unknown[] = [
      { path: '/x', fault: { type: 'explode' } },
      { path: '/x', fault: { type: 'status' } },
      { path: '/x', fault: { type: 'status', status: 99 } },
      { path: '/x', fault: { type: 'delay' } },
      { path: '/x', fault: { type: 'drop', when: 'during' } },
      { path: '/x', fault: { type: 'omit-field' } },
      { path: '/x', times: 0, fault: { type: 'drop' } },
      { path: '/x', probability: 2, fault: { type: 'drop' } },
      { path: 5, fault: { type: 'drop' } },
      { path: '/x', fault: [] },
    ];
    for (const rule of bad) expect(() => sandbox.faults.inject(rule as never)).toThrow(TypeError);
  });

  it('a dropped connection through the fetch handler rejects like fetch, with a TypeError', async () => {
    const sandbox = createSandbox();
    sandbox.faults.inject({ path: '/dcr', fault: { type: 'drop' } });
    await expect(sandbox(`${sandbox.authUrl}/dcr`, { method: 'POST' })).rejects.toThrow(TypeError);
  });

  it('the fetch handler honours the caller’s abort signal during a delay', async () => {
    const sandbox = createSandbox();
    // A delay far beyond the test's own timeout: only an honoured signal lets the call settle.
    sandbox.faults.inject({ path: '/dcr', fault: { type: 'delay', ms: 3_600_000 } });
    await expect(sandbox(`${sandbox.authUrl}/dcr`, { signal: AbortSignal.timeout(20) })).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
