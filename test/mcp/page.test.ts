import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFleetStore } from '../../src/index.js';
import { type ConfirmationLink, createMcpServer, createMcpServerFactory, type McpServerOptions } from '../../src/mcp.js';
import { person, plain, type Result, tokenOf, type UrlAgent, v1Url, v2Url, v2UrlModern } from './page-support.js';
import { apiCalls, bank, textOf, TRANSFER, v1, v2 } from './support.js';

// DESIGN "Agents", row "confirmation": the page this server serves, answered over HTTP as a browser
// sends it (test/browser/confirm-page.browser.ts does the same in Chromium). The sandbox's counters
// say what was sent; each client line declares URL elicitation and hands the link on.
const LIMITS = { perCall: 50_000, perDay: 200_000 };
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;
const SECRET = 'correct horse battery';
const URL_LINES: [string, (b: ReturnType<typeof bank>, options: McpServerOptions) => Promise<UrlAgent>][] = [
  ['v2 client, in memory', (b, o) => v2Url(createMcpServer(b.ob, o))],
  ['v2 client, 2026-07-28 over HTTP', (b, o) => v2UrlModern(createMcpServerFactory(b.ob, o))],
  ['v1 client, in memory', (b, o) => v1Url(createMcpServer(b.ob, o))],
];

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});
const options = (b: ReturnType<typeof bank>, extra: Partial<McpServerOptions> = {}): McpServerOptions => ({ customer: b.session, allow: ['transfers.create'], limits: LIMITS, ledger: 'memory', ...extra });

describe.each(URL_LINES)('URL elicitation, %s: the person decides on the page', (_line, connect) => {
  const setup = async (extra: Partial<McpServerOptions> = {}) => {
    const b = bank();
    const agent = await connect(b, options(b, extra));
    open.push(agent);
    return { ...b, agent };
  };

  it('Confirm: the page showed exactly the call, and one transfer is sent under the key the tool returns', async () => {
    const { sandbox, agent } = await setup();
    const call = agent.call('transfers_create', { ...TRANSFER, reference: 'INV-2291' } as never);
    const url = await agent.nextLink();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/confirm\/[A-Za-z0-9_-]{43}$/);
    const page = await person.read(url);
    expect(page.status).toBe(200);
    for (const shown of ['transfers_create', '₦5,000.00', '5000 NGN', 'From account "0123456789"', 'To account "0987654321" at bank "000013"', 'narration "Rent for June"', 'reference "INV-2291"', 'Today (', '₦200,000.00 a day', '₦50,000.00 per call', 'Confirm', 'Decline']) {
      expect(page.text).toContain(shown);
    }
    expect(apiCalls(sandbox, 'POST')).toBe(0);
    expect((await person.answer(url, { token: tokenOf(url), decision: 'confirm' })).status).toBe(200);
    const sent = await call;
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(sandbox.requests.count(POSTS)).toBe(1);
    expect(sandbox.payments()).toHaveLength(1);
    expect(sandbox.payments()[0]).toMatchObject({ kind: 'transfer', amount: 5000, idempotencyKey: sent.structuredContent!.idempotency_key });
  });

  it('Decline: a tool error, nothing sent', async () => {
    const { sandbox, agent } = await setup();
    const call = agent.call('transfers_create', TRANSFER);
    const url = await agent.nextLink();
    expect((await person.answer(url, { token: tokenOf(url), decision: 'decline' })).text).toContain('Declined');
    expect(textOf(await call)).toMatch(/^NotConfirmed: The person declined on the confirmation page: nothing was sent/);
    expect(apiCalls(sandbox, 'POST')).toBe(0);
  });
});

describe('URL elicitation: the link is refused to be opened', () => {
  for (const opening of ['decline', 'cancel'] as const) {
    it(`the person ${opening}s opening it: nothing sent, and the link decides nothing after`, async () => {
      const b = bank();
      const agent = await v2Url(createMcpServer(b.ob, options(b)), opening);
      open.push(agent);
      const refused = await agent.call('transfers_create', TRANSFER);
      expect(textOf(refused)).toMatch(/^NotConfirmed: The person (declined to open|dismissed) the confirmation page: nothing was sent/);
      const url = agent.links[0]!.url;
      expect((await person.answer(url, { token: tokenOf(url), decision: 'confirm' })).status).toBe(409);
      expect(apiCalls(b.sandbox, 'POST')).toBe(0);
    });
  }
});
