import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrument } from '../../src/otel.js';
import { createMcpServer } from '../../src/mcp.js';
import { telemetry, useAsyncContext } from '../observability/support.js';
import { bank, TRANSFER, v1, v2 } from './support.js';

// DESIGN "Agents", row "the rest": every tool call is a logical call of the client, whose span
// (the real OpenTelemetry SDK, in memory) names the tool.
describe('spans of tool calls', () => {
  let t: ReturnType<typeof telemetry>;
  beforeAll(() => {
    useAsyncContext();
    t = telemetry();
  });
  afterAll(() => t.shutdown());

  it('the call span carries openbanking.mcp.tool, for reads and for a confirmed transfer, from both client lines', async () => {
    const { ob, session } = bank();
    instrument(ob, { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider });
    const options = { customer: session, allow: ['transfers.create' as const], limits: { perCall: 50_000, perDay: 200_000 }, ledger: 'memory' as const };
    const a = await v2(createMcpServer(ob, options));
    const b = await v1(createMcpServer(ob, options));
    await a.call('accounts_list');
    await b.call('accounts_balances_retrieve', { account_number: '0123456789' });
    const sent = await a.call('transfers_create', TRANSFER);
    expect(t.one('accounts.list').attributes).toMatchObject({ 'openbanking.mcp.tool': 'accounts_list', 'openbanking.operation': 'accounts.list' });
    expect(t.one('accounts.balances.retrieve').attributes['openbanking.mcp.tool']).toBe('accounts_balances_retrieve');
    expect(t.one('transfers.create').attributes).toMatchObject({ 'openbanking.mcp.tool': 'transfers_create', 'openbanking.idempotency_key': sent.structuredContent!.idempotency_key });
    // A call made outside the server carries none.
    await session.savings.list();
    expect(t.one('savings.list').attributes['openbanking.mcp.tool']).toBeUndefined();
    await Promise.all([a.close(), b.close()]);
  });
});
