import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { aesGcmCipher, MemoryTokenStore, OpenBanking } from '../../src/index.js';
import { AUTH, BASE, http, HttpResponse, useMsw, validCard } from '../support/msw.js';

// Unique values that must never show when anything reachable from a client is printed.
const S = {
  secret: 'sec_PRINT_SENTINEL_4a1f',
  token: 'tok_PRINT_SENTINEL_9c2e',
  customerToken: 'ctok_PRINT_SENTINEL_7b3d',
  refresh: 'rt_PRINT_SENTINEL_1e8a',
  pin: '97531864',
};
const SENTINELS = Object.values(S);

const server = useMsw();

/**
 * Every object reachable from `roots`: own properties (string and symbol keys, enumerable or not)
 * and getters on the prototype chain, except the accessors that hand a value to its owner on
 * purpose (`session.tokens`).
 */
function reachable(roots: unknown[]): object[] {
  const seen = new Set<object>();
  const queue = [...roots];
  const visit = (owner: object, descriptor: PropertyDescriptor | undefined) => {
    if (!descriptor) return;
    if ('value' in descriptor) queue.push(descriptor.value);
    else if (descriptor.get) {
      try {
        queue.push(descriptor.get.call(owner));
      } catch {
        // a getter that throws shows nothing
      }
    }
  };
  while (queue.length > 0) {
    const item = queue.shift();
    if (item === null || typeof item !== 'object' || seen.has(item)) continue;
    seen.add(item);
    for (const key of Reflect.ownKeys(item)) visit(item, Object.getOwnPropertyDescriptor(item, key));
    for (let proto = Object.getPrototypeOf(item); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const key of Reflect.ownKeys(proto)) {
        if (key === 'tokens' || key === 'constructor') continue;
        const descriptor = Object.getOwnPropertyDescriptor(proto, key);
        if (descriptor?.get) visit(item, descriptor);
      }
    }
  }
  return [...seen];
}

/** What a person could see of `value`: inspect (every depth, hidden members too), JSON, String. */
function printed(value: object): string[] {
  const out = [inspect(value, { depth: Infinity, showHidden: true }), inspect(value, { depth: Infinity, customInspect: true })];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch (error) {
    out.push(String(error));
  }
  try {
    out.push(String(value));
  } catch (error) {
    out.push(String(error));
  }
  return out;
}

describe('printing (DESIGN.md "printing")', () => {
  it('no object reachable from a client, a customer session or their errors shows the secret, a token or a PIN', async () => {
    server.use(
      http.post(`${AUTH}/oauth2/token`, () => HttpResponse.json({ access_token: S.token, token_type: 'Bearer', expires_in: 3600, scope: 'cards.create' })),
      http.post(`${AUTH}/oauth/token`, () => HttpResponse.json({ error: 'invalid_grant' }, { status: 400 })),
      http.post(`${BASE}/cards`, () => HttpResponse.json({ status: '02', message: 'bad signature', data: {} }, { status: 401 })),
      http.get(`${BASE}/accounts`, () => HttpResponse.json({ status: '02', message: 'expired', data: {} }, { status: 401 })),
    );
    const ob = new OpenBanking({
      clientId: 'client-print',
      clientSecret: S.secret,
      baseUrl: BASE,
      authUrl: AUTH,
      cipher: aesGcmCipher(S.secret),
      tokenStore: new MemoryTokenStore(),
      logLevel: 'off',
      retryDelay: 0, sleep: async () => undefined,
    });
    const errors: unknown[] = [];
    // A call that fetched (and cached) a token, then was refused: the client holds a token now.
    await ob.cards
      .create(validCard({ card_default_pin: S.pin }))
      .catch((e: unknown) => errors.push(e));
    const session = ob.forCustomer({ access_token: S.customerToken, token_type: 'Bearer', expires_in: 3600, refresh_token: S.refresh });
    await session.accounts.list().catch((e: unknown) => errors.push(e));
    await ob.auth.refresh(S.refresh).catch((e: unknown) => errors.push(e));
    expect(errors).toHaveLength(3);

    const objects = reachable([ob, session, ...errors]);
    // The walk reaches the namespaces of both, nested ones included, and the errors.
    for (const expected of [ob.auth, ob.cards, ob.accounts, ob.accounts.transactions, ob.accounts.holds, session.accounts.balances, session.customers]) {
      expect(objects).toContain(expected);
    }
    const leaks: string[] = [];
    for (const object of objects) {
      for (const text of printed(object)) {
        for (const sentinel of SENTINELS) if (text.includes(sentinel)) leaks.push(`${object.constructor?.name ?? 'object'}: ${sentinel}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
