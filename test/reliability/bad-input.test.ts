import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CARD_MODES,
  CARD_STATUSES,
  CARD_TYPES,
  ConnectionError,
  OpenBanking,
  OpenBankingError,
  TimeoutError,
  ValidationError,
  type ClientOptions,
} from '../../src/index.js';
import { createSandbox } from '../../src/testing.js';
import { validCard as cardBody } from '../support/cards.js';

// Property-based: generated card bodies, request bodies and options. Every invalid input must
// reject with ValidationError before anything is sent (a token request included); every valid one
// is sent exactly once. Each property also checks that every kind of input it draws was drawn.
const RUNS = { numRuns: 200 };

const sandbox = createSandbox({ seed: 'bad-input', clients: [{ clientId: 'input-app', clientSecret: 'input-secret' }] });
/** Every request that left a client, token requests included. */
const seen: Array<{ key: string | null; path: string; body: string }> = [];
const TOKEN_PATH = '/oauth2/token';
const recordingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input as Request, init);
  seen.push({ key: request.headers.get('idempotency-key'), path: new URL(request.url).pathname, body: await request.clone().text() });
  return sandbox(request);
}) as typeof fetch;
const base = { clientId: 'input-app', clientSecret: 'input-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: recordingFetch, logLevel: 'off', retryDelay: 0, sleep: async () => undefined } as const;
const ob = new OpenBanking(base);
/** A client with no token yet: an input refused after a token request would show that request. */
const fresh = () => new OpenBanking(base);
let counter = 0;
const nextKey = (prefix: string) => `${prefix}-${++counter}`;
const sentWith = (key: string) => seen.filter((s) => s.key === key);
/** API requests (not token requests) since `before` entries of {@link seen}. */
const apiSince = (before: number) => seen.slice(before).filter((s) => s.path !== TOKEN_PATH).length;

/** Calls without letting a synchronous throw escape: API methods must report failures by rejecting. */
function call<T>(run: () => Promise<T>): Promise<{ value?: T; error?: unknown }> {
  let promise: Promise<T>;
  try {
    promise = run();
  } catch (error) {
    return Promise.resolve({ error: new Error(`threw synchronously: ${String(error)}`) });
  }
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

// ---- valid card bodies ------------------------------------------------------------------------

const digits = (min: number, max = min) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
/** Any well-formed text: 'binary' draws whole code points (astral ones count 2 towards the 255 limit). */
const text = (min = 1) => fc.oneof(fc.string({ unit: 'binary', minLength: min, maxLength: 120 }), fc.string({ unit: 'grapheme', minLength: min, maxLength: 40 }).filter((s) => s.length <= 255 && s.length >= min));
const validCard = fc.record(
  {
    account_number: digits(10),
    card_holder_name: text(),
    card_status: fc.constantFrom(...CARD_STATUSES),
    card_default_pin: digits(4, 12),
    card_expiry: fc.record({ month: fc.integer({ min: 1, max: 12 }).map((m) => String(m).padStart(2, '0')), year: digits(4) }),
    product_id: text(),
    card_type: fc.constantFrom(...CARD_TYPES),
    card_mode: fc.constantFrom(...CARD_MODES),
    card_currency: fc.constant('NGN' as const),
    card_address: fc.record({ street: text(), city: text(), state: text(), country: text() }, { requiredKeys: [] }),
    custom_properties: fc.array(fc.record({ id: text(), description: text(0), type: text(), value: text(0) }), { maxLength: 3 }),
  },
  { requiredKeys: ['account_number', 'card_holder_name', 'card_status', 'card_default_pin', 'card_expiry'] },
);

// ---- invalid card bodies: a valid one with one thing broken ----------------------------------

type Body = Record<string, unknown>;
const REQUIRED = ['account_number', 'card_holder_name', 'card_status', 'card_default_pin', 'card_expiry'] as const;
const STRING_FIELDS = ['account_number', 'card_holder_name', 'card_default_pin', 'product_id'] as const;
const KNOWN = new Set(['product_id', 'card_type', 'card_mode', 'card_status', 'card_currency', 'account_number', 'card_holder_name', 'card_default_pin', 'card_expiry', 'card_address', 'custom_properties']);

/** A cycle: an object that contains itself. */
const cyclic = () => {
  const o: Record<string, unknown> = { month: '09', year: '2029' };
  o.self = o;
  return o;
};
const loneSurrogate = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ unit: 'grapheme-ascii', maxLength: 8 }))
  .map(([before, unit, after]) => `${before}${String.fromCharCode(unit)}${after}`)
  .filter((s) => s.length <= 255);
const isPlainRecord = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(Number.NaN),
  fc.constant(Infinity),
  fc.bigInt(),
  fc.array(fc.string(), { minLength: 1, maxLength: 3 }), // [] is a valid (empty) custom_properties
  fc.dictionary(fc.string(), fc.string(), { minKeys: 1, maxKeys: 3 }), // {} is a valid (empty) card_address
  fc.date(),
  fc.func(fc.string()),
  fc.constant(Symbol('x')),
  fc.constant(new Map([['a', 1]])),
);

const KINDS = ['missing field', 'wrong type', 'bad enum', 'bad month', 'bad year', 'bad account number', 'bad PIN', 'unknown field', 'too long', 'lone surrogate', 'cycle or hole', 'not an object'];
const mutations: Array<fc.Arbitrary<{ what: string; kind: string; apply: (b: Body) => unknown; value?: string }>> = [
  fc.constantFrom(...REQUIRED).map((field) => ({ what: `without ${field}`, apply: (b: Body) => ({ ...b, [field]: undefined }) })).map((m) => ({ ...m, kind: 'missing field' })),
  fc.tuple(fc.constantFrom(...REQUIRED, 'card_type', 'card_mode', 'card_currency', 'card_address', 'custom_properties'), wrongType)
    // An object is the right type for card_address (`{}` is a valid address), an empty array for custom_properties.
    .filter(([field, v]) => !(field === 'card_address' && isPlainRecord(v)) && !(field === 'custom_properties' && Array.isArray(v) && v.length === 0))
    .map(([field, v]) => ({ what: `${field} of the wrong type`, apply: (b: Body) => ({ ...b, [field]: v }) })).map((m) => ({ ...m, kind: 'wrong type' })),
  fc.tuple(fc.constantFrom('month', 'year'), wrongType).map(([field, v]) => ({ what: `card_expiry.${field} of the wrong type`, apply: (b: Body) => ({ ...b, card_expiry: { ...(b.card_expiry as Body), [field]: v } }) })).map((m) => ({ ...m, kind: 'wrong type' })),
  fc
    .tuple(fc.constantFrom('card_status', 'card_type', 'card_mode', 'card_currency'), fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('active', 'Active ', 'ACTIVE\n', 'ngn', 'USD', 'VIRTUAL ')))
    .filter(([field, v]) => !(field === 'card_status' ? (CARD_STATUSES as readonly string[]) : field === 'card_type' ? (CARD_TYPES as readonly string[]) : field === 'card_mode' ? (CARD_MODES as readonly string[]) : ['NGN']).includes(v))
    .map(([field, v]) => ({ what: `bad ${field}`, apply: (b: Body) => ({ ...b, [field]: v }), value: v })).map((m) => ({ ...m, kind: 'bad enum' })),
  fc
    .constantFrom('00', '13', '9', '1', '001', '0x9', ' 9', '09 ', '٠٩', '０９', '', '-1', '1e1', '12\n', '99')
    .map((month) => ({ what: `month ${JSON.stringify(month)}`, apply: (b: Body) => ({ ...b, card_expiry: { ...(b.card_expiry as Body), month } }) })).map((m) => ({ ...m, kind: 'bad month' })),
  fc
    .constantFrom('29', '029', '20290', '２０２９', '', ' 2029', '2029\n', '20 9', 'abcd', '2029.0')
    .map((year) => ({ what: `year ${JSON.stringify(year)}`, apply: (b: Body) => ({ ...b, card_expiry: { ...(b.card_expiry as Body), year } }) })).map((m) => ({ ...m, kind: 'bad year' })),
  fc.oneof(digits(0, 9), digits(11, 30), fc.constantFrom('012345678a', '٠١٢٣٤٥٦٧٨٩', '0123 456789', '+123456789')).map((v) => ({ what: 'bad account_number', apply: (b: Body) => ({ ...b, account_number: v }), value: v })).map((m) => ({ ...m, kind: 'bad account number' })),
  fc.oneof(digits(0, 3), digits(13, 20), fc.constantFrom('12a4', '１２３４', '12 34', '-1234')).map((v) => ({ what: 'bad PIN', apply: (b: Body) => ({ ...b, card_default_pin: v }) })).map((m) => ({ ...m, kind: 'bad PIN' })),
  fc
    .tuple(fc.constantFrom('top', 'card_expiry', 'card_address', 'custom_properties'), fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !KNOWN.has(k) && !['month', 'year', 'street', 'city', 'state', 'country', 'id', 'description', 'type', 'value'].includes(k)), fc.jsonValue())
    .map(([where, key, v]) => ({
      what: `extra field in ${where}`,
      apply: (b: Body) => {
        if (where === 'top') return { ...b, [key]: v };
        if (where === 'custom_properties') return { ...b, custom_properties: [{ id: 'p', description: '', type: 't', value: '', [key]: v }] };
        return { ...b, [where]: { ...((b[where] as Body) ?? {}), [key]: v } };
      },
    })).map((m) => ({ ...m, kind: 'unknown field' })),
  fc
    .tuple(fc.constantFrom('card_holder_name', 'product_id', 'card_address.city', 'custom_properties.value'), fc.integer({ min: 256, max: 100_000 }))
    .map(([field, length]) => ({
      what: `huge ${field}`,
      apply: (b: Body) => {
        const huge = 'Ω'.repeat(length);
        if (field === 'card_address.city') return { ...b, card_address: { city: huge } };
        if (field === 'custom_properties.value') return { ...b, custom_properties: [{ id: 'p', description: '', type: 't', value: huge }] };
        return { ...b, [field]: huge };
      },
    })).map((m) => ({ ...m, kind: 'too long' })),
  fc
    .tuple(fc.constantFrom('card_holder_name', 'product_id', 'card_address.street', 'custom_properties.description'), loneSurrogate)
    .map(([field, v]) => ({
      what: `lone surrogate in ${field}`,
      apply: (b: Body) => {
        if (field === 'card_address.street') return { ...b, card_address: { street: v } };
        if (field === 'custom_properties.description') return { ...b, custom_properties: [{ id: 'p', description: v, type: 't', value: '' }] };
        return { ...b, [field]: v };
      },
    })).map((m) => ({ ...m, kind: 'lone surrogate' })),
  fc.constantFrom(
    { what: 'a cycle in card_expiry', apply: (b: Body) => ({ ...b, card_expiry: cyclic() }) },
    { what: 'a cycle through the body', apply: (b: Body) => { const copy: Body = { ...b }; copy.card_address = { street: 'x', parent: copy }; return copy; } },
    { what: 'a cycle in custom_properties', apply: (b: Body) => { const list: unknown[] = []; list.push(list); return { ...b, custom_properties: list }; } },
    { what: 'custom_properties with a hole', apply: (b: Body) => ({ ...b, custom_properties: [, { id: 'p', description: '', type: 't', value: '' }] }) }, // eslint-disable-line no-sparse-arrays
  ).map((m) => ({ ...m, kind: 'cycle or hole' })),
  fc.constantFrom(null, undefined, 'card', 42, [], true, new Map(), new Date(0)).map((v) => ({ what: `body ${String(v)}`, apply: () => v })).map((m) => ({ ...m, kind: 'not an object' })),
];

describe('bad input never leaves the process', () => {
  it('every generated valid card body is sent exactly once, and what the server stores is what was given', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(validCard, async (body) => {
        const key = nextKey('valid');
        const result = await call(() => ob.cards.create(body, { idempotencyKey: key }));
        expect(result.error).toBeUndefined();
        const sent = sentWith(key);
        expect(sent).toHaveLength(1);
        const stored = sandbox.cards().find((c) => c.idempotencyKey === key)!;
        expect(stored.card.card_holder_name).toBe(body.card_holder_name);
        expect(stored.card.custom_properties ?? []).toEqual(body.custom_properties ?? []);
        expect(result.value!.card_id).toBe(stored.card.card_id);
        n++;
      }),
      RUNS,
    );
    expect(n).toBe(RUNS.numRuns);
    console.log(`bad input: ${n} valid card bodies, each sent exactly once`);
  });

  it('every generated invalid card body rejects with ValidationError and sends nothing', async () => {
    const byKind = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(validCard, fc.oneof(...mutations), async (valid, mutation) => {
        const body = mutation.apply(valid);
        const key = nextKey('invalid');
        const before = seen.length;
        const result = await call(() => fresh().cards.create(body as never, { idempotencyKey: key }));
        expect(result.error, mutation.what).toBeInstanceOf(ValidationError);
        const error = result.error as ValidationError;
        expect(error.issues.length).toBeGreaterThan(0);
        for (const issue of error.issues) expect(issue).toEqual({ path: expect.any(String), message: expect.any(String), code: expect.any(String) });
        if (mutation.value && mutation.value.length >= 4) expect(error.message).not.toContain(mutation.value);
        expect(error.message.length).toBeLessThan(2_000);
        expect(seen.length).toBe(before);
        byKind.set(mutation.kind, (byKind.get(mutation.kind) ?? 0) + 1);
      }),
      { numRuns: 400 },
    );
    expect([...byKind.keys()].sort()).toEqual([...KINDS].sort());
    console.log(`bad input: ${[...byKind.values()].reduce((a, b) => a + b, 0)} invalid card bodies (${[...byKind].map(([k, v]) => `${k} ${v}`).join(', ')}), 0 requests sent`);
  });

  it('ob.request: any JSON-faithful body is sent once, byte for byte; anything JSON would alter is refused unsent', async () => {
    let sent = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withObjectString: true, maxDepth: 3 }),
        async (body) => {
          const key = nextKey('request');
          const before = seen.length;
          const client = faithful(body) ? ob : fresh();
          const result = await call(() => client.request({ method: 'POST', path: '/things', body }, { idempotencyKey: key, maxRetries: 0 }));
          if (faithful(body)) {
            // The sandbox has no /things: a 404, not retried, after exactly one request.
            expect((result.error as Error | undefined)?.name, String(result.error)).toBe('NotFoundError');
            const out = sentWith(key);
            expect(out).toHaveLength(1);
            expect(out[0]!.body).toBe(body === undefined ? '' : JSON.stringify(body));
            sent++;
          } else {
            expect(result.error).toBeInstanceOf(ValidationError);
            expect(seen.length).toBe(before);
            refused++;
          }
        },
      ),
      { numRuns: 300 },
    );
    const lossy: unknown[] = [1n, () => 1, Symbol('s'), Number.NaN, -Infinity, new Date(Number.NaN), [undefined], [1, , 3], new Map([[1, 2]]), new Set([1]), new Uint8Array(2), /x/, new Error('e'), Promise.resolve(), '\uD800', { ['\uDC00']: 1 }, { a: { b: { c: 10n } } }, Object(1n)]; // eslint-disable-line no-sparse-arrays
    for (const body of lossy) {
      const before = seen.length;
      const result = await call(() => fresh().request({ method: 'POST', path: '/things', body: { value: body } }));
      expect(result.error, String(body?.toString?.())).toBeInstanceOf(ValidationError);
      expect((result.error as ValidationError).issues[0]!.code).toBe('not_serialisable');
      expect(seen.length).toBe(before);
    }
    expect(sent).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    console.log(`bad input: ob.request bodies: ${sent} sent once byte for byte, ${refused + lossy.length} refused unsent`);
  });
});

/** The test's own oracle: would JSON.stringify carry this value unchanged? */
function faithful(value: unknown, seen = new Set<object>()): boolean {
  if (value === undefined) return true; // no body
  return carries(value, seen);
}
function carries(value: unknown, seen: Set<object>): boolean {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return !/\p{Cs}/u.test(value);
  if (typeof value !== 'object') return false;
  if (seen.has(value)) return false;
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (value instanceof String) return carries(value.valueOf(), seen);
  if (value instanceof Number || value instanceof Boolean) return carries(value.valueOf(), seen);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (!(i in value) || value[i] === undefined || !carries(value[i], seen)) return false;
      return true;
    }
    return Object.entries(value).every(([k, v]) => !/\p{Cs}/u.test(k) && (v === undefined || carries(v, seen)));
  } finally {
    seen.delete(value);
  }
}

describe('bad options get clear ValidationErrors', () => {
  const OPTION_KEYS = ['clientId', 'clientSecret', 'environment', 'connectionId', 'participantId', 'redirectUri', 'signatureEncoding', 'maxRetries', 'maxRetryDelay', 'timeout', 'logLevel', 'rateLimit', 'decryptResponses', 'cipher', 'logger', 'tokenStore', 'endpoints', 'baseUrl'] as const;
  const oddValues = fc.oneof(
    fc.anything({ withBigInt: true, maxDepth: 2 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    loneSurrogate,
    fc.constantFrom('', ' ', 'http://example.com', 'ftp://x', 'production', 'base64', 'DEBUG', 'é', '✓', 'a\r\nb', '\u0000'),
    fc.double(),
    fc.integer({ min: -5, max: 2 ** 32 }),
    fc.constantFrom(2 ** 31, 2 ** 31 - 1, 1e12, Infinity, -1, 0, 0.5),
    fc.record({ rate: fc.double(), burst: fc.integer(), maxWait: fc.double() }, { requiredKeys: [] }),
  );

  it('a constructor option with any value: either a client whose calls behave, or one ValidationError naming the option', async () => {
    let accepted = 0;
    let refused = 0;
    let called = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPTION_KEYS), oddValues, async (key, value) => {
        let client: OpenBanking;
        try {
          client = new OpenBanking({ ...base, [key]: value } as ClientOptions);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).issues.some((i) => i.path === key || i.path.startsWith(`${key}.`)), (error as Error).message).toBe(true);
          refused++;
          return;
        }
        accepted++;
        if (key === 'baseUrl' || key === 'endpoints') return; // would leave the sandbox
        const idempotencyKey = nextKey('option');
        called++;
        const result = await call(() => client.cards.create(cardBody(), { idempotencyKey }));
        if (result.error !== undefined) {
          // Typed, and never a failure to even build the request (a header it cannot carry).
          expect(result.error, `${key}=${String(value)}`).toBeInstanceOf(OpenBankingError);
          // A timeout only when the option asked for a very short one.
          if (result.error instanceof ConnectionError) {
            expect(result.error).toBeInstanceOf(TimeoutError);
            expect(key === 'timeout' && typeof value === 'number' && value < 100, `${key}=${String(value)}`).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
    expect([accepted, refused, called].every((n) => n > 0), `accepted ${accepted}, refused ${refused}, called ${called}`).toBe(true);
    console.log(`bad input: constructor options: ${accepted} accepted (${called} of them called), ${refused} refused with ValidationError`);
  });

  it('every other option, and options nested in objects, with any value: a client or one ValidationError naming it, never a TypeError', () => {
    const others = ['authUrl', 'operationScopes', 'headerNames', 'previousClientSecrets', 'retryDelay', 'maxResponseBytes', 'fetch', 'fleet', 'dangerouslyAllowBrowser', 'sleep', 'now', 'participantId'] as const;
    const anyShape = fc.oneof(oddValues, fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true, withDate: true, maxDepth: 2 }));
    const nested = fc.oneof(
      anyShape,
      fc.record({ idempotencyKey: anyShape, connectionId: anyShape }, { requiredKeys: [] }),
      fc.dictionary(fc.constantFrom('cards.create', 'accounts.list', 'nope.list', '__proto__', 'constructor'), anyShape),
      fc.array(anyShape, { maxLength: 3 }),
    );
    let refused = 0;
    fc.assert(
      fc.property(fc.constantFrom(...others), nested, (key, value) => {
        try {
          new OpenBanking({ ...base, [key]: value } as ClientOptions);
        } catch (error) {
          expect(error, `${key}`).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).issues.some((i) => i.path === key || i.path.startsWith(`${key}.`)), (error as Error).message).toBe(true);
          refused++;
        }
      }),
      { numRuns: 400 },
    );
    expect(refused).toBeGreaterThan(0);
  });

  it('timeouts a timer cannot hold, and ids a header cannot carry, are refused up front', async () => {
    for (const timeout of [2 ** 31, 1e12]) expect(() => new OpenBanking({ ...base, timeout })).toThrow(/timeout: must be at most 2147483647 ms/);
    expect(() => new OpenBanking({ ...base, timeout: 2 ** 31 - 1 })).not.toThrow();
    expect(() => new OpenBanking({ ...base, connectionId: 'bank-✓' })).toThrow(/connectionId: must contain only characters a header can carry/);
    expect(() => new OpenBanking({ ...base, participantId: 'p\u0001' })).toThrow(/participantId/);
    await expect(OpenBanking.register({ authUrl: sandbox.authUrl, username: 'u', password: 'p', app_name: 'a', redirect_url: 'https://a.example/cb', timeout: 2 ** 31, fetch: recordingFetch })).rejects.toThrow(/timeout: must be at most/);
    // A card address that is an object but not a plain one would have gone out as {}.
    for (const card_address of [new Date(), new Map([['city', 'Lagos']]), /Lagos/]) {
      const result = await call(() => ob.cards.create(cardBody({ card_address }) as never));
      expect(result.error).toBeInstanceOf(ValidationError);
      expect((result.error as ValidationError).issues.map((i) => i.path)).toEqual(['card_address']);
    }
  });

  it('per-call options with any keys and values: one request, or a ValidationError and none', async () => {
    const keys = fc.constantFrom('idempotencyKey', 'connectionId', 'signal', 'timeout', 'maxRetries', 'headers', 'retries', 'idempotency_key', 'Headers');
    const headerValues = fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('authorization', 'Signature', 'idempotency-key', 'x-trace', 'content-type')), fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant('a\nb'), fc.constant('✓')), { maxKeys: 3 });
    const values = fc.oneof(oddValues, headerValues, fc.constant(new AbortController().signal), fc.uuid());
    let sent = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.dictionary(keys, values, { maxKeys: 3 }), oddValues), async (options) => {
        // A valid huge maxRetries with a valid 1 ms timeout would retry for ever against a handler
        // that takes longer than that: keep the retries a test can wait for.
        const retries = (options as { maxRetries?: unknown } | null)?.maxRetries;
        fc.pre(!(typeof retries === 'number' && retries > 3));
        const before = seen.length;
        const result = await call(() => fresh().cards.create(cardBody(), options as never));
        if (result.error instanceof ValidationError) {
          expect(seen.length).toBe(before);
          refused++;
        } else {
          if (result.error !== undefined) expect(result.error, String(result.error)).toBeInstanceOf(OpenBankingError);
          expect(apiSince(before)).toBeLessThanOrEqual(4);
          if (result.error === undefined) expect(apiSince(before)).toBe(1);
          sent++;
        }
      }),
      { numRuns: 300 },
    );
    expect(await call(() => ob.cards.create({} as never, { timeout: 2 ** 31 }))).toMatchObject({ error: expect.any(ValidationError) });
    expect(sent).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    console.log(`bad input: per-call options: ${sent} sent, ${refused} refused unsent with ValidationError`);
  });
});
