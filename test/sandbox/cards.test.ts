import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  type FieldCipher,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  type ApiError,
} from '../../src/index.js';
import { createManualClock, createSandbox, startSandboxServer, type SandboxClient, type SandboxServer } from '../../src/testing.js';
import { clientFor, postCard, sha256, signed, tokenFor, validCard } from './support.js';

describe('POST /cards over real HTTP: the spec checks and its error bodies', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  let token: string;
  beforeAll(async () => {
    server = await startSandboxServer();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    server.reset();
    app = server.registerClient({ name: 'Cards test' });
    token = await tokenFor(fetch, server.authUrl, app, 'cards.create cards.list');
  });

  it('creates a card with a correctly signed request: 201 and the envelope', async () => {
    const res = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'key-1'));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: '00', message: 'Card created successfully', data: { card_status: 'ACTIVE', account_number: '0123456789' } });
    expect(server.cards()).toHaveLength(1);
    expect(server.cards()[0]).toMatchObject({ clientId: app.clientId, idempotencyKey: 'key-1', card: { card_default_pin: '1234' } });
  });

  it('refuses a wrong signature with 401 and status 02', async () => {
    const headers = { ...signed(token, app.clientSecret, 'key-1'), signature: sha256(`not-the-secret;key-1`) };
    const res = await postCard(fetch, server.baseUrl, headers);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ status: '02', message: expect.stringContaining('invalid signature'), data: {} });
    expect(server.cards()).toHaveLength(0);
  });

  it('refuses a signature computed over another key, and a missing one', async () => {
    const other = { ...signed(token, app.clientSecret, 'key-1'), signature: sha256(`${app.clientSecret};key-2`) };
    expect((await postCard(fetch, server.baseUrl, other)).status).toBe(401);
    const { signature: _, ...unsigned } = signed(token, app.clientSecret, 'key-1');
    const res = await postCard(fetch, server.baseUrl, unsigned);
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ status: '02' });
  });

  it('the SDK sees a wrong signature as AuthenticationError with code 02', async () => {
    const { ob } = clientFor(server, { clientId: app.clientId, clientSecret: app.clientSecret }, { signatureEncoding: 'base64' });
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe('02');
  });

  it('refuses a missing idempotency key with 400 MISSING_FIELD naming it', async () => {
    const { 'idempotency-key': _, ...headers } = signed(token, app.clientSecret, 'key-1');
    const res = await postCard(fetch, server.baseUrl, headers);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: '01', error_code: 'MISSING_FIELD', message: 'idempotency-key header is required', data: { field: 'idempotency-key' } });
  });

  it('refuses a missing, unknown or expired bearer token with 401', async () => {
    const { authorization: _, ...noToken } = signed(token, app.clientSecret, 'k');
    expect((await postCard(fetch, server.baseUrl, noToken)).json).toMatchObject({ status: '02' });
    const bogus = await postCard(fetch, server.baseUrl, signed('sbx_at_made_up', app.clientSecret, 'k'));
    expect(bogus.status).toBe(401);
    expect(bogus.json).toMatchObject({ status: '02', message: expect.stringContaining('not valid') });
  });

  it('refuses a token without cards.create with 403 and status 03', async () => {
    const listOnly = await tokenFor(fetch, server.authUrl, app, 'cards.list');
    const res = await postCard(fetch, server.baseUrl, signed(listOnly, app.clientSecret, 'key-1'));
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ status: '03', message: 'Forbidden: the access token lacks the cards.create scope', data: { required_scope: 'cards.create' } });

    const { ob } = clientFor(server, app);
    const error = (await ob.request({ method: 'POST', path: '/cards', body: validCard(), scope: 'cards.list' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.code).toBe('03');
  });

  it('refuses a missing field with 400 MISSING_FIELD and a message naming it', async () => {
    const { card_holder_name: _, ...body } = validCard();
    const res = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'key-1'), body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: '01', error_code: 'MISSING_FIELD', message: 'card_holder_name is required', data: { field: 'card_holder_name' } });

    const { ob } = clientFor(server, app);
    const error = (await ob.request({ method: 'POST', path: '/cards', body: { ...validCard(), card_expiry: { year: '2029' } }, scope: 'cards.create' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.errorCode).toBe('MISSING_FIELD');
    expect(error.errors).toEqual([{ field: 'card_expiry.month', code: 'MISSING_FIELD', message: 'card_expiry.month is required' }]);
  });

  it('refuses a bad value with INVALID_FIELD, and a non-object body', async () => {
    const res = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'key-1'), validCard({ card_status: 'FROZEN' }));
    expect(res.json).toMatchObject({ status: '01', error_code: 'INVALID_FIELD', data: { field: 'card_status' } });
    const text = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'key-2'), '[1,2');
    expect(text.json).toMatchObject({ status: '01', error_code: 'INVALID_REQUEST' });
    expect(server.cards()).toHaveLength(0);
  });

  it('replays the first answer for the same key and the same body', async () => {
    const first = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'same'));
    const again = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'same'), { ...validCard(), card_expiry: { year: '2029', month: '09' } });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(server.cards()).toHaveLength(1);
  });

  it('refuses the same key with another body: 400 IDEMPOTENCY_KEY_REUSED', async () => {
    await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'same'));
    const res = await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'same'), validCard({ card_holder_name: 'Someone Else' }));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: '01', error_code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(server.cards()).toHaveLength(1);

    const { ob } = clientFor(server, app);
    const error = (await ob.cards.create(validCard({ card_holder_name: 'Third' }), { idempotencyKey: 'same' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(error.idempotencyKey).toBe('same');
  });

  it('keeps idempotency keys per client', async () => {
    const other = server.registerClient();
    const otherToken = await tokenFor(fetch, server.authUrl, other, 'cards.create');
    await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'shared'));
    const res = await postCard(fetch, server.baseUrl, signed(otherToken, other.clientSecret, 'shared'), validCard({ card_holder_name: 'Other App' }));
    expect(res.status).toBe(201);
    expect(server.cards({ clientId: other.clientId })).toHaveLength(1);
  });

  it('answers 404 for an unknown path and 405 for a wrong method', async () => {
    const { ob } = clientFor(server, app);
    const error = (await ob.request({ method: 'GET', path: '/loans', scope: 'loans.list' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe('04');
    const res = await fetch(`${server.baseUrl}/cards`, { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, GET');
  });

  it('GET /cards lists the caller’s cards and needs cards.list', async () => {
    const { ob } = clientFor(server, app);
    await ob.cards.create(validCard());
    const other = server.registerClient();
    await clientFor(server, other).ob.cards.create(validCard({ card_holder_name: 'Not Mine' }));
    const { cards } = await ob.cards.list();
    expect(cards.map((c) => c.card_holder_name)).toEqual(['Ada Obi']);
    expect(server.cards()).toHaveLength(2);

    const createOnly = await tokenFor(fetch, server.authUrl, app, 'cards.create');
    const res = await fetch(`${server.baseUrl}/cards`, { headers: signed(createOnly, app.clientSecret, 'list-1') });
    expect(res.status).toBe(403);
  });

  it('never repeats a secret in an error body', async () => {
    const secrets = [app.clientSecret, token, '1234'];
    const bodies = [
      await postCard(fetch, server.baseUrl, { ...signed(token, app.clientSecret, 'k1'), signature: 'x' }),
      await postCard(fetch, server.baseUrl, signed(token, app.clientSecret, 'k2'), validCard({ card_default_pin: 'abcd' })),
      await postCard(fetch, server.baseUrl, signed(token, 'wrong', 'k3')),
    ].map((r) => r.text);
    for (const body of bodies) for (const secret of secrets) expect(body).not.toContain(secret);
  });
});

describe('signature encodings', () => {
  const app = { clientId: 'app', clientSecret: 'app-secret' };

  it('accepts only hex by default', async () => {
    const sandbox = createSandbox({ clients: [app] });
    const token = await tokenFor(sandbox, sandbox.authUrl, app, 'cards.create');
    expect((await postCard(sandbox, sandbox.baseUrl, signed(token, app.clientSecret, 'k', 'base64'))).status).toBe(401);
    expect((await postCard(sandbox, sandbox.baseUrl, signed(token, app.clientSecret, 'k', 'hex'))).status).toBe(201);
  });

  it('accepts base64 when configured', async () => {
    const sandbox = createSandbox({ clients: [app], signatureEncodings: ['hex', 'base64'] });
    const { ob } = clientFor(sandbox, app, { fetch: sandbox, signatureEncoding: 'base64' });
    await expect(ob.cards.create(validCard())).resolves.toMatchObject({ card_status: 'ACTIVE' });
  });
});

describe('the cipher', () => {
  const app = { clientId: 'app', clientSecret: 'app-secret' };
  // A reversible scheme that refuses text it did not produce, as a real cipher would.
  const tagged: FieldCipher = {
    encrypt: async (text) => `enc:${btoa([...text].reverse().join(''))}`,
    decrypt: async (text) => {
      if (!text.startsWith('enc:')) throw new Error('not ciphertext');
      return [...atob(text.slice(4))].reverse().join('');
    },
  };

  it('decrypts the PIN on the way in and encrypts the secret fields on the way out', async () => {
    const sandbox = createSandbox({ clients: [app], cipher: tagged });
    const wire: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.url.endsWith('/cards')) wire.push(await request.clone().text());
      const response = await sandbox(request);
      if (request.url.endsWith('/cards')) wire.push(await response.clone().text());
      return response;
    };
    const { ob } = clientFor(sandbox, app, { fetch: recording, cipher: tagged });
    const card = await ob.cards.create(validCard());
    expect(card.card_default_pin).toBe('1234');
    expect(card.card_cvv2).toMatch(/^\d{3}$/);
    const [sent, received] = wire.map((t) => JSON.parse(t) as Record<string, unknown>);
    expect(sent!.card_default_pin).toBe(await tagged.encrypt('1234'));
    const data = received!.data as Record<string, string>;
    for (const field of ['card_number', 'card_cvv2', 'card_default_pin', 'card_token']) expect(data[field]).toMatch(/^enc:/);
    expect(sandbox.cards()[0]!.card.card_default_pin).toBe('1234');
  });

  it('refuses a PIN it cannot decrypt, without echoing it', async () => {
    const sandbox = createSandbox({ clients: [app], cipher: tagged });
    const { ob } = clientFor(sandbox, app, { fetch: sandbox });
    const error = (await ob.cards.create(validCard({ card_default_pin: '9876' })).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.errors).toEqual([{ field: 'card_default_pin', code: 'INVALID_FIELD', message: 'card_default_pin could not be decrypted with the client secret' }]);
    expect(error.rawBody).not.toContain('9876');
    expect(sandbox.cards()).toHaveLength(0);
  });
});

describe('rate limits', () => {
  const app = { clientId: 'app', clientSecret: 'app-secret' };

  it('are off unless asked for', async () => {
    const sandbox = createSandbox({ clients: [app], environment: 'production' });
    const token = await tokenFor(sandbox, sandbox.authUrl, app, 'cards.list');
    const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => sandbox(`${sandbox.baseUrl}/cards`, { headers: signed(token, app.clientSecret, `k${i}`) }).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('production: a burst of 20, then 429 with Retry-After until the clock refills one every 6 s', async () => {
    const clock = createManualClock();
    const sandbox = createSandbox({ clients: [app], environment: 'production', rateLimits: true, now: clock.now });
    const token = await tokenFor(sandbox, sandbox.authUrl, app, 'cards.list');
    const call = (i: number) => sandbox(`${sandbox.baseUrl}/cards`, { headers: signed(token, app.clientSecret, `k${i}`) });
    for (let i = 0; i < 20; i++) expect((await call(i)).status).toBe(200);
    const refused = await call(20);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('6');
    expect(await refused.json()).toMatchObject({ status: '91', data: { retry_after: 6 } });
    clock.advance(5_999);
    expect((await call(21)).status).toBe(429);
    clock.advance(1);
    expect((await call(22)).status).toBe(200);
    expect((await call(23)).status).toBe(429);
    clock.advance(12_000);
    expect((await call(24)).status).toBe(200);
    expect((await call(25)).status).toBe(200);
    expect((await call(26)).status).toBe(429);
    // Token requests go to the identity host and are never limited.
    for (let i = 0; i < 5; i++) await tokenFor(sandbox, sandbox.authUrl, app, 'cards.list');
  });

  it('the SDK sees RateLimitError with retryAfter once its retries are spent', async () => {
    const clock = createManualClock();
    const sandbox = createSandbox({ clients: [app], rateLimits: { rate: 60, burst: 1 }, now: clock.now });
    const { ob, sleeps } = clientFor(sandbox, app, { fetch: sandbox, maxRetries: 1 });
    await ob.cards.create(validCard());
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBe(1000);
    expect(sleeps).toEqual([1000]);
  });
});

describe('unknown hosts', () => {
  it('the fetch handler answers 404 naming the hosts it serves', async () => {
    const sandbox = createSandbox();
    const res = await sandbox('https://elsewhere.example/openapi/v1/cards');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toContain(sandbox.baseUrl);
  });
});
