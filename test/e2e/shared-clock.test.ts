import { describe, expect, it } from 'vitest';
import { OpenBanking } from '../../src/index.js';
import { createManualClock, createSandbox } from '../../src/testing.js';
import { validCard } from '../support/cards.js';

const body = validCard();

describe('the now option drives token expiry, so a test can share one fake clock with the sandbox', () => {
  it('renews a client-credentials token once the shared clock passes its refresh margin, never before', async () => {
    const clock = createManualClock(Date.UTC(2026, 10, 22));
    const sandbox = createSandbox({ now: clock.now, tokenLifetime: 600 });
    const app = sandbox.registerClient();
    const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, now: clock.now, logLevel: 'off' });
    const tokenRequests = () => sandbox.requests.count({ path: '/oauth2/token', method: 'POST' });

    await ob.cards.create(body);
    clock.advance(539_000); // 61 s left: outside min(30 s, 10 % of 600 s) = 30 s
    await ob.cards.create(body);
    expect(tokenRequests()).toBe(1);
    clock.advance(2_000); // 59 s left: still fresh
    await ob.cards.create(body);
    expect(tokenRequests()).toBe(1);
    clock.advance(31_000);
    await ob.cards.create(body);
    expect(tokenRequests()).toBe(2);
    expect(sandbox.cards()).toHaveLength(4);
  });

  it('refreshes a customer token ahead of expiry by the shared clock, with no 401 first', async () => {
    const clock = createManualClock(Date.UTC(2026, 10, 22));
    const sandbox = createSandbox({ now: clock.now });
    const app = sandbox.registerClient();
    const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, now: clock.now, logLevel: 'off' });
    const tokens = sandbox.issueTokens({ clientId: app.clientId, scope: ['cards.list'], expiresIn: 3600 });
    const saved: string[] = [];
    const customer = ob.forCustomer(tokens, { onTokens: (t) => void saved.push(t.access_token) });

    await customer.request({ method: 'GET', path: '/cards', customer: true });
    clock.advance(3_580_000); // 20 s left: inside the 30 s margin
    await customer.request({ method: 'GET', path: '/cards', customer: true });
    expect(saved).toHaveLength(1);
    expect(sandbox.requests.list('/openapi/v1/cards').map((r) => r.status)).toEqual([200, 200]);
  });
});

describe('a shared token store that answers slowly', () => {
  it('does not make a second client-credentials request when a stale miss arrives after another client stored a token', async () => {
    const { MemoryTokenStore } = await import('../../src/index.js');
    const inner = new MemoryTokenStore();
    let held: (() => void) | undefined;
    let holdNext = false;
    const store = {
      get: async (key: string) => {
        const value = await inner.get(key); // read now, answer later: the answer is stale when released
        if (holdNext) {
          holdNext = false;
          await new Promise<void>((resolve) => (held = resolve));
        }
        return value;
      },
      set: inner.set.bind(inner),
      delete: inner.delete.bind(inner),
    };
    const sandbox = createSandbox();
    const app = sandbox.registerClient();
    const options = { clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, tokenStore: store, logLevel: 'off' as const };
    const a = new OpenBanking(options);
    const b = new OpenBanking(options);

    holdNext = true;
    const late = b.cards.create(body); // its first read misses and is held
    await a.cards.create(body); // meanwhile a gets and stores a token
    held!();
    await late;
    expect(sandbox.requests.count({ path: '/oauth2/token', method: 'POST' })).toBe(1);
    expect(sandbox.cards()).toHaveLength(2);
  });
});
