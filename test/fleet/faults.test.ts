import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryFleetStore, MemoryTokenStore, OpenBanking } from '../../src/index.js';
import { redisFleet } from '../../src/redis.js';
import { createSandbox } from '../../src/testing.js';
import { storeSealer } from '../../src/crypto/seal.js';
import { validCard } from '../support/cards.js';
import { startRedis, type TestRedis } from './support.js';
import { thrownIssues as issues } from '../support/thrown.js';

const card = () => validCard();

/** A client on the sandbox (in process) whose warn and info lines are kept. */
function fleetClient(fleet: Parameters<typeof redisFleet>[0], prefix: string) {
  const sandbox = createSandbox({ clients: [{ clientId: 'app', clientSecret: 'app-secret' }] });
  const lines: { level: string; message: string }[] = [];
  const keep = (level: string) => (message: string) => void lines.push({ level, message });
  const ob = new OpenBanking({
    clientId: 'app',
    clientSecret: 'app-secret',
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    fetch: sandbox,
    fleet: redisFleet(fleet, { prefix }),
    rateLimit: { rate: 6_000, burst: 100 },
    logger: { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') },
    logLevel: 'info',
  });
  return { ob, sandbox, lines, warns: () => lines.filter((l) => l.level === 'warn') };
}

describe.each(['redis', 'ioredis'] as const)('Redis faults (%s): calls go on, one warn per outage, coordination resumes', (kind) => {
  let redis: TestRedis;
  let client: Parameters<typeof redisFleet>[0];
  let close: () => Promise<void>;

  beforeAll(async () => {
    redis = await startRedis();
    if (kind === 'redis') {
      const c = createClient({ url: redis.url, socket: { reconnectStrategy: () => 50 } });
      c.on('error', () => undefined);
      await c.connect();
      client = c;
      close = async () => void (await c.quit().catch(() => undefined));
    } else {
      const c = new IORedis({ port: redis.port, host: '127.0.0.1', retryStrategy: () => 50, maxRetriesPerRequest: 1 });
      c.on('error', () => undefined);
      await new Promise<void>((resolve) => c.once('ready', () => resolve()));
      client = c;
      close = async () => c.disconnect();
    }
  }, 20_000);
  afterAll(async () => {
    await close?.();
    await redis?.stop();
  });

  const keys = async (pattern: string) => {
    const probe = await createClient({ url: redis.url }).connect();
    try {
      return await probe.keys(pattern);
    } finally {
      await probe.quit();
    }
  };

  it('Redis stopped mid-run and restarted: no call fails, one warn line for the outage, keys written again once it is back', async () => {
    const prefix = `down-${kind}`;
    const { ob, sandbox, warns, lines } = fleetClient(client, prefix);
    for (let i = 0; i < 3; i++) await ob.cards.create(card());
    expect(await keys(`${prefix}:*`)).toEqual(expect.arrayContaining([`${prefix}:openbanking-ng:app:rate`, `${prefix}:openbanking-ng:app:cards.create`]));
    expect(warns()).toHaveLength(0);

    await redis.stop();
    for (let i = 0; i < 10; i++) await ob.cards.create(card());
    expect(warns()).toHaveLength(1);
    expect(warns()[0]!.message).toMatch(/shared store failed .*coordination inside this process/);

    await redis.start(); // empty: no persistence
    // The link tries the store again at most once a second (of real time), on a call: keep calling,
    // every call succeeding meanwhile, until one of them finds it back.
    const resumed = () => lines.filter((l) => l.level === 'info' && /resumed/.test(l.message));
    let calls = 0;
    await vi.waitFor(
      async () => {
        calls++;
        await ob.cards.create(card());
        expect(resumed()).toHaveLength(1);
      },
      { timeout: 6_000, interval: 100 },
    );
    expect(sandbox.cards()).toHaveLength(13 + calls);
    // Coordinating through Redis again: the next call's budget is taken from the restarted (empty)
    // server. (Its token, still valid, stays in this process: nothing asks for a new one.)
    const admin = await createClient({ url: redis.url }).connect();
    await admin.flushAll();
    await admin.quit();
    await ob.cards.create(card());
    expect(await keys(`${prefix}:*`)).toEqual([`${prefix}:openbanking-ng:app:rate`]);
    expect(warns()).toHaveLength(1); // one line for the whole outage, not one per call
    expect(sandbox.cards().length).toBeGreaterThanOrEqual(15);
  }, 30_000);

  it('Redis slow (paused longer than 250 ms): the call goes on without waiting for it, with one warn line', async () => {
    const prefix = `slow-${kind}`;
    const { ob, sandbox, warns } = fleetClient(client, prefix);
    await ob.cards.create(card());
    const admin = await createClient({ url: redis.url }).connect();
    try {
      await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL']);
      await ob.cards.create(card());
      await ob.cards.create(card());
    } finally {
      await admin.quit().catch(() => undefined);
    }
    expect(sandbox.cards()).toHaveLength(3);
    expect(warns()).toHaveLength(1);
    expect(warns()[0]!.message).toMatch(/no answer within 250 ms/);
  }, 20_000);

  it('printing the client and the fleet shows no token', async () => {
    const { ob } = fleetClient(client, `print-${kind}`);
    await ob.cards.create(card());
    const stored = await keys(`print-${kind}:openbanking-ng:app:cards.create`);
    expect(stored).toHaveLength(1);
    const { inspect } = await import('node:util');
    const probe = await createClient({ url: redis.url }).connect();
    const raw = (await probe.get(stored[0]!))!;
    await probe.quit();
    // Sealed in Redis: only the client secret opens it.
    const token = (JSON.parse((await storeSealer('app-secret').open(stored[0]!.slice(`print-${kind}:`.length), raw))!) as { access_token: string }).access_token;
    expect(raw).not.toContain(token);
    for (const text of [inspect(ob, { depth: 10, showHidden: true }), JSON.stringify(ob), String(ob), inspect(redisFleet(client), { depth: 10 })]) {
      expect(text).not.toContain(token);
    }
  });
});

describe('bad fleet input fails with ValidationError before anything is sent', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  }, 20_000);
  afterAll(() => redis?.stop());

  it('redisFleet given something that is not a Redis client', () => {
    for (const bad of [undefined, null, 'redis://127.0.0.1', {}, { get() {}, set() {} }, new MemoryFleetStore()]) {
      expect(issues(() => redisFleet(bad as never, { prefix: 'app' }))).toEqual([expect.objectContaining({ path: 'client', code: 'invalid_type' })]);
    }
  });

  it('redisFleet given a client that is not connected (node-redis before connect, ioredis with lazyConnect, both after quit)', async () => {
    const nodeRedis = createClient({ url: redis.url });
    expect(issues(() => redisFleet(nodeRedis, { prefix: 'app' }))).toEqual([expect.objectContaining({ path: 'client', code: 'not_connected' })]);
    const lazy = new IORedis({ port: redis.port, lazyConnect: true });
    expect(issues(() => redisFleet(lazy, { prefix: 'app' }))).toEqual([expect.objectContaining({ path: 'client', code: 'not_connected' })]);
    const io = new IORedis({ port: redis.port });
    await new Promise<void>((resolve) => io.once('ready', () => resolve()));
    await io.quit();
    await vi.waitFor(() => expect(io.status).toBe('end'), { timeout: 2_000, interval: 5 });
    expect(issues(() => redisFleet(io, { prefix: 'app' }))).toEqual([expect.objectContaining({ path: 'client', code: 'not_connected' })]);
    const connected = await createClient({ url: redis.url }).connect();
    await connected.quit();
    expect(issues(() => redisFleet(connected, { prefix: 'app' }))).toEqual([expect.objectContaining({ path: 'client', code: 'not_connected' })]);
  });

  it('redisFleet given a prefix with spaces', async () => {
    const c = await createClient({ url: redis.url }).connect();
    try {
      for (const prefix of ['my app', ' app', 'app\n', '', 42]) {
        expect(issues(() => redisFleet(c, { prefix: prefix as string }))).toEqual([expect.objectContaining({ path: 'options.prefix', code: 'invalid_format' })]);
      }
      expect(() => redisFleet(c, { prefix: 'my-app:v1' })).not.toThrow();
    } finally {
      await c.quit();
    }
  });

  it('tokenStore and fleet together, or a fleet that is not a FleetStore, in the constructor', () => {
    const base = { clientId: 'app', clientSecret: 'secret' };
    expect(issues(() => new OpenBanking({ ...base, fleet: new MemoryFleetStore(), tokenStore: new MemoryTokenStore() }))).toEqual([
      expect.objectContaining({ path: 'fleet', code: 'conflict' }),
    ]);
    expect(issues(() => new OpenBanking({ ...base, fleet: { get: () => Promise.resolve(undefined) } as never }))).toEqual([expect.objectContaining({ path: 'fleet', code: 'invalid_type' })]);
  });

  it('a customer id that is not a visible string makes the session reject with ValidationError, nothing sent', async () => {
    const sandbox = createSandbox({ clients: [{ clientId: 'app', clientSecret: 'app-secret' }] });
    const ob = new OpenBanking({ clientId: 'app', clientSecret: 'app-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, fleet: new MemoryFleetStore() });
    const session = ob.forCustomer({ access_token: 'a', token_type: 'Bearer', expires_in: 3600 }, { id: 'customer 42' });
    await expect(session.customers.retrieve()).rejects.toMatchObject({ name: 'ValidationError', issues: [expect.objectContaining({ path: 'options.id' })] });
    expect(sandbox.requests.count()).toBe(0);
  });
});
