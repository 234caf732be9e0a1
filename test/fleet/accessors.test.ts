import { describe, expect, it } from 'vitest';
import { MemoryFleetStore, OpenBanking } from '../../src/index.js';
import { createSandbox } from '../../src/testing.js';

// What code built on a client (openbanking-ng/mcp) reads of it: the fleet store it was given, and a
// customer session's id, the two that name shared state across the processes of a fleet.
function setup(extra: Partial<ConstructorParameters<typeof OpenBanking>[0]> = {}) {
  const sandbox = createSandbox({ clients: [{ clientId: 'app', clientSecret: 'app-secret' }] });
  const ob = new OpenBanking({ clientId: 'app', clientSecret: 'app-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logLevel: 'off', ...extra });
  return { sandbox, ob };
}

describe('ob.fleet and session.id', () => {
  it('ob.fleet is the store given as the fleet option, undefined without one', () => {
    const fleet = new MemoryFleetStore();
    expect(setup({ fleet }).ob.fleet).toBe(fleet);
    expect(setup().ob.fleet).toBeUndefined();
  });

  it('a value written to ob.fleet is seen by another client on the same store', async () => {
    const fleet = new MemoryFleetStore();
    await setup({ fleet }).ob.fleet!.set('k', 'v', 1_000);
    expect(await setup({ fleet }).ob.fleet!.get('k')).toBe('v');
  });

  it('session.id is the id given to forCustomer, undefined without one, and calls go on as before', async () => {
    const { sandbox, ob } = setup();
    const tokens = sandbox.issueTokens({ clientId: 'app', scope: ['customers.readonly'], kind: 'customer' });
    const session = ob.forCustomer(tokens, { id: 'customer-42' });
    expect(session.id).toBe('customer-42');
    expect(ob.forCustomer(tokens).id).toBeUndefined();
    await expect(session.customers.retrieve()).resolves.toMatchObject({ customer_id: expect.any(String) });
  });
});
