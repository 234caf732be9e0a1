import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryFleetStore } from '../../src/index.js';
import { createMcpServerFactory, type McpServerOptions } from '../../src/mcp.js';
import { forged } from './agent-world.js';
import { bank, TRANSFER } from './support.js';

// DESIGN "Agents", row "confirmation", its last sentences: whatever the channel, a confirmation is
// single-use, bound to the input's digest and the idempotency key, and expires within 5 minutes.
// The client here is the official v2 client on 2026-07-28 in manual mode: it holds the request
// state, so it can replay, forge or reuse it, as any local process that reached the server could.
const LIMITS = { perCall: 50_000, perDay: 200_000 };
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;
const ACCEPT = { confirm: { action: 'accept', content: { confirm: true } } };
const DECLINE = { confirm: { action: 'decline' } };

type Result = { resultType?: string; requestState?: string; isError?: boolean; content?: { text?: string }[]; structuredContent?: Record<string, unknown>; inputRequests?: Record<string, { params: { message: string } }> };

/** A server factory over a fleet-backed client, and the official v2 client in manual mode over Streamable HTTP. */
async function manualClient(extra: Partial<McpServerOptions> = {}) {
  const b = bank({ client: { fleet: new MemoryFleetStore() } });
  const handler = createMcpHandler(createMcpServerFactory(b.ob, { customer: b.session, allow: ['transfers.create'], limits: LIMITS, ...extra }));
  const client = new Client({ name: 'manual', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } });
  await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
  const call = async (args: Record<string, unknown>, retry?: { inputResponses: unknown; requestState: string }): Promise<Result> =>
    (await client.callTool({ name: 'transfers_create', arguments: args, ...(retry ?? {}) } as never, { allowInputRequired: true } as never)) as Result;
  const close = async () => {
    await client.close();
    await handler.close();
  };
  return { ...b, handler, call, close };
}
const text = (r: Result) => (r.content ?? []).map((c) => c.text ?? '').join('\n');

describe('a confirmation serves one answer, for one input and one key', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(open.splice(0).map((o) => o.close()));
  });
  const setup = async (extra?: Partial<McpServerOptions>) => {
    const world = await manualClient(extra);
    open.push(world);
    return world;
  };

  it('one "yes" replayed three times sends one transfer, under the key the confirmation named', async () => {
    const { sandbox, call } = await setup();
    const asked = await call(TRANSFER);
    expect(asked.resultType).toBe('input_required');
    const state = asked.requestState!;
    const sent = await call(TRANSFER, { inputResponses: ACCEPT, requestState: state });
    expect(sent.isError, text(sent)).toBeFalsy();
    for (let i = 0; i < 3; i++) {
      const replay = await call(TRANSFER, { inputResponses: ACCEPT, requestState: state });
      expect(replay.isError).toBe(true);
      expect(text(replay)).toMatch(/^NotConfirmed: This confirmation was already answered/);
    }
    expect(sandbox.requests.count(POSTS)).toBe(1);
    expect(sandbox.payments()).toHaveLength(1);
    // The key was fixed when the person was asked, and the result names it.
    const named = JSON.parse(Buffer.from(state.split('.')[1]!, 'base64url').toString('utf8')).p.key as string;
    expect(sandbox.payments()[0]!.idempotencyKey).toBe(named);
    expect(sent.structuredContent).toMatchObject({ idempotency_key: named });
  });

  it('a decline replayed as an accept is still a decline: nothing is sent', async () => {
    const { sandbox, call } = await setup();
    const state = (await call(TRANSFER)).requestState!;
    expect(text(await call(TRANSFER, { inputResponses: DECLINE, requestState: state }))).toMatch(/^NotConfirmed: The person declined/);
    expect(text(await call(TRANSFER, { inputResponses: ACCEPT, requestState: state }))).toMatch(/^NotConfirmed: This confirmation was already answered/);
    expect(sandbox.requests.count(POSTS)).toBe(0);
  });

  it('a forged state, or one another server signed, confirms nothing', async () => {
    const { sandbox, call } = await setup();
    const other = await setup();
    const state = (await call(TRANSFER)).requestState!;
    const foreign = (await other.call(TRANSFER)).requestState!;
    for (const requestState of [forged(state), foreign, 'v1.e30.AAAA']) {
      const refused = await call(TRANSFER, { inputResponses: ACCEPT, requestState });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^NotConfirmed: The confirmation is not one this server asked for/);
    }
    expect(sandbox.requests.count(POSTS) + other.sandbox.requests.count(POSTS)).toBe(0);
  });

  it('an answer beside other input or another key sends nothing and asks the person about what is asked now', async () => {
    const { sandbox, call } = await setup();
    const state = (await call({ ...TRANSFER, idempotency_key: 'person-saw-this-key' })).requestState!;
    const otherAmount = await call({ ...TRANSFER, amount: 49_000, idempotency_key: 'person-saw-this-key' }, { inputResponses: ACCEPT, requestState: state });
    expect(otherAmount.resultType).toBe('input_required');
    expect(otherAmount.inputRequests!.confirm!.params.message).toContain('49000 NGN');
    const state2 = (await call({ ...TRANSFER, idempotency_key: 'person-saw-this-key' })).requestState!;
    const otherKey = await call({ ...TRANSFER, idempotency_key: 'a-key-nobody-saw' }, { inputResponses: ACCEPT, requestState: state2 });
    expect(otherKey.resultType).toBe('input_required');
    expect(sandbox.requests.count(POSTS)).toBe(0);
  });

  it('a confirmation answered after 5 minutes is expired: a tool error, nothing sent', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { sandbox, call } = await setup();
    const state = (await call(TRANSFER)).requestState!;
    vi.setSystemTime(Date.now() + 301_000);
    const late = await call(TRANSFER, { inputResponses: ACCEPT, requestState: state });
    expect(text(late)).toMatch(/^NotConfirmed: The confirmation expired \(a confirmation is valid for 5 minutes\)/);
    expect(sandbox.requests.count(POSTS)).toBe(0);
  });
});
