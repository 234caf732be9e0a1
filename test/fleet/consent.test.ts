import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConsentEndedError, OpenBanking, type TokenSet } from '../../src/index.js';
import { redisFleet } from '../../src/redis.js';
import { createManualClock, createSandbox, type Sandbox } from '../../src/testing.js';
import { startRedis, useRedis } from './support.js';

// An ended consent shared through a real redis-server: two "processes" (clients, each with its own
// redisFleet connection) hold a session with the same id; once one sees invalid_grant, the
// other's next call ends too, with no refresh request of its own.

const SECRET = 'app-secret-for-consent';
const SCOPES = ['accounts.list.readonly', 'customers.readonly'];

const shared = useRedis();
const connect = () => shared.connect();

async function processOf(sandbox: Sandbox, prefix: string) {
  return new OpenBanking({ clientId: 'app', clientSecret: SECRET, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, fleet: redisFleet(await connect(), { prefix }), logLevel: 'off' });
}

function newSandbox() {
  return createSandbox({ clients: [{ clientId: 'app', clientSecret: SECRET }] });
}

function customerTokens(sandbox: Sandbox, expiresAt = Math.floor(Date.now() / 1000) + 3600): TokenSet {
  return { ...sandbox.issueTokens({ clientId: 'app', scope: SCOPES, kind: 'customer' }), expires_at: expiresAt };
}

describe('an ended consent across a fleet (real redis-server)', () => {
  it("after one process sees invalid_grant, the other's next call rejects with ConsentEndedError and makes no request", async () => {
    const sandbox = newSandbox();
    const tokens = customerTokens(sandbox);
    const endedA = vi.fn();
    const endedB = vi.fn();
    const a = (await processOf(sandbox, 'consent-1')).forCustomer(tokens, { id: 'customer-42', onConsentEnded: endedA });
    const b = (await processOf(sandbox, 'consent-1')).forCustomer(tokens, { id: 'customer-42', onConsentEnded: endedB });
    await Promise.all([a.accounts.list(), b.accounts.list()]);

    sandbox.revokeConsent(tokens.refresh_token!);
    await expect(a.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    expect(sandbox.requests.count({ path: '/oauth/token' })).toBe(1);
    expect(endedA).toHaveBeenCalledTimes(1);

    const before = sandbox.requests.count();
    // B's first call after the ending is one it sends with client credentials: ended all the same, unsent.
    await expect(b.bills.categories.list()).rejects.toBeInstanceOf(ConsentEndedError);
    expect(endedB).toHaveBeenCalledTimes(1);
    const error = await b.customers.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsentEndedError);
    expect((error as ConsentEndedError).scopes).toEqual(SCOPES);
    expect(sandbox.requests.count()).toBe(before);
    expect(b.consent.state).toBe('ended');
    expect(endedB).toHaveBeenCalledTimes(1);
    await expect(b.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    expect(endedB).toHaveBeenCalledTimes(1);
    expect(sandbox.requests.count()).toBe(before);

    // The ending is sealed in Redis: no token, no scope in clear.
    const raw = await (await connect()).get('consent-1:openbanking-ng:app:customer:customer-42:ended');
    expect(raw).toBeTypeOf('string');
    expect(raw).not.toContain('accounts.list.readonly');
    expect(raw).not.toContain(tokens.refresh_token!);

    // A new consent given to one process makes it work again; the other stays ended until its own setTokens.
    const renewed = customerTokens(sandbox);
    b.setTokens(renewed);
    await expect(b.accounts.list()).resolves.toBeDefined();
    await expect(a.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
  });

  it('a process holding an older rotation, due for a refresh, ends without a refresh request', async () => {
    const sandbox = newSandbox();
    const tokens = customerTokens(sandbox, Math.floor(Date.now() / 1000) - 10);
    const a = (await processOf(sandbox, 'consent-2')).forCustomer(tokens, { id: 'customer-7' });
    const b = (await processOf(sandbox, 'consent-2')).forCustomer(tokens, { id: 'customer-7' });
    await a.accounts.list(); // A redeems the refresh token; B still holds the spent one
    expect(sandbox.requests.count({ path: '/oauth/token' })).toBe(1);

    sandbox.revokeConsent(a.tokens.access_token);
    await expect(a.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    expect(sandbox.requests.count({ path: '/oauth/token' })).toBe(2);

    const before = sandbox.requests.count();
    await expect(b.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    expect(sandbox.requests.count()).toBe(before);
  });

  it('another customer id is not ended', async () => {
    const sandbox = newSandbox();
    const tokens = customerTokens(sandbox);
    const other = customerTokens(sandbox);
    const a = (await processOf(sandbox, 'consent-3')).forCustomer(tokens, { id: 'customer-1' });
    const b = (await processOf(sandbox, 'consent-3')).forCustomer(other, { id: 'customer-1:x' });
    sandbox.revokeConsent(tokens.access_token);
    await expect(a.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    await expect(b.accounts.list()).resolves.toBeDefined();
  });

  it('a new consent given with setTokens after the ending is refreshed with its own refresh token, never swapped for the ended consent stored in the fleet', async () => {
    const clock = createManualClock();
    const sandbox = createSandbox({ clients: [{ clientId: 'app', clientSecret: SECRET }], now: clock.now });
    const at = () => Math.floor(clock.now() / 1000);
    const processAt = async () =>
      new OpenBanking({ clientId: 'app', clientSecret: SECRET, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, fleet: redisFleet(await connect(), { prefix: 'consent-4' }), logLevel: 'off', now: clock.now });
    const first = { ...sandbox.issueTokens({ clientId: 'app', scope: SCOPES, kind: 'customer' }), expires_at: at() + 3600 };
    const endedB = vi.fn();
    const a = (await processAt()).forCustomer(first, { id: 'customer-9' });
    const b = (await processAt()).forCustomer(first, { id: 'customer-9', onConsentEnded: endedB });
    clock.advance(3_590_000);
    await a.accounts.list(); // due: A refreshes, and the fleet keeps the rotated set
    clock.advance(60_000);
    sandbox.revokeConsent(a.tokens.access_token);
    await expect(a.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    await expect(b.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    expect(endedB).toHaveBeenCalledTimes(1);

    // Ten minutes later the customer consents again, and B is given the new tokens.
    clock.advance(600_000);
    const renewed = { ...sandbox.issueTokens({ clientId: 'app', scope: SCOPES, kind: 'customer' }), expires_at: at() + 3600 };
    b.setTokens(renewed);
    const grants = sandbox.requests.list({ path: '/oauth/token' }).length;
    // The bank refuses the new access token once: one refresh (of the new consent) and one retry.
    sandbox.faults.inject({ path: '/openapi/v1/accounts', times: 1, fault: { type: 'status', status: 401 } });
    await expect(b.accounts.list()).resolves.toBeDefined();
    const refreshes = sandbox.requests.list({ path: '/oauth/token' }).slice(grants);
    expect(refreshes.map((r) => r.status)).toEqual([200]);
    expect(b.tokens.access_token).not.toBe(renewed.access_token);
    await expect(b.customers.retrieve()).resolves.toBeDefined();
    expect(b.consent.state).toBe('active');
    expect(endedB).toHaveBeenCalledTimes(1);
  });
});
