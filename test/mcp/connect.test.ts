import { describe, expect, it } from 'vitest';
import type { TokenSet } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp.js';
import { type Agent, apiCalls, bank, LINES, textOf } from './support.js';

// DESIGN "Agents", row "tools": with no customer tokens, connect_bank starts the device-code flow
// for the scopes of the listed tools, answers where to approve (never the device code) and polls
// in the background; until the person approves, customer tools answer where to approve.

/** A client whose device-code polls wait a few ms (the sandbox's clock says when a code expires). */
function connecting() {
  const b = bank();
  return { ...b, ob: b.client({ sleep: () => new Promise((resolve) => setTimeout(resolve, 5)) }) };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}

describe.each(LINES)('connect_bank, driven by the %s', (_line, connect) => {
  it('answers the address and code, never the device code; customer tools say where to approve until the person does', async () => {
    const { sandbox, ob } = connecting();
    const saved: TokenSet[] = [];
    const agent: Agent = await connect(ob, { connect: { id: 'customer-42', onTokens: (t) => void saved.push(t) } });
    expect((await agent.listTools()).map((t) => t.name)).toContain('connect_bank');

    const before = await agent.call('accounts_list');
    expect(before.isError).toBe(true);
    expect(textOf(before)).toMatch(/^NotConnected: .*connect_bank/);

    const started = await agent.call('connect_bank');
    expect(started.isError).toBeFalsy();
    const answer = started.structuredContent as { status: string; verification_uri: string; user_code: string; expires_in: number };
    expect(answer).toMatchObject({ status: 'pending', verification_uri: `${sandbox.authUrl}/device`, user_code: expect.any(String), expires_in: expect.any(Number) });
    expect(JSON.stringify(started)).not.toMatch(/device_code/);
    // Asked for the listed customer tools' scopes: the reads, not a transfer.
    expect(textOf(started)).toMatch(/accounts\.list\.readonly/);
    expect(textOf(started)).not.toMatch(/transfers\.transactions\.create/);

    const waiting = await agent.call('accounts_list');
    expect(textOf(waiting)).toMatch(/^NotConnected: /);
    expect(textOf(waiting)).toContain(answer.verification_uri);
    expect(textOf(waiting)).toContain(answer.user_code);
    // Called again while waiting: the same code, no second device authorization.
    expect((await agent.call('connect_bank')).structuredContent).toMatchObject({ user_code: answer.user_code });
    expect(sandbox.requests.count('/oauth2/device/code')).toBe(1);
    // A client-credentials read works meanwhile.
    expect((await agent.call('bills_categories_list')).isError).toBeFalsy();
    expect(apiCalls(sandbox)).toBe(1);

    sandbox.approveDeviceCode(answer.user_code);
    const accounts = await until(() => agent.call('accounts_list'), (r) => !r.isError);
    expect(accounts.structuredContent).toMatchObject({ accounts: expect.any(Array) });
    expect(saved).toHaveLength(1);
    expect((await agent.call('connect_bank')).structuredContent).toMatchObject({ status: 'connected' });
    await agent.close();
  });
});

describe('connect_bank', () => {
  it('a denied approval: customer tools say so, and connect_bank starts again', async () => {
    const { sandbox, ob } = connecting();
    const { v2 } = await import('./support.js');
    const agent = await v2(createMcpServer(ob, { allow: ['transfers.create'], limits: { perCall: 1, perDay: 1 }, ledger: 'memory' }));
    const first = (await agent.call('connect_bank')).structuredContent as { user_code: string };
    expect(textOf(await agent.call('connect_bank'))).toMatch(/transfers\.transactions\.create/);
    sandbox.denyDeviceCode(first.user_code);
    const ended = await until(() => agent.call('accounts_list'), (r) => /last attempt ended/.test(textOf(r)));
    expect(textOf(ended)).toMatch(/^NotConnected: .*access_denied|denied/);
    const second = (await agent.call('connect_bank')).structuredContent as { user_code: string };
    expect(second.user_code).not.toBe(first.user_code);
    await agent.close();
  });

  it('is not listed when the server is given a customer', async () => {
    const { ob, session } = bank();
    const { v2 } = await import('./support.js');
    const agent = await v2(createMcpServer(ob, { customer: session }));
    expect((await agent.listTools()).map((t) => t.name)).not.toContain('connect_bank');
    await agent.close();
  });
});
