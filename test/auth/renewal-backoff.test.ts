import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/index.js';
import { RenewalBackoff } from '../../src/core/retry-timing.js';
import { AUTH, BASE, http, HttpResponse, type Recorded, testClient, tokenHandler, useMsw, validCard } from '../support/msw.js';

const server = useMsw();

/** An API that refuses every call (as it does when the signature encoding is wrong), counting calls; or accepts from `acceptFrom` on. */
function gateway(state: { calls: number; acceptFrom?: number }) {
  const answer = () => {
    state.calls++;
    if (state.acceptFrom !== undefined && state.calls >= state.acceptFrom) return HttpResponse.json({ status: '00', message: 'ok', data: { card_id: 'c1', card_status: 'ACTIVE', accounts: [] } });
    return HttpResponse.json({ status: '02', message: 'Invalid signature', data: {} }, { status: 401 });
  };
  return [http.post(`${BASE}/cards`, answer), http.get(`${BASE}/accounts`, answer)];
}

/** A refresh grant that counts requests and hands out numbered tokens. */
function refreshHandler(grants: string[]) {
  return http.post(`${AUTH}/oauth/token`, async ({ request }) => {
    grants.push(await request.text());
    return HttpResponse.json({ access_token: `customer-${grants.length}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `rt-${grants.length}` });
  });
}

function clock(start = 1_700_000_000_000) {
  const c = { ms: start, now: () => c.ms };
  return c;
}

describe('401 renewal is bounded (DESIGN.md "401 renewal")', () => {
  it('50 quick calls against a server that refuses every signature make at most 2 token requests', async () => {
    const tokens = { tokenRequests: [] as Recorded[] };
    const api = { calls: 0 };
    server.use(tokenHandler(tokens), ...gateway(api));
    const { ob } = testClient({ maxRetries: 0 });
    const errors: unknown[] = [];
    for (let i = 0; i < 50; i++) errors.push(await ob.cards.create(validCard()).catch((e: unknown) => e));
    expect(tokens.tokenRequests.length).toBeLessThanOrEqual(2);
    expect(errors.every((e) => e instanceof AuthenticationError)).toBe(true);
    expect((errors[0] as Error).message).toMatch(/freshly obtained token was refused too: check signatureEncoding/);
    expect((errors[49] as Error).message).toMatch(/freshly obtained token was refused too/);
    expect(api.calls).toBe(51); // the first call tried twice (one renewal), every other once
  });

  it('50 concurrent calls make at most 2 token requests too', async () => {
    const tokens = { tokenRequests: [] as Recorded[] };
    server.use(tokenHandler(tokens), ...gateway({ calls: 0 }));
    const { ob } = testClient({ maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => ob.cards.create(validCard())));
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof AuthenticationError)).toBe(true);
    expect(tokens.tokenRequests.length).toBeLessThanOrEqual(2);
  });

  it('client-credentials calls of many customer sessions share their source\'s backoff: at most 2 token requests', async () => {
    const tokens = { tokenRequests: [] as Recorded[] };
    server.use(tokenHandler(tokens), ...gateway({ calls: 0 }));
    const { ob } = testClient({ maxRetries: 0 });
    const customer = { access_token: 'customer-0', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-0' } as const;
    await expect(ob.cards.create(validCard())).rejects.toBeInstanceOf(AuthenticationError);
    // One session per request, as a backend builds them, each sending with client credentials for cards.create.
    for (let i = 0; i < 20; i++) {
      await expect(ob.forCustomer(customer).request({ method: 'POST', path: '/cards', scope: 'cards.create', customer: false, body: {} })).rejects.toBeInstanceOf(AuthenticationError);
    }
    expect(tokens.tokenRequests.length).toBeLessThanOrEqual(2);
  });

  it('the same for a customer session: at most 2 refresh grants', async () => {
    const grants: string[] = [];
    server.use(refreshHandler(grants), ...gateway({ calls: 0 }));
    const { ob } = testClient({ maxRetries: 0 });
    const session = ob.forCustomer({ access_token: 'customer-0', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-0' });
    for (let i = 0; i < 50; i++) await expect(session.accounts.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(grants.length).toBeLessThanOrEqual(2);
    expect(grants.length).toBeGreaterThanOrEqual(1); // the first 401 still renews: the rule stays
  });

  it('backs off 30 s, then doubles, and never locks out: a renewal goes out once the wait is over', async () => {
    const tokens = { tokenRequests: [] as Recorded[] };
    server.use(tokenHandler(tokens), ...gateway({ calls: 0 }));
    const c = clock();
    const { ob } = testClient({ maxRetries: 0, now: c.now });
    const call = () => ob.cards.create(validCard()).catch((e: unknown) => e);
    await call();
    expect(tokens.tokenRequests).toHaveLength(2); // the token, and one renewal after the 401
    c.ms += 29_000;
    await call();
    expect(tokens.tokenRequests).toHaveLength(2); // inside the 30 s wait: no renewal
    c.ms += 1_000;
    expect(String(await call())).toMatch(/waits 60 s/);
    expect(tokens.tokenRequests).toHaveLength(3); // 30 s after the last renewal: one more, refused too
    c.ms += 59_000;
    await call();
    expect(tokens.tokenRequests).toHaveLength(3); // the wait doubled to 60 s
    c.ms += 1_000;
    await call();
    expect(tokens.tokenRequests).toHaveLength(4);
  });

  it('any success resets the backoff: the next 401 renews at once', async () => {
    const tokens = { tokenRequests: [] as Recorded[] };
    const api = { calls: 0, acceptFrom: 3 };
    server.use(tokenHandler(tokens), ...gateway(api));
    const { ob } = testClient({ maxRetries: 0 });
    await ob.cards.create(validCard()).catch(() => undefined); // 401, renewal, 401: backing off
    await ob.request({ method: 'GET', path: '/accounts', scope: 'cards.create' }).catch(() => undefined);
    expect(tokens.tokenRequests).toHaveLength(2);
    // The gateway now accepts (call 3 on): a success with this token source resets the backoff.
    await expect(ob.cards.create(validCard())).resolves.toBeDefined();
    api.acceptFrom = 1_000;
    await ob.cards.create(validCard()).catch(() => undefined);
    expect(tokens.tokenRequests).toHaveLength(3); // renewed at once after the 401
  });
});

describe('401 renewal backoff', () => {
  it('renews freely until a fresh token is refused, then waits 30 s doubling to 5 min, and resets on success', () => {
    let now = 0;
    const backoff = new RenewalBackoff(() => now);
    expect(backoff.tryRenew()).toBe(true);
    expect(backoff.tryRenew()).toBe(true);
    backoff.freshRefused('t1');
    backoff.freshRefused('t1'); // calls that shared one renewal count its refusal once
    expect(backoff.wait).toBe(30_000);
    expect(backoff.tryRenew()).toBe(false);
    now += 30_000;
    expect(backoff.tryRenew()).toBe(true);
    for (const [token, wait] of [['t2', 60_000], ['t3', 120_000], ['t4', 240_000], ['t5', 300_000], ['t6', 300_000]] as const) {
      backoff.freshRefused(token);
      expect(backoff.wait).toBe(wait);
    }
    backoff.succeeded();
    expect(backoff.wait).toBe(0);
    expect(backoff.tryRenew()).toBe(true);
  });
});
