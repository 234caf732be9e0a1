import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMcpServer } from '../../src/mcp.js';
import { bank, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", row "tools": transfers_wait waits 30 s by default and at most 55 s, inside the
// 60 s the official clients give a request; it says how long it has waited every 5 s when the
// request carries a progress token, and a transfer still pending at the deadline is a result
// `{ status, pending: true }` saying to call again, not an error. The client's clock is a fake one
// its sleeps advance, so the waits take no time; the progress test fakes the timers instead.

const STATUS_READS = { path: /^\/openapi\/v1\/transactions\/B/, method: 'GET' } as const;

/** A customer with a transfer just sent, a server, and the v2 client; `clock.now` is the client's time. */
async function sent(options: { realClock?: boolean } = {}) {
  const clock = { now: Date.parse('2026-11-27T09:00:00Z') };
  const b = bank({ client: options.realClock ? {} : { now: () => clock.now, sleep: async (ms: number) => void (clock.now += ms) } });
  const transfer = await b.session.transfers.create({ ...TRANSFER });
  const client = new Client({ name: 'wait-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(b.ob, { customer: b.session }).connect(serverSide);
  await client.connect(clientSide);
  const call = async (args: Record<string, unknown>, onprogress?: (p: { progress: number; total?: number; message?: string }) => void) =>
    (await client.callTool({ name: 'transfers_wait', arguments: args }, onprogress ? { onprogress } : undefined)) as { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };
  return { ...b, clock, reference: transfer.batch_reference as string, call, close: () => client.close() };
}

describe('transfers_wait', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('answers the final status once the transfer settles, reading it 1 s, then 2 s after the call', async () => {
    const w = await sent();
    closers.push(w.close);
    const started = w.clock.now;
    const result = await w.call({ batch_reference: w.reference });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'SUCCESSFUL' });
    expect(result.structuredContent).not.toHaveProperty('pending');
    expect(textOf(result)).toContain('status: "SUCCESSFUL"');
    expect(w.sandbox.requests.count(STATUS_READS)).toBe(2);
    expect(w.clock.now - started).toBe(3_000);
  });

  it('a transfer still pending after the default 30 s is a result { status, pending: true } saying to call again, not an error', async () => {
    const w = await sent();
    closers.push(w.close);
    w.sandbox.settleTransfers({ pendingReads: Infinity }, w.reference);
    const started = w.clock.now;
    const result = await w.call({ batch_reference: w.reference });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'PENDING', pending: true });
    expect(textOf(result)).toMatch(/^Still PENDING after 30 s: nothing failed and nothing was sent again\. Call transfers_wait again with batch_reference "B/);
    expect(w.clock.now - started).toBe(30_000);
    // Reads at 1, 3, 7 and 15 s; the transfer itself was never sent again.
    expect(w.sandbox.requests.count(STATUS_READS)).toBe(4);
    expect(w.sandbox.payments()).toHaveLength(1);
  });

  it('waits at most 55 s: a longer timeout, a fraction or zero is a ValidationError before any read', async () => {
    const w = await sent();
    closers.push(w.close);
    w.sandbox.settleTransfers({ pendingReads: Infinity }, w.reference);
    for (const timeout of [55_001, 120_000, 0, 1.5, '30000', null]) {
      const refused = await w.call({ batch_reference: w.reference, timeout });
      expect(refused.isError, String(timeout)).toBe(true);
      expect(textOf(refused)).toMatch(/^ValidationError: .*timeout/);
    }
    expect(w.sandbox.requests.count(STATUS_READS)).toBe(0);
    const started = w.clock.now;
    expect((await w.call({ batch_reference: w.reference, timeout: 55_000 })).structuredContent).toMatchObject({ pending: true });
    expect(w.clock.now - started).toBe(55_000);
  });

  it('says how long it has waited every 5 s when the request carries a progress token', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const w = await sent({ realClock: true });
    closers.push(w.close);
    w.sandbox.settleTransfers({ pendingReads: Infinity }, w.reference);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const pending = w.call({ batch_reference: w.reference, timeout: 20_000 }, (p) => progress.push(p));
    await vi.advanceTimersByTimeAsync(21_000);
    const result = await pending;
    expect(result.structuredContent).toMatchObject({ pending: true });
    expect(progress.map((p) => p.progress).slice(0, 3)).toEqual([5_000, 10_000, 15_000]);
    expect(progress.every((p) => p.total === 20_000 && /Still waiting/.test(p.message ?? ''))).toBe(true);
    // None after the answer.
    const seen = progress.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(progress).toHaveLength(seen);
  });
});
