import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { createManualClock, createSandbox, SANDBOX_DEFAULT_URLS, type SandboxRequestRecord } from '../../src/testing.js';
import { clientFor, validCard } from './support.js';

const app = { clientId: 'app', clientSecret: 'app-secret' };

describe('determinism', () => {
  async function run(seed: string) {
    const clock = createManualClock();
    const sandbox = createSandbox({ seed, now: clock.now, clients: [app] });
    sandbox.faults.inject({ path: '/openapi/v1/cards', times: Infinity, probability: 0.5, fault: { type: 'status', status: 503 } });
    const { ob } = clientFor(sandbox, app, { fetch: sandbox, maxRetries: 20, now: clock.now });
    const cards = [];
    for (let i = 0; i < 5; i++) cards.push(await ob.cards.create(validCard(), { idempotencyKey: `key-${i}` }));
    const registered = sandbox.registerClient();
    return { cards, statuses: sandbox.requests.list().map((r) => r.status), registered, at: sandbox.requests.list().map((r) => r.at) };
  }

  it('the same seed and clock give the same identifiers, secrets and fault decisions', async () => {
    const [a, b] = [await run('seed-1'), await run('seed-1')];
    expect(a).toEqual(b);
    const c = await run('seed-2');
    expect(c.cards.map((x) => x.card_id)).not.toEqual(a.cards.map((x) => x.card_id));
  });
});

describe('controls', () => {
  it('counts requests per path and method, and logs no secrets', async () => {
    const seen: SandboxRequestRecord[] = [];
    const sandbox = createSandbox({ clients: [app], onRequest: (r) => seen.push(r) });
    const { ob } = clientFor(sandbox, app, { fetch: sandbox });
    await ob.cards.create(validCard());
    await ob.cards.create(validCard());
    await ob.cards.list();
    expect(sandbox.requests.count()).toBe(5);
    expect(sandbox.requests.count('/openapi/v1/cards')).toBe(3);
    expect(sandbox.requests.count({ path: '/openapi/v1/cards', method: 'get' })).toBe(1);
    expect(sandbox.requests.count(/token$/)).toBe(2);
    expect(seen).toEqual(sandbox.requests.list());
    expect(JSON.stringify(seen)).not.toContain(app.clientSecret);
    sandbox.requests.clear();
    expect(sandbox.requests.count()).toBe(0);
  });

  it('reset forgets cards, tokens and registered clients, keeps the clients from the options', async () => {
    const sandbox = createSandbox({ clients: [app] });
    const extra = sandbox.registerClient({ clientId: 'extra', clientSecret: 's' });
    const { ob } = clientFor(sandbox, app, { fetch: sandbox });
    await ob.cards.create(validCard());
    sandbox.faults.inject({ path: '/x', times: Infinity, fault: { type: 'drop' } });
    sandbox.reset();
    expect(sandbox.cards()).toEqual([]);
    expect(sandbox.requests.count()).toBe(0);
    expect(sandbox.faults.injected).toBe(0);
    expect(() => sandbox.issueTokens({ clientId: extra.clientId, scope: 'cards.list' })).toThrow(/unknown clientId/);
    // The cached token died with the reset: the SDK gets a 401, renews it once, and succeeds.
    await ob.cards.create(validCard());
    expect(sandbox.requests.list().map((r) => `${r.path} ${r.status}`)).toEqual(['/openapi/v1/cards 401', '/oauth2/token 200', '/openapi/v1/cards 201']);
  });

  it('registerClient, approveRegistration and issueTokens refuse what does not exist', () => {
    const sandbox = createSandbox({ clients: [app] });
    expect(() => sandbox.registerClient({ clientId: 'app' })).toThrow(/already/);
    expect(() => sandbox.approveRegistration('nobody')).toThrow(/No registration/);
    expect(() => sandbox.issueTokens({ clientId: 'app', scope: 'cards.teleport' })).toThrow(/unknown scope/);
    expect(() => sandbox.approveDeviceCode('NOPE1')).toThrow(/no device authorization/);
    const generated = sandbox.registerClient({ name: 'Generated' });
    expect(generated).toMatchObject({ name: 'Generated', redirectUris: [], clientId: expect.stringMatching(/^sbx_client_/) });
  });

  it('consent rejects an authorization request that would not be redirected', async () => {
    const sandbox = createSandbox({ clients: [{ ...app, redirectUris: ['https://a.example/cb'] }] });
    await expect(sandbox.consent(`${sandbox.authUrl}/oauth/authorize?client_id=nobody`)).rejects.toThrow(/invalid_client/);
  });

  it('defaults to reserved .test hosts', () => {
    const sandbox = createSandbox();
    expect(sandbox.baseUrl).toBe(SANDBOX_DEFAULT_URLS.baseUrl);
    expect(sandbox.authUrl).toBe(SANDBOX_DEFAULT_URLS.authUrl);
    expect(sandbox.environment).toBe('sandbox');
  });

  it('lists every bad option in one ValidationError', () => {
    let error: unknown;
    try {
      createSandbox({
        environment: 'staging' as never,
        baseUrl: 'ftp://x',
        signatureEncodings: ['hex', 'base32' as never],
        rateLimits: { rate: 0, burst: 1.5 },
        tokenLifetime: -1,
        clients: [{ clientId: 'a', clientSecret: '' }, { clientId: 'a', clientSecret: 'b', username: 'u' }],
        colour: 'blue',
      } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path).sort()).toEqual(
      ['baseUrl', 'clients.0.clientSecret', 'clients.1', 'clients.1.clientId', 'colour', 'environment', 'rateLimits.burst', 'rateLimits.rate', 'signatureEncodings', 'tokenLifetime'].sort(),
    );
  });

  it('a manual clock only moves when told to, and its sleep advances it', async () => {
    const clock = createManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    await clock.sleep(500);
    clock.advance(250);
    expect(clock.now()).toBe(1_750);
    clock.set(0);
    expect(clock.now()).toBe(0);
    expect(() => clock.advance(-1)).toThrow(TypeError);
    await expect(clock.sleep(1, AbortSignal.abort())).rejects.toBeDefined();
  });
});
