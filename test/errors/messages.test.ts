import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConnectionError, ConsentEndedError, NotFoundError, OAuthError, OpenBanking } from '../../src/index.js';
import { createSandbox } from '../../src/testing.js';

// Error messages that point the right way: each says what is known, and where to look.

const app = { clientId: 'msg-app', clientSecret: 'msg-secret' };
const card = { account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE' as const, card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } };

function setup(baseUrl?: string) {
  const sandbox = createSandbox({ clients: [app] });
  const ob = new OpenBanking({ ...app, baseUrl: baseUrl ?? sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logLevel: 'off' });
  return { sandbox, ob };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: Error) => error,
  );
}

describe('a refresh token the identity host refuses', () => {
  it('a revoked consent says it was revoked, not that refresh tokens rotate', async () => {
    const { sandbox, ob } = setup();
    const tokens = sandbox.issueTokens({ clientId: app.clientId, scope: 'accounts.list.readonly', kind: 'customer', expiresIn: 1 });
    sandbox.revokeConsent(tokens.refresh_token!);
    const error = await rejection(ob.forCustomer(tokens).accounts.list());
    expect(error).toBeInstanceOf(ConsentEndedError);
    expect(error.message).toMatch(/^invalid_grant: The refresh token was revoked with the consent it belongs to \(the customer's consent has ended: ask the customer to consent again for accounts.list.readonly/);
    expect(error.message).not.toMatch(/rotate/);
  });

  it('an expired refresh token says it expired; a replayed one that refresh tokens rotate', async () => {
    const { sandbox, ob } = setup();
    const expired = sandbox.issueTokens({ clientId: app.clientId, scope: 'accounts', kind: 'customer' });
    sandbox.expireRefreshToken(expired.refresh_token!);
    const late = await rejection(ob.auth.refresh(expired.refresh_token!));
    expect([late.constructor, late.message]).toEqual([OAuthError, 'invalid_grant: The refresh token has expired']);

    const used = sandbox.issueTokens({ clientId: app.clientId, scope: 'accounts', kind: 'customer' });
    await ob.auth.refresh(used.refresh_token!);
    const replayed = await rejection(ob.auth.refresh(used.refresh_token!));
    expect(replayed.message).toBe('invalid_grant: The refresh token was already used (refresh tokens rotate: each one works once)');
  });
});

describe('a 404 from the API', () => {
  it('with a baseUrl that lacks /openapi/v1, hints that the prefix may be missing', async () => {
    const { ob } = setup('https://api.openbanking-ng.test');
    const error = await rejection(ob.cards.create(card));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe(
      "No route for POST /cards (the baseUrl https://api.openbanking-ng.test has no /openapi/v1 in its path: the API's paths sit under that prefix, so it may be missing)",
    );
    expect((error as NotFoundError).status).toBe(404);
  });

  it('with the prefix in place, is the service’s message alone', async () => {
    const { ob } = setup();
    const error = await rejection(ob.request({ method: 'GET', path: '/no-such-thing' }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('No route for GET /openapi/v1/no-such-thing');
  });
});

describe('an identity host that refuses connections', () => {
  it('fails the token request with a ConnectionError saying it is sent once and why', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const sandbox = createSandbox({ clients: [app] });
    const ob = new OpenBanking({ ...app, baseUrl: sandbox.baseUrl, authUrl: `http://127.0.0.1:${port}`, logLevel: 'off' });
    const error = await rejection(ob.cards.create(card));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/could not get a complete answer from the identity host \(.*\) \(requests to the identity host are sent once, never retried: a grant that reached it may have spent a refresh token or an authorization code\)$/);
    expect(sandbox.requests.count({ path: '/openapi/v1/cards' })).toBe(0);
  });
});
