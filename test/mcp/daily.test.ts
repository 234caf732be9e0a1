import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryFleetStore } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp.js';
import { redisFleet } from '../../src/redis.js';
import { startRedis, type TestRedis } from '../fleet/support.js';
import { type Agent, ALL_SCOPES, APP, apiCalls, bank, LINES, textOf, TRANSFER, v1, v2 } from './support.js';

// DESIGN "Agents", row "limits": the day is the Lagos calendar day; what was sent counts per
// customer session id (else per server), in the fleet store when the client has one.
const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('the day and whose day it is', () => {
  it('the day is the calendar day in Lagos (UTC+1): 23:00 UTC starts the next one', async () => {
    let now = at('2026-11-26T22:30:00Z'); // 23:30 in Lagos
    const { sandbox, ob, session } = bank();
    const agent = await v2(createMcpServer(ob, { customer: session, allow: ['transfers.create'], limits: { perCall: 10_000, perDay: 10_000 }, ledger: 'memory', now: () => now }));
    expect((await agent.call('transfers_create', { ...TRANSFER, amount: 10_000 })).isError).toBeFalsy();
    const refused = await agent.call('transfers_create', { ...TRANSFER, amount: 1 });
    expect(textOf(refused)).toMatch(/2026-11-26 \(Lagos\).*perDay/);
    now += HOUR / 2; // 00:00 in Lagos, still 26 November in UTC
    expect((await agent.call('transfers_create', { ...TRANSFER, amount: 10_000 })).isError).toBeFalsy();
    expect(sandbox.payments()).toHaveLength(2);
    await agent.close();
  });

  it('per customer session id: two servers for the same id share the day, another id has its own', async () => {
    const { sandbox, ob, tokens } = bank();
    const limits = { perCall: 10_000, perDay: 10_000 };
    const server = (id: string) => createMcpServer(ob, { customer: ob.forCustomer(tokens, { id }), allow: ['transfers.create'], limits, ledger: 'memory' });
    const [a, b, other] = await Promise.all([v2(server('customer-1')), v1(server('customer-1')), v2(server('customer-2'))]);
    expect((await a.call('transfers_create', { ...TRANSFER, amount: 6_000 })).isError).toBeFalsy();
    expect(textOf(await b.call('transfers_create', { ...TRANSFER, amount: 6_000 }))).toMatch(/perDay/);
    expect((await other.call('transfers_create', { ...TRANSFER, amount: 10_000 })).isError).toBeFalsy();
    expect(sandbox.payments().map((p) => p.amount)).toEqual([6_000, 10_000]);
    await Promise.all([a.close(), b.close(), other.close()]);
  });

  it('a call refused without being sent (the consent lacks the scope) gives its amount back', async () => {
    const { sandbox, ob } = bank();
    const narrow = sandbox.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES.filter((s) => s !== 'transfers.transactions.create'), kind: 'customer' });
    const wide = sandbox.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' });
    const limits = { perCall: 10_000, perDay: 10_000 };
    const refused = await v2(createMcpServer(ob, { customer: ob.forCustomer(narrow, { id: 'c' }), allow: ['transfers.create'], limits, ledger: 'memory' }));
    expect(textOf(await refused.call('transfers_create', { ...TRANSFER, amount: 10_000, idempotency_key: 'k-1' }))).toMatch(/^ValidationError: .*transfers\.transactions\.create/);
    expect(apiCalls(sandbox)).toBe(0);
    const allowed = await v2(createMcpServer(ob, { customer: ob.forCustomer(wide, { id: 'c' }), allow: ['transfers.create'], limits, ledger: 'memory' }));
    // The whole day is still there, and the key was never used.
    expect((await allowed.call('transfers_create', { ...TRANSFER, amount: 10_000, idempotency_key: 'k-1' })).isError).toBeFalsy();
    expect(sandbox.payments()).toHaveLength(1);
    await Promise.all([refused.close(), allowed.close()]);
  });

  it('calls at once cannot pass the day together: of two that each fit, only one is sent', async () => {
    const { sandbox, ob, session } = bank();
    const agent = await v2(createMcpServer(ob, { customer: session, allow: ['transfers.create'], limits: { perCall: 10_000, perDay: 10_000 }, ledger: 'memory' }));
    const results = await Promise.all([agent.call('transfers_create', { ...TRANSFER, amount: 6_000 }), agent.call('transfers_create', { ...TRANSFER, amount: 6_000 })]);
    expect(results.filter((r) => r.isError).map(textOf)).toEqual([expect.stringMatching(/perDay/)]);
    expect(sandbox.payments()).toHaveLength(1);
    await agent.close();
  });
});

describe('the other money tools: each asks, each counts', () => {
  it('bills.pay, directDebits.charge and accounts.holds.create are confirmed, and share the day with transfers', async () => {
    const { sandbox, ob, session } = bank();
    const agent = await v2(createMcpServer(ob, { customer: session, allow: ['bills.pay', 'directDebits.charge', 'accounts.holds.create', 'transfers.create'], limits: { perCall: 20_000, perDay: 30_000 }, ledger: 'memory' }));
    const bill = await agent.call('bills_pay', { category_id: 3, biller_id: 'DSTV', bill_reference: '7012345678', amount: 12_500, source_account_number: '0123456789', payer_info: { name: 'Ada Obi' } });
    expect(bill.isError, textOf(bill)).toBeFalsy();
    expect(agent.asked.at(-1)).toMatch(/12500 NGN[\s\S]*account "0123456789"[\s\S]*biller "DSTV"/);
    const charge = await agent.call('directDebits_charge', { mandate_id: 'MAN000000001', amount: 15_000, narration: 'June membership' });
    expect(charge.isError, textOf(charge)).toBeFalsy();
    expect(agent.asked.at(-1)).toMatch(/15000 NGN[\s\S]*mandate "MAN000000001"[\s\S]*June membership/);
    const hold = await agent.call('accounts_holds_create', { account_number: '0123456789', reference: 'HOLD-1', amount: 2_500, narration: 'Deposit', hold_start_timestamp: '2026-11-26', hold_end_timestamp: '2026-12-26', status: 'ACTIVE' });
    expect(hold.isError, textOf(hold)).toBeFalsy();
    expect(agent.asked).toHaveLength(3);
    // 12 500 + 15 000 + 2 500 = 30 000: the day is full.
    expect(textOf(await agent.call('transfers_create', { ...TRANSFER, amount: 1 }))).toMatch(/perDay/);
    expect(sandbox.payments()).toHaveLength(2);
    await agent.close();
  });
});

describe('in the fleet store: the processes of a fleet share one day', () => {
  it('two servers on two clients over one MemoryFleetStore', async () => {
    const { sandbox, client, tokens } = bank();
    const fleet = new MemoryFleetStore();
    const limits = { perCall: 10_000, perDay: 10_000 };
    const server = () => {
      const ob = client({ fleet });
      return createMcpServer(ob, { customer: ob.forCustomer(tokens, { id: 'customer-42' }), allow: ['transfers.create'], limits });
    };
    const [a, b] = await Promise.all([v2(server()), v1(server())]);
    expect((await a.call('transfers_create', { ...TRANSFER, amount: 7_000, idempotency_key: 'fleet-1' })).isError).toBeFalsy();
    expect(textOf(await b.call('transfers_create', { ...TRANSFER, amount: 7_000 }))).toMatch(/perDay.*7000 NGN already sent/);
    // The key is known to the fleet: the other server replays it without counting or asking.
    const replay = await b.call('transfers_create', { ...TRANSFER, amount: 7_000, idempotency_key: 'fleet-1' });
    expect(replay.isError).toBeFalsy();
    expect(b.asked).toHaveLength(0);
    expect(sandbox.payments()).toHaveLength(1);
    await Promise.all([a.close(), b.close()]);
  });

  describe('over a real redis-server (redisFleet)', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(() => redis?.stop());

    it('two servers share the day; a store that holds something else refuses, sending nothing', async () => {
      const { sandbox, client, tokens } = bank();
      const connections = await Promise.all([createClient({ url: redis.url }).connect(), createClient({ url: redis.url }).connect()]);
      try {
        const limits = { perCall: 10_000, perDay: 10_000 };
        const [a, b] = (await Promise.all(
          connections.map((connection) => {
            const ob = client({ fleet: redisFleet(connection, { prefix: 'mcp-test' }) });
            return v2(createMcpServer(ob, { customer: ob.forCustomer(tokens, { id: 'customer-42' }), allow: ['transfers.create'], limits }));
          }),
        )) as [Agent, Agent];
        expect((await a.call('transfers_create', { ...TRANSFER, amount: 4_000 })).isError).toBeFalsy();
        expect((await b.call('transfers_create', { ...TRANSFER, amount: 6_000 })).isError).toBeFalsy();
        expect(textOf(await a.call('transfers_create', { ...TRANSFER, amount: 1 }))).toMatch(/perDay/);
        const keys = await connections[0]!.keys(`mcp-test:openbanking-ng:${APP.clientId}:mcp:day:*`);
        expect(keys).toHaveLength(1);
        expect(keys[0]).not.toContain('customer-42');
        expect(await connections[0]!.get(keys[0]!)).toBe('1000000');
        await connections[0]!.set(keys[0]!, 'not a total');
        const unreadable = await b.call('transfers_create', { ...TRANSFER, amount: 1 });
        expect(textOf(unreadable)).toMatch(/^LimitUnavailable: .*nothing was sent/);
        expect(sandbox.payments()).toHaveLength(2);
        await Promise.all([a.close(), b.close()]);
      } finally {
        await Promise.all(connections.map((c) => c.quit()));
      }
    });
  });
});

// DESIGN "Agents", row "limits": an amount is released only when no attempt left the process.
describe.each(LINES)('money that may have left stays counted, driven by the %s', (_line, connect) => {
  const LIMIT = { perCall: 50_000, perDay: 50_000 };
  const MOVER = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;

  it('the answer lost after the bank moved it, then the retry refused (401, renewal refused): the day stays spent', async () => {
    const { sandbox, ob, session } = bank();
    const agent = await connect(ob, { customer: session, allow: ['transfers.create'], limits: LIMIT, ledger: 'memory' });
    sandbox.faults.inject({ ...MOVER, fault: { type: 'drop', when: 'after' } });
    sandbox.faults.inject({ ...MOVER, fault: { type: 'status', status: 401 } });
    sandbox.faults.inject({ path: '/oauth/token', fault: { type: 'response', status: 400, body: { error: 'invalid_request', error_description: 'refused' } } });
    const lost = await agent.call('transfers_create', { ...TRANSFER, amount: 50_000 });
    expect(lost.isError).toBe(true);
    expect(textOf(lost)).toMatch(/^OAuthError: /);
    expect(sandbox.payments().map((p) => p.amount)).toEqual([50_000]);
    const second = await agent.call('transfers_create', { ...TRANSFER, amount: 50_000 });
    expect(textOf(second)).toMatch(/^ValidationError: .*daily limit \(limits\.perDay\) of 50000 NGN \(50000 NGN already sent\)/);
    expect(sandbox.payments()).toHaveLength(1);
    expect(sandbox.requests.count(MOVER)).toBe(2);
    await agent.close();
  });

  it('a connection refused before the request was written gives the amount back', async () => {
    const { sandbox, client, tokens } = bank();
    let refuse = true;
    const ob = client({
      maxRetries: 0,
      fetch: (async (input: Request | string | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (refuse && request.method === 'POST' && new URL(request.url).pathname === MOVER.path) {
          refuse = false;
          throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' }) });
        }
        return sandbox(request);
      }) as typeof fetch,
    });
    const agent = await connect(ob, { customer: ob.forCustomer(tokens, { id: 'customer-42' }), allow: ['transfers.create'], limits: LIMIT, ledger: 'memory' });
    expect(textOf(await agent.call('transfers_create', { ...TRANSFER, amount: 50_000 }))).toMatch(/^ConnectionError: /);
    expect((await agent.call('transfers_create', { ...TRANSFER, amount: 50_000 })).isError).toBeFalsy();
    expect(sandbox.payments().map((p) => p.amount)).toEqual([50_000]);
    await agent.close();
  });
});
