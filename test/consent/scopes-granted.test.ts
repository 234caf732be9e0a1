import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError, type TokenSet } from '../../src/index.js';
import { startSandboxServer, type SandboxServer } from '../../src/testing.js';
import { clientFor } from '../sandbox/support.js';
import { AUTH, BASE, http, HttpResponse, testClient, useMsw } from '../support/msw.js';

// A typed operation whose scopes the customer's consent does not grant is refused before sending.

const APP = { clientId: 'scopes-app', clientSecret: 'scopes-secret-1' };
const later = () => Math.floor(Date.now() / 1000) + 3600;
const transfer = { amount: 5_000, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '01234567890' };

let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer({ seed: 'scopes', clients: [APP] });
});
afterAll(() => server.close());

function tokens(scope: string[]): TokenSet {
  return { ...server.issueTokens({ clientId: APP.clientId, scope, kind: 'customer' }), expires_at: later() };
}

describe('scopes granted, checked before sending', () => {
  it('a token whose scope lacks transfers.transactions.create: transfers.create rejects with scope_not_granted and sends nothing', async () => {
    const { ob } = clientFor(server, APP);
    const session = ob.forCustomer(tokens(['accounts.list.readonly', 'transfers.transactions.query']));
    const before = server.requests.count();
    const error = await session.transfers.create(transfer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const [issue] = (error as ValidationError).issues;
    expect(issue!.code).toBe('scope_not_granted');
    expect(issue!.message).toContain('transfers.create');
    expect(issue!.message).toContain('transfers.transactions.create');
    expect(issue!.message).toMatch(/consent request/);
    expect(server.requests.count()).toBe(before);
    expect(server.payments()).toHaveLength(0);
    expect(session.consent.scopes).toEqual(['accounts.list.readonly', 'transfers.transactions.query']);
  });

  it('with operationScopes overriding transfers.create to [] it is sent', async () => {
    const { ob } = clientFor(server, APP, { operationScopes: { 'transfers.create': [] } });
    const session = ob.forCustomer(tokens(['accounts.list.readonly']));
    const before = server.requests.count({ path: '/openapi/v1/transactions/transfer' });
    // The sandbox checks the real scope itself: the request is sent and refused there (403).
    await expect(session.transfers.create(transfer)).rejects.toMatchObject({ name: 'PermissionDeniedError', status: 403 });
    expect(server.requests.count({ path: '/openapi/v1/transactions/transfer' })).toBe(before + 1);
  });

  it('a token set without scope is not checked, and an operation with every scope granted is sent', async () => {
    const { ob } = clientFor(server, APP);
    const { scope: _scope, ...bare } = tokens(['transfers.transactions.create']);
    const unchecked = ob.forCustomer(bare);
    expect(unchecked.consent.scopes).toBeUndefined();
    await expect(unchecked.transfers.create(transfer)).resolves.toMatchObject({ batch_reference: expect.any(String) });
    const granted = ob.forCustomer(tokens(['transfers.transactions.create']));
    await expect(granted.transfers.create(transfer)).resolves.toMatchObject({ batch_reference: expect.any(String) });
  });

  it('operations sent with client credentials on a session are not checked against the customer scope', async () => {
    const { ob } = clientFor(server, APP);
    const session = ob.forCustomer(tokens(['accounts.list.readonly']));
    const before = server.requests.count({ path: '/openapi/v1/bills/categories' });
    await expect(session.bills.categories.list()).resolves.toBeDefined();
    expect(server.requests.count({ path: '/openapi/v1/bills/categories' })).toBe(before + 1);
  });
});

describe('scopes granted, after a refresh that names none (msw)', () => {
  const msw = useMsw();

  it('a refresh answer without scope grants what was granted before (RFC 6749 §5.1): consent.scopes, the check and onTokens keep it', async () => {
    const grants: URLSearchParams[] = [];
    const sent: string[] = [];
    msw.use(
      http.post(`${AUTH}/oauth/token`, async ({ request }) => {
        grants.push(new URLSearchParams(await request.text()));
        return HttpResponse.json({ access_token: 'access-2', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-2' });
      }),
      http.get(`${BASE}/accounts`, ({ request }) => {
        sent.push(request.headers.get('authorization')!);
        return HttpResponse.json({ status: '00', message: 'ok', data: { accounts: [] } });
      }),
    );
    const { ob } = testClient();
    const saved: TokenSet[] = [];
    const session = ob.forCustomer(
      { access_token: 'access-1', token_type: 'Bearer', expires_in: 3600, expires_at: Math.floor(Date.now() / 1000) - 5, refresh_token: 'refresh-1', scope: 'accounts.list.readonly' },
      { onTokens: (t) => void saved.push(t) },
    );
    await session.accounts.list();
    expect(grants).toHaveLength(1);
    expect(sent).toEqual(['Bearer access-2']);
    expect(session.consent).toEqual({ state: 'active', scopes: ['accounts.list.readonly'], accessExpiresAt: session.tokens.expires_at });
    expect(saved.map((t) => t.scope)).toEqual(['accounts.list.readonly']);
    // Still checked: transfers.create was not granted, and is refused unsent.
    const error = await session.transfers.create(transfer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]).toMatchObject({ code: 'scope_not_granted' });
  });
});
