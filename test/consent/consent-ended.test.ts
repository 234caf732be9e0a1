import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConsentEndedError, type ConsentEndedError as Ended, isConsentEndedError, isOAuthError, OAuthError, type TokenSet } from '../../src/index.js';
import { startSandboxServer, type SandboxServer } from '../../src/testing.js';
import { clientFor } from '../sandbox/support.js';

// A customer's consent that ends, against the sandbox over real HTTP: one refresh request, one
// onConsentEnded, every call rejected unsent with ConsentEndedError, until setTokens.

const APP = { clientId: 'consent-app', clientSecret: 'consent-secret-1' };
const SCOPES = ['accounts.list.readonly', 'customers.readonly'];
const later = () => Math.floor(Date.now() / 1000) + 3600;

let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer({ seed: 'consent', clients: [APP] });
});
afterAll(() => server.close());

function consent(): TokenSet {
  return { ...server.issueTokens({ clientId: APP.clientId, scope: SCOPES, kind: 'customer' }), expires_at: later() };
}

const refreshes = () => server.requests.count({ path: '/oauth/token', method: 'POST' });

describe('a consent that ends (sandbox over HTTP)', () => {
  it('revoked: 20 concurrent calls make one refresh request, onConsentEnded fires once, all 20 reject with ConsentEndedError and its scopes; 5 later calls make no request; setTokens revives the session', async () => {
    const { ob } = clientFor(server, APP);
    const tokens = consent();
    const onConsentEnded = vi.fn();
    const session = ob.forCustomer(tokens, { onConsentEnded });
    await session.accounts.list();
    expect(session.consent).toEqual({ state: 'active', scopes: SCOPES, accessExpiresAt: tokens.expires_at });

    server.revokeConsent(tokens.refresh_token!);
    const before = refreshes();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => session.accounts.list()));
    expect(refreshes() - before).toBe(1);
    expect(onConsentEnded).toHaveBeenCalledTimes(1);
    expect(onConsentEnded.mock.calls[0]![0]).toBeInstanceOf(ConsentEndedError);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason as Ended;
      expect(error).toBeInstanceOf(ConsentEndedError);
      expect(error).toBeInstanceOf(OAuthError);
      expect(isConsentEndedError(error) && isOAuthError(error)).toBe(true);
      expect(error.error).toBe('invalid_grant');
      expect(error.scopes).toEqual(SCOPES);
      expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(error)).not.toContain(tokens.refresh_token!);
      expect(error.message).not.toContain(tokens.access_token);
    }
    expect(session.consent.state).toBe('ended');

    const sent = server.requests.count();
    const later5 = await Promise.allSettled([session.accounts.list(), session.customers.retrieve(), session.request({ method: 'GET', path: '/accounts' }), session.refresh(), session.accounts.list()]);
    expect(later5.every((r) => r.status === 'rejected' && r.reason instanceof ConsentEndedError)).toBe(true);
    expect(server.requests.count()).toBe(sent);
    expect(onConsentEnded).toHaveBeenCalledTimes(1);

    const renewed = consent();
    session.setTokens(renewed);
    expect(session.consent.state).toBe('active');
    await expect(session.accounts.list()).resolves.toBeDefined();

    // A later ending fires again.
    server.revokeConsent(renewed.access_token);
    await expect(session.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);
    expect(onConsentEnded).toHaveBeenCalledTimes(2);
  });

  it('every later call of an ended session rejects with ConsentEndedError unsent, the ones it sends with client credentials included', async () => {
    const { ob } = clientFor(server, APP);
    const tokens = { ...consent(), expires_at: Math.floor(Date.now() / 1000) - 5 };
    server.revokeConsent(tokens.refresh_token!);
    const onConsentEnded = vi.fn();
    const session = ob.forCustomer(tokens, { onConsentEnded });
    await expect(session.accounts.list()).rejects.toBeInstanceOf(ConsentEndedError);

    const sent = server.requests.count();
    const later = await Promise.allSettled([
      session.bills.categories.list(), // a client-credentials operation on the session
      session.accounts.create({}), // client credentials too
      session.request({ method: 'GET', path: '/bills/categories', scope: 'bills.categories.list', customer: false }),
    ]);
    for (const result of later) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(ConsentEndedError);
      expect((result as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant', scopes: SCOPES });
    }
    expect(server.requests.count()).toBe(sent);
    expect(onConsentEnded).toHaveBeenCalledTimes(1);

    // Started again by new tokens, they go out as before.
    session.setTokens(consent());
    await expect(session.bills.categories.list()).resolves.toBeDefined();
    expect(server.requests.count({ path: '/openapi/v1/bills/categories' })).toBe(1);
  });

  it('an expired refresh token ends the consent when the access token is due: one refresh request, then nothing', async () => {
    const { ob } = clientFor(server, APP);
    const tokens = { ...consent(), expires_at: Math.floor(Date.now() / 1000) - 5 };
    server.expireRefreshToken(tokens.refresh_token!);
    const onConsentEnded = vi.fn();
    const session = ob.forCustomer(tokens, { onConsentEnded });
    const before = server.requests.count();
    const error = await session.customers.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsentEndedError);
    expect((error as Ended).scopes).toEqual(SCOPES);
    expect(server.requests.list().slice(before).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['POST /oauth/token 400']);
    expect(onConsentEnded).toHaveBeenCalledTimes(1);
  });

  it('a handler that throws changes nothing, and a set without scope ends with scopes undefined', async () => {
    const { ob } = clientFor(server, APP);
    const { scope: _scope, ...tokens } = { ...consent(), expires_at: Math.floor(Date.now() / 1000) - 5 };
    server.revokeConsent(tokens.refresh_token!);
    const session = ob.forCustomer(tokens, {
      onConsentEnded: () => {
        throw new Error('the app failed');
      },
    });
    const error = (await session.customers.retrieve().catch((e: unknown) => e)) as Ended;
    expect(error).toBeInstanceOf(ConsentEndedError);
    expect(error.scopes).toBeUndefined();
    expect(session.consent).toMatchObject({ state: 'ended', scopes: undefined });
  });

  it('other refusals of the refresh stay OAuthError, and never end the consent', async () => {
    const { ob } = clientFor(server, APP);
    const other = clientFor(server, { clientId: 'consent-app', clientSecret: 'wrong-secret' }).ob;
    const tokens = { ...consent(), expires_at: Math.floor(Date.now() / 1000) - 5 };
    const onConsentEnded = vi.fn();
    const session = other.forCustomer(tokens, { onConsentEnded });
    const error = await session.customers.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).not.toBeInstanceOf(ConsentEndedError);
    expect(session.consent.state).toBe('active');
    expect(onConsentEnded).not.toHaveBeenCalled();
    void ob;
  });

  it('a bad onConsentEnded option makes every call reject with ValidationError', async () => {
    const { ob } = clientFor(server, APP);
    const session = ob.forCustomer(consent(), { onConsentEnded: 'nope' as never });
    await expect(session.accounts.list()).rejects.toMatchObject({ name: 'ValidationError', issues: [{ path: 'options.onConsentEnded' }] });
  });
});
