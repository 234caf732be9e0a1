import { describe, expect, it } from 'vitest';
import { OpenBanking } from '../../src/index.js';
import { createManualClock, createSandbox } from '../../src/testing.js';

// The sandbox's own controls for consent and money movement, seen through the token endpoint and
// the transfer status a client reads.

const APP = { clientId: 'ctl-app', clientSecret: 'ctl-secret-1' };
const transfer = { amount: 1_000, source_account_number: '0123456789', destination_bank_code: '000007', destination_account_number: '01234567890' };

function setup() {
  const clock = createManualClock();
  const sandbox = createSandbox({ clients: [APP], now: clock.now });
  const ob = new OpenBanking({ ...APP, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, now: clock.now, sleep: clock.sleep, logLevel: 'off' });
  const tokens = () => sandbox.issueTokens({ clientId: APP.clientId, scope: ['transfers.transactions.create', 'transfers.transactions.query', 'customers.readonly'], kind: 'customer' });
  const session = (t = tokens()) => ob.forCustomer({ ...t, expires_at: Math.floor(clock.now() / 1000) + 3600 });
  return { clock, sandbox, ob, tokens, session };
}

describe('sandbox consent controls', () => {
  it('revokeConsent: the access token answers 401 and the refresh token invalid_grant; any token of the consent names it', async () => {
    const { sandbox, ob, tokens, session } = setup();
    const t = tokens();
    const s = session(t);
    await s.customers.retrieve();
    sandbox.revokeConsent(t.access_token);
    await expect(ob.auth.refresh(t.refresh_token!)).rejects.toMatchObject({ name: 'OAuthError', error: 'invalid_grant' });
    const records = sandbox.requests.list();
    await expect(s.customers.retrieve()).rejects.toMatchObject({ name: 'ConsentEndedError' });
    expect(sandbox.requests.list().slice(records.length).map((r) => `${r.path} ${r.status}`)).toEqual(['/openapi/v1/customers 401', '/oauth/token 400']);
    expect(() => sandbox.revokeConsent('no-such-token')).toThrow(/no customer consent/);
  });

  it('expireRefreshToken: the refresh answers invalid_grant while the access token still works', async () => {
    const { sandbox, ob, tokens, session } = setup();
    const t = tokens();
    sandbox.expireRefreshToken(t.refresh_token!);
    await expect(session(t).customers.retrieve()).resolves.toBeDefined();
    await expect(ob.auth.refresh(t.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(() => sandbox.expireRefreshToken(t.refresh_token!)).toThrow(/no live refresh token/);
  });

  it('settleTransfers: by reads or by sandbox time, SUCCESSFUL or FAILED, for one transfer or the next ones; reset restores the default', async () => {
    const { clock, sandbox, session } = setup();
    const s = session();
    const reads = async (batch: string | number, n: number) => {
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push((await s.transfers.retrieve(batch)).status);
      return out;
    };
    const a = (await s.transfers.create(transfer)).batch_reference!;
    expect(await reads(a, 2)).toEqual(['PENDING', 'SUCCESSFUL']);

    sandbox.settleTransfers({ pendingReads: 2, result: 'FAILED' });
    const b = (await s.transfers.create(transfer)).batch_reference!;
    expect(await reads(b, 3)).toEqual(['PENDING', 'PENDING', 'FAILED']);

    sandbox.settleTransfers({ pendingReads: 0, pendingMs: 10_000 }, String(b));
    const c = (await s.transfers.create(transfer)).batch_reference!;
    sandbox.settleTransfers({ pendingReads: 0, pendingMs: 10_000, result: 'SUCCESSFUL' }, String(c));
    expect(await reads(c, 1)).toEqual(['PENDING']);
    clock.advance(10_000);
    expect(await reads(c, 1)).toEqual(['SUCCESSFUL']);

    expect(() => sandbox.settleTransfers({ pendingReads: -1 })).toThrow(TypeError);
    expect(() => sandbox.settleTransfers({ result: 'LOST' as never })).toThrow(TypeError);
    expect(() => sandbox.settleTransfers({}, 'BATCH-NONE')).toThrow(/no transfer/);

    sandbox.reset();
    const fresh = session();
    const d = (await fresh.transfers.create(transfer)).batch_reference!;
    expect([(await fresh.transfers.retrieve(d)).status, (await fresh.transfers.retrieve(d)).status]).toEqual(['PENDING', 'SUCCESSFUL']);
  });
});
