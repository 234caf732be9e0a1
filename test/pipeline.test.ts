import { createHash } from 'node:crypto';
import { delay } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
  isApiError,
  isOpenBankingError,
  OpenBanking,
} from '../src/index.js';
import { AUTH, BASE, CLIENT_ID, createdCard, http, HttpResponse, type Recorded, SECRET, testClient, tokenHandler, useMsw, validCard } from './support/msw.js';

const server = useMsw();

function cardsEndpoint(responses: Array<() => Response | Promise<Response>>, seen: Recorded[]) {
  return http.post(`${BASE}/cards`, async ({ request }) => {
    seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
    const next = responses[Math.min(seen.length - 1, responses.length - 1)]!;
    return next();
  });
}

const sha = (input: string, enc: 'hex' | 'base64') => createHash('sha256').update(input, 'utf8').digest(enc);

describe('cards.create on the wire', () => {
  it('sends every header, the exact hex signature and the JSON body', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob } = testClient({ connectionId: 'bank-123', participantId: 'part-9' });
    const card = await ob.cards.create(validCard(), { idempotencyKey: 'key-0001' });

    expect(card.card_id).toBe('card_1');
    expect(card.card_cvv2).toBe('123');
    expect(seen).toHaveLength(1);
    const h = seen[0]!.headers;
    expect(h.authorization).toBe('Bearer token-1');
    expect(h['idempotency-key']).toBe('key-0001');
    expect(h.signature).toBe(sha(`${SECRET};key-0001`, 'hex'));
    expect(h.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(h['connection-id']).toBe('bank-123');
    expect(h['x-participant-id']).toBe('part-9');
    expect(h['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual(validCard());

    const form = new URLSearchParams(state.tokenRequests[0]!.body);
    expect(state.tokenRequests[0]!.url).toBe(`${AUTH}/oauth2/token`);
    expect(form.get('grant_type')).toBe('client_credentials');
    expect(form.get('scope')).toBe('cards.create');
    expect(form.get('client_id')).toBe(CLIENT_ID);
    expect(form.get('client_secret')).toBe(SECRET);
  });

  it('writes the signature in base64 when asked, and a fresh UUID v4 key by default', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob } = testClient({ signatureEncoding: 'base64' });
    const { idempotencyKey } = await ob.cards.create(validCard()).withResponse();
    const h = seen[0]!.headers;
    expect(h['idempotency-key']).toBe(idempotencyKey);
    expect(idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(h.signature).toBe(sha(`${SECRET};${idempotencyKey}`, 'base64'));
    expect(h['connection-id']).toBeUndefined();
  });

  it('a per-call connectionId overrides the default', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob } = testClient({ connectionId: 'bank-123' });
    await ob.cards.create(validCard(), { connectionId: 'bank-999' });
    expect(seen[0]!.headers['connection-id']).toBe('bank-999');
  });

  it('withResponse gives data, the envelope, the Response and the key', async () => {
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.json(createdCard({ brand_new_field: 7 }), { status: 201 })], []));
    const { ob } = testClient();
    const result = await ob.cards.create(validCard(), { idempotencyKey: 'k-1' }).withResponse();
    expect(result.response.status).toBe(201);
    expect(result.envelope?.status).toBe('00');
    expect(result.envelope?.message).toBe('Card created successfully');
    expect(result.idempotencyKey).toBe('k-1');
    expect((result.data as Record<string, unknown>).brand_new_field).toBe(7);
  });

  it("withResponse's response is the fetch Response of the final attempt, with its url, status and headers", async () => {
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([() => new HttpResponse(null, { status: 503 }), () => HttpResponse.json(createdCard(), { status: 201, headers: { 'x-request-id': 'req-2' } })], []),
    );
    const answers: Response[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const answer = await globalThis.fetch(input, init);
      if (new URL(input instanceof Request ? input.url : String(input)).pathname.endsWith('/cards')) answers.push(answer);
      return answer;
    };
    const { ob } = testClient({ fetch });
    const { response } = await ob.cards.create(validCard()).withResponse();
    expect(answers).toHaveLength(2);
    expect(response).toBe(answers[1]);
    expect(response.url).toBe(`${BASE}/cards`);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('req-2');
  });

  it('every attempt carries the same headers, the per-call ones included, and the same body', async () => {
    const seen: Recorded[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([() => new HttpResponse(null, { status: 500 }), () => HttpResponse.error(), () => HttpResponse.json(createdCard(), { status: 201 })], seen),
    );
    const { ob } = testClient({ connectionId: 'bank-123', participantId: 'part-9' });
    const { idempotencyKey } = await ob.cards.create(validCard(), { connectionId: 'bank-7', headers: { 'X-Trace': 'trace-1' } }).withResponse();
    expect(seen).toHaveLength(3);
    expect(seen[0]!.headers).toEqual({
      accept: 'application/json',
      authorization: 'Bearer token-1',
      'connection-id': 'bank-7',
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
      signature: sha(`${SECRET};${idempotencyKey}`, 'hex'),
      'x-participant-id': 'part-9',
      'x-trace': 'trace-1',
    });
    for (const attempt of seen) {
      expect(attempt.headers).toEqual(seen[0]!.headers);
      expect(attempt.body).toBe(seen[0]!.body);
    }
  });
});

describe('retries', () => {
  it('makes three attempts after two 429s, same key and signature, Retry-After handed to the sleep', async () => {
    const seen: Recorded[] = [];
    const tooMany = () => HttpResponse.json({ status: '91', message: 'slow down', data: {} }, { status: 429, headers: { 'retry-after': '2' } });
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([tooMany, tooMany, () => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob, sleeps } = testClient();
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(seen.map((s) => s.headers.signature)).size).toBe(1);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    expect(sleeps).toEqual([2000, 2000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const seen: Recorded[] = [];
    const when = new Date(Date.now() + 5_000).toUTCString();
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([() => new HttpResponse(null, { status: 429, headers: { 'retry-after': when } }), () => HttpResponse.json(createdCard(), { status: 201 })], seen),
    );
    const { ob, sleeps } = testClient();
    await ob.cards.create(validCard());
    expect(seen).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(2_000);
    expect(sleeps[0]).toBeLessThanOrEqual(5_000);
  });

  it('reads an HTTP-date Retry-After against the system clock ky waits by, not the now option', async () => {
    const seen: Recorded[] = [];
    const clock = Date.parse('2031-03-01T12:00:00Z');
    const when = new Date(clock + 7_000).toUTCString(); // 7 s after the system clock (faked), years after the now option's
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint(
        [() => new HttpResponse(null, { status: 429, headers: { 'retry-after': when } }), () => HttpResponse.json({ status: '91', message: 'slow down', data: {} }, { status: 429, headers: { 'retry-after': new Date(clock + 14_000).toUTCString() } })], // 7 s after the waited 7 s
        seen,
      ),
    );
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.setSystemTime(clock);
    const { ob, sleeps } = testClient({ now: () => Date.UTC(2020, 0, 1), maxRetries: 1, maxRetryDelay: 60_000 });
    const error = await ob.cards.create(validCard()).catch((e: unknown) => e);
    vi.useRealTimers();
    expect(seen).toHaveLength(2);
    expect(sleeps).toEqual([7_000]);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(7_000);
  });

  it('throws RateLimitError at once when Retry-After exceeds maxRetryDelay', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => new HttpResponse(null, { status: 429, headers: { 'retry-after': '120' } })], seen));
    const { ob, sleeps } = testClient();
    const error = await ob.cards.create(validCard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(120_000);
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('ignores a Retry-After that is neither delay-seconds nor an HTTP date: the backoff applies', async () => {
    for (const value of ['-3', '+5', '.5', '3.', 'soon']) {
      const seen: Recorded[] = [];
      server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => new HttpResponse(null, { status: 429, headers: { 'retry-after': value } }), () => HttpResponse.json(createdCard(), { status: 201 })], seen));
      const { ob, sleeps } = testClient({ now: () => Date.UTC(2031, 0, 1) });
      await ob.cards.create(validCard());
      expect(seen, value).toHaveLength(2);
      expect(sleeps, value).toHaveLength(1);
      expect(sleeps[0], value).toBeGreaterThanOrEqual(375);
      expect(sleeps[0], value).toBeLessThanOrEqual(500);

      server.use(cardsEndpoint([() => new HttpResponse(null, { status: 429, headers: { 'retry-after': value } })], []));
      const error = await ob.cards.create(validCard(), { maxRetries: 0 }).catch((e: unknown) => e);
      expect(error, value).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfter, value).toBeUndefined();
    }
  });

  it('reads the three HTTP-date forms of Retry-After', async () => {
    const clock = Date.parse('1994-11-06T08:49:30Z');
    for (const value of ['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994']) {
      server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => new HttpResponse(null, { status: 429, headers: { 'retry-after': value } }), () => HttpResponse.json(createdCard(), { status: 201 })], []));
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      vi.setSystemTime(clock);
      const { ob, sleeps } = testClient();
      await ob.cards.create(validCard()).finally(() => vi.useRealTimers());
      expect(sleeps, value).toEqual([7_000]);
    }
  });

  it('retries a 503 with backoff, then succeeds', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.json({ status: '05', message: 'down', data: {} }, { status: 503 }), () => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob, sleeps } = testClient();
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(seen).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(sleeps[0]).toBeLessThanOrEqual(500);
  });

  it('retries a dropped connection with the same key, then succeeds', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.error(), () => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob } = testClient();
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['idempotency-key']).toBe(seen[1]!.headers['idempotency-key']);
  });

  it('gives up after maxRetries with a ConnectionError carrying the key', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.error()], seen));
    const { ob, sleeps } = testClient({ maxRetries: 3 });
    const error = await ob.cards.create(validCard(), { idempotencyKey: 'net-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).idempotencyKey).toBe('net-1');
    expect(seen).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  it('honours maxRetries per call', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => new HttpResponse(null, { status: 500 })], seen));
    const { ob } = testClient();
    await expect(ob.cards.create(validCard(), { maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });

  it('does not retry a 400', async () => {
    const seen: Recorded[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([() => HttpResponse.json({ status: '01', error_code: 'MISSING_FIELD', message: 'card_holder_name is required', data: { field: 'card_holder_name' } }, { status: 400 })], seen),
    );
    const { ob, sleeps } = testClient();
    const error = await ob.cards.create(validCard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('times out a slow attempt, retries it with the same key', async () => {
    const seen: Recorded[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([async () => { await delay(500); return HttpResponse.json(createdCard(), { status: 201 }); }, () => HttpResponse.json(createdCard(), { status: 201 })], seen),
    );
    const { ob } = testClient({ timeout: 50 });
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['idempotency-key']).toBe(seen[1]!.headers['idempotency-key']);
  });

  it('reports a TimeoutError when every attempt times out', async () => {
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([async () => { await delay(500); return HttpResponse.json(createdCard(), { status: 201 }); }], []));
    const { ob } = testClient({ timeout: 30, maxRetries: 1 });
    await expect(ob.cards.create(validCard())).rejects.toBeInstanceOf(TimeoutError);
  });

  it('does not retry after the caller aborts', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([async () => { await delay(1000); return HttpResponse.json(createdCard(), { status: 201 }); }], seen));
    const { ob } = testClient();
    const controller = new AbortController();
    const pending = ob.cards.create(validCard(), { signal: controller.signal });
    // Abort once the request is at the server (its answer held there).
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 5_000, interval: 5 });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(seen).toHaveLength(1);
  });
});

describe('per-call options and the client options behind them', () => {
  it('a per-call timeout replaces the client one for every attempt of that call only', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([async () => { await delay(300); return HttpResponse.json(createdCard(), { status: 201 }); }], seen));
    const { ob } = testClient({ timeout: 10_000 });
    const error = await ob.cards.create(validCard(), { timeout: 20, maxRetries: 1, idempotencyKey: 'slow-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as TimeoutError).idempotencyKey).toBe('slow-1');
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['slow-1', 'slow-1']);
    // The same client, without the per-call option, waits out the 300 ms answer.
    await expect(ob.cards.create(validCard(), { maxRetries: 0 })).resolves.toMatchObject({ card_id: 'card_1' });
  });

  it('a per-call maxRetries above the client one gives that many retries', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => new HttpResponse(null, { status: 502 })], seen));
    const { ob, sleeps } = testClient({ maxRetries: 0 });
    await expect(ob.cards.create(validCard(), { maxRetries: 4 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(5);
    expect(sleeps).toHaveLength(4);
  });

  it('maxRetryDelay: a Retry-After equal to it is waited for, one second more is refused at once', async () => {
    const seen: Recorded[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([() => new HttpResponse(null, { status: 429, headers: { 'retry-after': '5' } }), () => HttpResponse.json(createdCard(), { status: 201 }), () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '6' } })], seen),
    );
    const { ob, sleeps } = testClient({ maxRetryDelay: 5_000 });
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(sleeps).toEqual([5_000]);
    const error = await ob.cards.create(validCard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(6_000);
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([5_000]);
  });

  it("the retry event's delayMs is the wait ky does: no attempt a millisecond before it, the next one at it", async () => {
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const cases = [
      { first: () => new HttpResponse(null, { status: 503 }), waits: [375, 500] }, // the backoff, jittered
      { first: () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '2' } }), waits: [2_000, 2_000] },
    ];
    for (const { first, waits } of cases) {
      const seen: Recorded[] = [];
      server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([first, () => HttpResponse.json(createdCard(), { status: 201 })], seen));
      const ob = new OpenBanking({ clientId: CLIENT_ID, clientSecret: SECRET, baseUrl: BASE, authUrl: AUTH, logLevel: 'off' });
      let delay = -1;
      ob.on('retry', (e) => void (delay = e.delayMs));
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        const pending = ob.cards.create(validCard());
        while (delay < 0) await turn();
        await turn(); // ky sets its timer
        vi.advanceTimersByTime(delay - 1);
        for (let i = 0; i < 20; i++) await turn();
        expect(seen).toHaveLength(1);
        vi.advanceTimersByTime(1);
        await expect(pending).resolves.toMatchObject({ card_id: 'card_1' });
        expect(seen).toHaveLength(2);
        expect(delay).toBeGreaterThanOrEqual(waits[0]!);
        expect(delay).toBeLessThanOrEqual(waits[1]!);
      } finally {
        vi.useRealTimers();
      }
    }
  });

  it('retryDelay caps every wait before a retry, backoff and Retry-After alike: 0 retries at once', async () => {
    const seen: Recorded[] = [];
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([() => new HttpResponse(null, { status: 429, headers: { 'retry-after': '30' } }), () => new HttpResponse(null, { status: 503 }), () => HttpResponse.json(createdCard(), { status: 201 })], seen),
    );
    const ob = new OpenBanking({ clientId: CLIENT_ID, clientSecret: SECRET, baseUrl: BASE, authUrl: AUTH, logLevel: 'off', retryDelay: 0 });
    const delays: number[] = [];
    ob.on('retry', (e) => void delays.push(e.delayMs));
    const started = Date.now();
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(seen).toHaveLength(3);
    expect(delays).toEqual([0, 0]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(() => new OpenBanking({ clientId: CLIENT_ID, clientSecret: SECRET, baseUrl: BASE, authUrl: AUTH, retryDelay: -1 })).toThrow(/retryDelay/);
  });

  it('a 401 is renewed once even with maxRetries 0: the renewal is not one of the retries', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), cardsEndpoint([() => HttpResponse.json({ status: '02', message: 'Unauthorized', data: {} }, { status: 401 }), () => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob, sleeps } = testClient({ maxRetries: 0 });
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(sleeps).toEqual([]);
  });

  it('a signal that fires while the call waits to retry ends it with AbortError; an aborted one sends nothing, not even a token request', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), cardsEndpoint([() => new HttpResponse(null, { status: 503 })], seen));
    const controller = new AbortController();
    const { ob } = testClient();
    ob.on('retry', () => controller.abort()); // while ky waits to retry
    const error = await ob.cards.create(validCard(), { signal: controller.signal, idempotencyKey: 'abort-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).idempotencyKey).toBe('abort-1');
    expect(seen).toHaveLength(1);

    const fresh = testClient();
    await expect(fresh.ob.cards.create(validCard(), { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(seen).toHaveLength(1);
    expect(state.tokenRequests).toHaveLength(1);
  });
});

describe('options checked by their schemas: every problem at once, in words, nothing sent', () => {
  it('per-call options: NaN, a fraction of a retry, an unknown name and a protected header, one issue each', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob } = testClient();
    const error = await ob.cards.create(validCard(), { timeout: Number.NaN, maxRetries: 1.5, retries: 2, headers: { Signature: 'mine' } } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: 'timeout', message: 'must be a number, got NaN', code: 'invalid_type' },
      { path: 'maxRetries', message: 'must be a whole number', code: 'invalid_type' },
      { path: 'headers.Signature', message: 'is set by the SDK and cannot be overridden (use the idempotencyKey option for the key)', code: 'protected_header' },
      { path: 'retries', message: 'is not a known field', code: 'unrecognized_keys' },
    ]);
    expect(seen).toHaveLength(0);
    expect(state.tokenRequests).toHaveLength(0);
  });

  it('client options: each problem once, a rate limit missing both numbers named field by field, the rules between options after', () => {
    const error = (() => {
      try {
        new OpenBanking({ clientId: CLIENT_ID, clientSecret: SECRET, environment: 'production', rateLimit: {}, previousClientSecrets: ['old', ''], timeout: 0, fleet: {}, colour: 'blue' } as never);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: 'previousClientSecrets.1', message: 'must have at least 1 character(s)', code: 'too_small' },
      { path: 'timeout', message: 'must be at least 1', code: 'too_small' },
      { path: 'fleet', message: expect.stringMatching(/^must be a FleetStore \(methods get, set, /), code: 'invalid_type' },
      { path: 'rateLimit.rate', message: 'is required', code: 'missing' },
      { path: 'rateLimit.burst', message: 'is required', code: 'missing' },
      { path: 'colour', message: 'is not a known field', code: 'unrecognized_keys' },
      { path: 'baseUrl', message: expect.stringMatching(/^is required in production/), code: 'missing' },
      { path: 'authUrl', message: expect.stringMatching(/^is required in production/), code: 'missing' },
    ]);
    expect(String((error as Error).message)).not.toContain(SECRET);
    // Values of any shape are issues, never a TypeError from the rules between options.
    for (const headerNames of [{ idempotencyKey: Object.create(null) }, { connectionId: 5 }, 'x-key', null]) {
      expect(() => new OpenBanking({ clientId: CLIENT_ID, clientSecret: SECRET, headerNames } as never)).toThrow(ValidationError);
    }
  });

  it('registration: the login and the connection checked together, nothing sent', async () => {
    const calls: string[] = [];
    const fetch = (async (url: string) => (calls.push(String(url)), new Response('{}'))) as unknown as typeof globalThis.fetch;
    const error = await OpenBanking.fetchRegistration({ username: 'a:b', password: '', authUrl: 'http://identity.example.com', timeout: 1.5e12, fetch }).catch((e: unknown) => e);
    expect((error as ValidationError).issues).toEqual([
      { path: 'authUrl', message: expect.stringMatching(/^must use https:\/\/ — the API requires TLS/), code: 'insecure_url' },
      { path: 'timeout', message: 'must be at most 2147483647 ms (about 24.8 days; a timer cannot wait longer)', code: 'too_big' },
      { path: 'username', message: 'must not contain a colon (HTTP Basic)', code: 'invalid_format' },
      { path: 'password', message: 'must have at least 1 character(s)', code: 'too_small' },
    ]);
    expect(calls).toEqual([]);
  });

  it("ob.request: a scope outside the spec is named by its place in the list, a timeout past a timer's reach by its limit", async () => {
    const state = { tokenRequests: [] as Recorded[] };
    server.use(tokenHandler(state));
    const { ob } = testClient();
    const scope = await ob.request({ method: 'GET', path: '/accounts', scope: ['accounts', 'money' as never] }).catch((e: unknown) => e);
    expect((scope as ValidationError).issues).toEqual([{ path: 'scope.1', message: '"money" is not a scope of the spec', code: 'invalid_value' }]);
    const odd = await ob.request({ method: 'GET', path: '/accounts', scope: [Object.create(null) as never, 7 as never] }).catch((e: unknown) => e);
    expect((odd as ValidationError).issues).toEqual([
      { path: 'scope.0', message: 'a value of type object is not a scope of the spec', code: 'invalid_value' },
      { path: 'scope.1', message: 'a value of type number is not a scope of the spec', code: 'invalid_value' },
    ]);
    expect(() => new OpenBanking({ clientId: CLIENT_ID, clientSecret: SECRET, operationScopes: { 'cards.list': [Object.create(null)] } } as never)).toThrow(/operationScopes\.cards\.list: has names that are not scopes of the spec: a value of type object/);
    const timeout = await ob.request({ method: 'GET', path: '/accounts' }, { timeout: 2 ** 31 }).catch((e: unknown) => e);
    expect((timeout as ValidationError).issues).toEqual([{ path: 'timeout', message: 'must be at most 2147483647 ms (about 24.8 days; a timer cannot wait longer)', code: 'too_big' }]);
    expect(state.tokenRequests).toHaveLength(0);
  });
});

describe('tokens', () => {
  it('makes one token request for 50 concurrent calls', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], seen));
    const { ob } = testClient();
    await Promise.all(Array.from({ length: 50 }, () => ob.cards.create(validCard())));
    expect(state.tokenRequests).toHaveLength(1);
    expect(seen).toHaveLength(50);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(50);
  });

  it('reuses a cached token until shortly before it expires', async () => {
    const state = { tokenRequests: [] as Recorded[], expiresIn: 3600 };
    server.use(tokenHandler(state), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], []));
    const { ob } = testClient();
    await ob.cards.create(validCard());
    await ob.cards.create(validCard());
    expect(state.tokenRequests).toHaveLength(1);
  });

  it('fetches a new token when the cached one is inside its refresh margin', async () => {
    const state = { tokenRequests: [] as Recorded[], expiresIn: 1 };
    server.use(tokenHandler(state), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], []));
    const { ob } = testClient();
    await ob.cards.create(validCard());
    await ob.cards.create(validCard());
    expect(state.tokenRequests).toHaveLength(2);
  });

  it('on a 401 drops the token, gets a new one and tries once more', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(
      tokenHandler(state),
      cardsEndpoint([() => HttpResponse.json({ status: '02', message: 'Unauthorized', data: {} }, { status: 401 }), () => HttpResponse.json(createdCard(), { status: 201 })], seen),
    );
    const { ob } = testClient();
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_id: 'card_1' });
    expect(state.tokenRequests).toHaveLength(2);
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(seen[0]!.headers['idempotency-key']).toBe(seen[1]!.headers['idempotency-key']);
  });

  it('a second 401 is reported as AuthenticationError', async () => {
    const seen: Recorded[] = [];
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.json({ status: '02', message: 'Invalid signature', data: {} }, { status: 401 })], seen));
    const { ob } = testClient();
    await expect(ob.cards.create(validCard())).rejects.toBeInstanceOf(AuthenticationError);
    expect(seen).toHaveLength(2);
  });
});

describe('validation before sending', () => {
  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['missing required field', (({ card_holder_name: _, ...rest }) => rest)(validCard()), 'card_holder_name'],
    ['wrong type', { ...validCard(), account_number: 123 }, 'account_number'],
    ['bad enum', { ...validCard(), card_status: 'FROZEN' }, 'card_status'],
    ['month 13', { ...validCard(), card_expiry: { month: '13', year: '2029' } }, 'card_expiry.month'],
    ['one-digit month', { ...validCard(), card_expiry: { month: '9', year: '2029' } }, 'card_expiry.month'],
    ['two-digit year', { ...validCard(), card_expiry: { month: '09', year: '29' } }, 'card_expiry.year'],
    ['currency', { ...validCard(), card_currency: 'USD' }, 'card_currency'],
    ['extra field', { ...validCard(), cardholder: 'x' }, 'cardholder'],
    ['bad custom property', { ...validCard(), custom_properties: [{ id: 'a', description: 'b', type: 'c' }] }, 'custom_properties.0.value'],
    ['non-digit PIN', { ...validCard(), card_default_pin: 'abcd' }, 'card_default_pin'],
  ];
  for (const [name, body, path] of bad) {
    it(`rejects ${name} with ValidationError and sends nothing`, async () => {
      const state = { tokenRequests: [] as Recorded[] };
      const seen: Recorded[] = [];
      server.use(tokenHandler(state), cardsEndpoint([() => HttpResponse.json(createdCard(), { status: 201 })], seen));
      const { ob } = testClient();
      const error = await ob.cards.create(body as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
      expect(seen).toHaveLength(0);
      expect(state.tokenRequests).toHaveLength(0);
    });
  }

  it('lists every bad field at once', async () => {
    const { ob } = testClient();
    const error = (await ob.cards.create({ card_status: 'NOPE', card_expiry: { month: '00' } } as never).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues.map((i) => i.path).sort()).toEqual(['account_number', 'card_default_pin', 'card_expiry.month', 'card_expiry.year', 'card_holder_name', 'card_status']);
    expect(error.issues.every((i) => typeof i.message === 'string' && typeof i.code === 'string')).toBe(true);
    expect(error.message).not.toContain('NOPE');
  });

  it('rejects (never throws synchronously) on a non-object body', async () => {
    const { ob } = testClient();
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = ob.cards.create(null as never);
    }).not.toThrow();
    await expect(promise).rejects.toBeInstanceOf(ValidationError);
  });

  it('rejects bad per-call options', async () => {
    const { ob } = testClient();
    const error = (await ob.cards.create(validCard(), { timeout: -1, maxRetries: 1.5, idempotencyKey: 'has space', bogus: 1 } as never).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path).sort()).toEqual(['bogus', 'idempotencyKey', 'maxRetries', 'timeout']);
  });
});

describe('errors from status and body', () => {
  const cases: Array<[number, Record<string, unknown>, new (...args: never[]) => ApiError]> = [
    [400, { status: '01', error_code: 'MISSING_FIELD', message: 'card_holder_name is required', data: { field: 'card_holder_name' } }, BadRequestError],
    [401, { status: '02', message: 'Unauthorized', data: {} }, AuthenticationError],
    [403, { status: '03', message: 'Forbidden', data: {} }, PermissionDeniedError],
    [404, { status: '04', message: 'Not found', data: {} }, NotFoundError],
    [429, { status: '91', message: 'Too many', data: {} }, RateLimitError],
    [500, { status: '05', message: 'Internal error', data: {} }, InternalServerError],
    [409, { status: 'error', message: 'Conflict', errors: [{ field: 'amount', code: 'INVALID_AMOUNT', message: 'bad amount' }] }, ApiError],
  ];
  for (const [status, body, cls] of cases) {
    it(`maps ${status} to ${cls.name}`, async () => {
      server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.json(body, { status })], []));
      const { ob } = testClient({ maxRetries: 0 });
      const error = (await ob.cards.create(validCard(), { idempotencyKey: `k-${status}` }).catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(cls);
      expect(error.name).toBe(cls.name);
      expect(isApiError(error)).toBe(true);
      expect(isOpenBankingError(error)).toBe(true);
      expect(error.status).toBe(status);
      expect(error.idempotencyKey).toBe(`k-${status}`);
      expect(error.headers).toBeInstanceOf(Headers);
      expect(error.rawBody).toBe(JSON.stringify(body));
      const b = body as Record<string, unknown>;
      expect(error.code).toBe(b.status);
      // A 401 after a renewal: the fresh token was refused too, and the message says so (DESIGN.md "401 renewal").
      if (status === 401) expect(error.message).toMatch(/^Unauthorized \(a freshly obtained token was refused too: check signatureEncoding/);
      else expect(error.message).toBe(b.message);
      if (status === 400) {
        expect(error.errorCode).toBe('MISSING_FIELD');
        expect(error.errors).toEqual([{ field: 'card_holder_name', code: 'MISSING_FIELD', message: 'card_holder_name is required' }]);
      }
      if (status === 409) expect(error.errors).toEqual([{ field: 'amount', code: 'INVALID_AMOUNT', message: 'bad amount' }]);
    });
  }

  it('turns an HTML 502 page into an ApiError with the raw text', async () => {
    const html = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => new HttpResponse(html, { status: 502, headers: { 'content-type': 'text/html' } })], []));
    const { ob } = testClient({ maxRetries: 0 });
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as InternalServerError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.rawBody).toBe(html);
    expect(error.code).toBeUndefined();
    expect(error.message).toBe('502 Bad Gateway (no JSON body)');
  });

  it('keeps rawBody byte for byte when nothing in it is secret, and masks it when something is', async () => {
    const spaced = '{ "status": "01",\n  "error_code": "MISSING_FIELD", "message": "card_holder_name is required", "data": { "amount": 1.50 } }';
    const secret = '{ "status": "01", "message": "bad card", "data": { "card_cvv2": "987", "card_number": "5399831111111111" } }';
    server.use(
      tokenHandler({ tokenRequests: [] }),
      cardsEndpoint([() => new HttpResponse(spaced, { status: 400, headers: { 'content-type': 'application/json' } }), () => new HttpResponse(secret, { status: 400, headers: { 'content-type': 'application/json' } })], []),
    );
    const { ob } = testClient({ maxRetries: 0 });
    const first = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as BadRequestError;
    expect(first.rawBody).toBe(spaced);
    expect(first.message).toBe('card_holder_name is required');
    // A fixed key: a random one is hex, and the three-digit CVV can occur in it by chance.
    const second = (await ob.cards.create(validCard(), { idempotencyKey: 'masked-raw-body' }).catch((e: unknown) => e)) as BadRequestError;
    expect(second.rawBody).not.toContain('987');
    expect(second.rawBody).not.toContain('5399831111111111');
    expect(JSON.parse(second.rawBody)).toEqual({ status: '01', message: 'bad card', data: { card_cvv2: '[REDACTED]', card_number: '[REDACTED]' } });
    expect(JSON.stringify(second)).not.toContain('987');
  });

  it('turns truncated JSON on a 2xx into ResponseValidationError, never a SyntaxError', async () => {
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => new HttpResponse('{"status":"00","data":{"card_id"', { status: 201, headers: { 'content-type': 'application/json' } })], []));
    const { ob } = testClient();
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.rawBody).toContain('"card_id"');
  });

  it('reports a 201 whose data lacks card_id as ResponseValidationError', async () => {
    const body = createdCard();
    delete (body.data as Record<string, unknown>).card_id;
    server.use(tokenHandler({ tokenRequests: [] }), cardsEndpoint([() => HttpResponse.json(body, { status: 201 })], []));
    const { ob } = testClient();
    const error = (await ob.cards.create(validCard(), { idempotencyKey: 'rv-1' }).catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues[0]!.path).toBe('data.card_id');
    expect(error.idempotencyKey).toBe('rv-1');
    expect(error.rawBody).not.toContain('"123"');
  });
});

describe('ob.request (OPERATIONS.md §2)', () => {
  function gateway(seen: Recorded[], answer: () => Response | Promise<Response>) {
    return http.all(`${BASE}/*`, async ({ request }) => {
      seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
      return answer();
    });
  }

  it('sends method, path, query and body through the same pipeline, with the scope asked for, and resolves to data', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    let n = 0;
    server.use(tokenHandler(state), gateway(seen, () => (++n === 1 ? new HttpResponse(null, { status: 502 }) : HttpResponse.json({ status: '00', message: 'ok', data: { card_status: 'BLOCKED' } }))));
    const { ob, sleeps } = testClient({ connectionId: 'bank-1' });
    const result = await ob
      .request<{ card_status: string }>({ method: 'PATCH', path: '/cards/card_1', query: { reason: 'lost card', at: ['a', 'b'], skip: undefined }, body: { card_status: 'BLOCKED' }, scope: 'cards.update' }, { idempotencyKey: 'req-1' })
      .withResponse();
    expect(result.data).toEqual({ card_status: 'BLOCKED' });
    expect(result.envelope).toEqual({ status: '00', message: 'ok', data: { card_status: 'BLOCKED' } });
    expect(result.idempotencyKey).toBe('req-1');
    expect(new URLSearchParams(state.tokenRequests[0]!.body).get('scope')).toBe('cards.update');
    expect(seen).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    for (const r of seen) {
      expect(r.method).toBe('PATCH');
      expect(r.url).toBe(`${BASE}/cards/card_1?reason=lost+card&at=a&at=b`);
      expect(r.headers['idempotency-key']).toBe('req-1');
      expect(r.headers.signature).toBe(sha(`${SECRET};req-1`, 'hex'));
      expect(r.headers['connection-id']).toBe('bank-1');
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.body)).toEqual({ card_status: 'BLOCKED' });
    }
  });

  it('resolves to the whole body when it has no envelope; a 2xx that is not JSON is a ResponseValidationError', async () => {
    const seen: Recorded[] = [];
    let n = 0;
    server.use(tokenHandler({ tokenRequests: [] }), gateway(seen, () => (++n === 1 ? HttpResponse.json([{ id: 1 }]) : new HttpResponse('<html>ok</html>', { status: 200 }))));
    const { ob } = testClient();
    await expect(ob.request({ method: 'GET', path: '/meta' })).resolves.toEqual([{ id: 1 }]);
    const error = await ob.request({ method: 'GET', path: '/meta' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).rawBody).toBe('<html>ok</html>');
  });

  it("a customer session's request uses the customer's token; customer: false a client token with the scope", async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), gateway(seen, () => HttpResponse.json({ status: '00', message: 'ok', data: { loans: [] } })));
    const { ob } = testClient();
    const customer = ob.forCustomer({ access_token: 'customer-token', token_type: 'Bearer', expires_in: 3600 });
    await expect(customer.request({ method: 'GET', path: '/loans' })).resolves.toEqual({ loans: [] });
    await customer.request({ method: 'GET', path: '/loans', customer: false, scope: ['loans.list'] });
    expect(seen.map((r) => r.headers.authorization)).toEqual(['Bearer customer-token', 'Bearer token-1']);
    expect(state.tokenRequests.map((r) => new URLSearchParams(r.body).get('scope'))).toEqual(['loans.list']);
  });

  it('bad parameters reject with ValidationError and send nothing: a GET with a body, customer: true on the client, an unknown scope', async () => {
    const state = { tokenRequests: [] as Recorded[] };
    const seen: Recorded[] = [];
    server.use(tokenHandler(state), gateway(seen, () => HttpResponse.json({ status: '00', message: 'ok', data: {} })));
    const { ob } = testClient();
    const refused = [
      ob.request({ method: 'GET', path: '/loans', body: { page: 1 } }),
      ob.request({ method: 'GET', path: '/loans', customer: true }),
      ob.request({ method: 'GET', path: '/loans', scope: 'loans.everything' as never }),
      ob.request({ method: 'get' as never, path: '/loans' }),
    ];
    for (const call of refused) await expect(call).rejects.toBeInstanceOf(ValidationError);
    const withBody = (await refused[0]!.catch((e: unknown) => e)) as ValidationError;
    expect(withBody.issues.map((i) => i.path)).toEqual(['body']);
    expect(seen).toHaveLength(0);
    expect(state.tokenRequests).toHaveLength(0);
  });
});
