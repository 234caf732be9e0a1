import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFleetStore } from '../../src/index.js';
import { type ConfirmationLink, createMcpServer, createMcpServerFactory, type McpServerOptions } from '../../src/mcp.js';
import { person, type Result, tokenOf, type UrlAgent, v1Url, v2Url, v2UrlModern } from './page-support.js';
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

describe('what decides nothing on the page', () => {
  /** A v2 client with URL elicitation, a call waiting on the page, and its link. */
  const waiting = async (extra: Partial<McpServerOptions> = {}) => {
    const b = bank();
    const agent = await v2Url(createMcpServer(b.ob, options(b, extra)));
    open.push(agent);
    const call = agent.call('transfers_create', TRANSFER);
    // A call left waiting ends when its client closes.
    call.catch(() => undefined);
    const url = await agent.nextLink();
    return { ...b, agent, call, url, token: tokenOf(url) };
  };

  it('a GET, a POST from another origin or with none, without the token or with another, or not a form: nothing decided, nothing sent', async () => {
    const { sandbox, call, url, token } = await waiting();
    expect((await person.read(`${url}?decision=confirm&token=${token}`)).status).toBe(200);
    expect((await person.answer(url, { token, decision: 'confirm' }, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await person.answer(url, { token, decision: 'confirm' }, { origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect((await person.answer(url, { token, decision: 'confirm' }, { origin: null })).status).toBe(403);
    expect((await person.answer(url, { decision: 'confirm' })).status).toBe(400);
    expect((await person.answer(url, { token: token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')), decision: 'confirm' })).status).toBe(400);
    expect((await person.answer(url, { token, decision: 'confirm' }, { path: '/confirm/' })).status).toBe(403);
    expect((await person.answer(url, { token, decision: 'confirm' }, { type: 'text/plain' })).status).toBe(415);
    expect((await person.answer(url, { token, decision: 'yes' })).status).toBe(400);
    // Still waiting, still answerable: the person's own Decline ends it.
    expect((await person.read(url)).text).toContain('Confirm');
    expect(apiCalls(sandbox, 'POST')).toBe(0);
    expect((await person.answer(url, { token, decision: 'decline' })).status).toBe(200);
    expect((await call).isError).toBe(true);
    expect(apiCalls(sandbox, 'POST')).toBe(0);
  });

  it('the same link again: one decision, one transfer', async () => {
    const { sandbox, call, url, token } = await waiting();
    expect((await person.answer(url, { token, decision: 'confirm' })).status).toBe(200);
    expect((await call).isError).toBeFalsy();
    for (const decision of ['confirm', 'decline']) expect((await person.answer(url, { token, decision })).status).toBe(409);
    expect((await person.read(url)).text).toContain('Already confirmed');
    expect(sandbox.requests.count(POSTS)).toBe(1);
  });

  it('a link past 5 minutes decides nothing, and the waiting tool answers that it expired', async () => {
    let clock = Date.parse('2026-11-27T09:00:00Z');
    const { sandbox, call, url, token } = await waiting({ now: () => clock });
    clock += 300_000;
    expect((await person.answer(url, { token, decision: 'confirm' })).status).toBe(410);
    expect(textOf(await call)).toMatch(/^NotConfirmed: The confirmation page expired before the person decided \(a link works for 5 minutes\): nothing was sent/);
    expect((await person.read(url)).text).toContain('This link has expired');
    expect(apiCalls(sandbox, 'POST')).toBe(0);
  });

  it('a wrong passphrase decides nothing; the right one confirms; the passphrase reaches no client', async () => {
    const { sandbox, agent, call, url, token } = await waiting({ confirmSecret: SECRET });
    expect((await person.read(url)).html).toMatch(/<input type="password" id="passphrase" name="passphrase"/);
    const wrong = await person.answer(url, { token, decision: 'confirm', passphrase: 'correct horse battery staple' });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('Wrong passphrase: nothing was decided. 4 tries left');
    expect((await person.answer(url, { token, decision: 'confirm' })).status).toBe(403);
    expect(apiCalls(sandbox, 'POST')).toBe(0);
    expect((await person.answer(url, { token, decision: 'confirm', passphrase: SECRET })).status).toBe(200);
    const sent = await call;
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(sandbox.requests.count(POSTS)).toBe(1);
    expect(JSON.stringify([sent, agent.links])).not.toContain(SECRET);
  });

  it('five wrong passphrases end the link: the tool answers so, nothing sent', async () => {
    const { sandbox, call, url, token } = await waiting({ confirmSecret: SECRET });
    for (let i = 0; i < 4; i++) expect((await person.answer(url, { token, decision: 'confirm', passphrase: `guess-${i}-guess` })).status).toBe(403);
    expect((await person.answer(url, { token, decision: 'confirm', passphrase: 'guess-5-guess' })).text).toContain('Five wrong passphrases ended it');
    expect((await person.answer(url, { token, decision: 'confirm', passphrase: SECRET })).status).toBe(410);
    expect(textOf(await call)).toMatch(/^NotConfirmed: Five wrong passphrases ended/);
    expect(apiCalls(sandbox, 'POST')).toBe(0);
  });

  it('the page has no script, cannot be framed, is never cached and sends no referrer to another origin', async () => {
    const { url, token } = await waiting();
    const page = await person.read(url);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.html).not.toMatch(/<script|\son\w+=|javascript:/i);
    expect(page.html).toContain(`<input type="hidden" name="token" value="${token}">`);
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${token}&decision=confirm` });
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('text the agent wrote is shown as text, never as markup', async () => {
    const b = bank();
    const agent = await v2Url(createMcpServer(b.ob, options(b)));
    open.push(agent);
    agent.call('transfers_create', { ...TRANSFER, narration: '<script>alert(1)</script><b>x</b>' }).catch(() => undefined);
    const page = await person.read(await agent.nextLink());
    expect(page.html).not.toContain('<script>');
    expect(page.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;&#60;b&#62;x&#60;/b&#62;');
  });

  it('its own listener answers only requests naming 127.0.0.1 or localhost in Host', async () => {
    const { url } = await waiting();
    const { request } = await import('node:http');
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => request(url, { headers: { host } }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject).end());
    expect(await status('evil.example')).toBe(421);
    expect(await status(new URL(url).host)).toBe(200);
  });

  it('progress notifications while the person has the page, then the answer', async () => {
    const { agent, call, url, token } = await waiting();
    await expect.poll(() => agent.progress.length, { timeout: 8_000, interval: 200 }).toBeGreaterThan(0);
    expect(agent.progress.at(-1)).toMatch(/^Waiting for the person to confirm or decline on the page \(\d+ s left\)\.$/);
    await person.answer(url, { token, decision: 'confirm' });
    expect((await call).isError).toBeFalsy();
  }, 20_000);
});

describe("no elicitation: the person approves outside the chat, on the operator's link", () => {
  const setup = async (connect: typeof v1 | typeof v2, elicit: 'none' | 'accept', extra: Partial<McpServerOptions> = {}) => {
    const b = bank();
    const links: ConfirmationLink[] = [];
    const agent = await connect(createMcpServer(b.ob, options(b, { onConfirmationLink: (link) => links.push(link), ...extra })), elicit);
    open.push(agent);
    return { ...b, agent, links };
  };
  const keyIn = (result: Result) => /idempotency_key "([^"]+)"/.exec(textOf(result))?.[1];

  it('v1 client: the tool error carries no link or token, the operator gets it; approved, the same call with the same key sends once', async () => {
    const { sandbox, agent, links } = await setup(v1, 'none');
    const args = { ...TRANSFER, idempotency_key: 'rent-june-2026' };
    const first = await agent.call('transfers_create', args);
    expect(first.isError).toBe(true);
    expect(textOf(first)).toMatch(/^NotConfirmed: The person must approve this request outside the chat \(this MCP client declared no elicitation capability\), so nothing was sent yet\./);
    expect(textOf(first)).toContain('call transfers_create again with the same arguments and idempotency_key "rent-june-2026"');
    expect(links).toHaveLength(1);
    const url = links[0]!.url;
    expect(JSON.stringify(first)).not.toMatch(/https?:|\/confirm\//);
    expect(JSON.stringify(first)).not.toContain(tokenOf(url));
    // Not yet approved: the same answer, no second link.
    expect(textOf(await agent.call('transfers_create', args))).toMatch(/^NotConfirmed: The person has not approved this request yet/);
    expect(links).toHaveLength(1);
    expect(apiCalls(sandbox, 'POST')).toBe(0);

    const page = await person.read(url);
    expect(page.text).toContain('₦5,000.00');
    expect((await person.answer(url, { token: tokenOf(url), decision: 'confirm' })).text).toContain('It is sent when the agent calls transfers_create again with the same idempotency key');
    expect(apiCalls(sandbox, 'POST')).toBe(0);
    const sent = await agent.call('transfers_create', args);
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ idempotency_key: 'rent-june-2026' });
    // The same call again is the provider's replay under that key: no second movement, no second link.
    expect((await agent.call('transfers_create', args)).isError).toBeFalsy();
    expect(sandbox.payments()).toHaveLength(1);
    expect(sandbox.payments()[0]!.idempotencyKey).toBe('rent-june-2026');
    expect(links).toHaveLength(1);
  });

  it('without a key, the error names the key the link is bound to; other input or another key is not approved by it', async () => {
    const { sandbox, agent, links } = await setup(v1, 'none');
    const key = keyIn(await agent.call('transfers_create', TRANSFER))!;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const url = links[0]!.url;
    await person.answer(url, { token: tokenOf(url), decision: 'confirm' });
    // Another amount, or another key: a new link, nothing sent.
    expect(textOf(await agent.call('transfers_create', { ...TRANSFER, amount: 4_999, idempotency_key: key }))).toMatch(/^NotConfirmed: The person must approve/);
    expect(textOf(await agent.call('transfers_create', { ...TRANSFER, idempotency_key: 'another-key' }))).toMatch(/^NotConfirmed: The person must approve/);
    expect(links).toHaveLength(3);
    expect(apiCalls(sandbox, 'POST')).toBe(0);
    const sent = await agent.call('transfers_create', { ...TRANSFER, idempotency_key: key });
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(sandbox.payments().map((p) => p.idempotencyKey)).toEqual([key]);
  });

  it('declined on the page: the next call says so, nothing sent', async () => {
    const { sandbox, agent, links } = await setup(v1, 'none');
    const args = { ...TRANSFER, idempotency_key: 'k-declined' };
    await agent.call('transfers_create', args);
    await person.answer(links[0]!.url, { token: tokenOf(links[0]!.url), decision: 'decline' });
    expect(textOf(await agent.call('transfers_create', args))).toMatch(/^NotConfirmed: The person declined on the confirmation page: nothing was sent/);
    expect(apiCalls(sandbox, 'POST')).toBe(0);
  });

  for (const [what, extra] of [
    ["confirm: 'page'", { confirm: 'page' }],
    ['confirmSecret', { confirmSecret: SECRET }],
  ] as const) {
    it(`${what}: a client with only form elicitation is never shown the form; the operator gets the link`, async () => {
      const { sandbox, agent, links } = await setup(v2, 'accept', extra);
      const refused = await agent.call('transfers_create', { ...TRANSFER, idempotency_key: 'k-page' });
      expect(textOf(refused)).toMatch(/^NotConfirmed: The person must approve this request outside the chat \(this server requires its confirmation page, and this MCP client declared no URL elicitation\)/);
      expect(agent.asked).toEqual([]);
      const url = links[0]!.url;
      await person.answer(url, { token: tokenOf(url), decision: 'confirm', passphrase: SECRET });
      expect((await agent.call('transfers_create', { ...TRANSFER, idempotency_key: 'k-page' })).isError).toBeFalsy();
      expect(agent.asked).toEqual([]);
      expect(sandbox.payments()).toHaveLength(1);
    });
  }

  it('at most 100 links wait at once: an agent cannot flood the operator; a decision frees a place', async () => {
    const { sandbox, agent, links } = await setup(v1, 'none');
    for (let i = 0; i < 100; i++) await agent.call('transfers_create', { ...TRANSFER, idempotency_key: `flood-${i}` });
    expect(links).toHaveLength(100);
    const refused = await agent.call('transfers_create', { ...TRANSFER, idempotency_key: 'flood-100' });
    expect(textOf(refused)).toMatch(/^NotConfirmed: 100 confirmations already wait for the person: nothing was sent/);
    expect(links).toHaveLength(100);
    await person.answer(links[0]!.url, { token: tokenOf(links[0]!.url), decision: 'decline' });
    expect(textOf(await agent.call('transfers_create', { ...TRANSFER, idempotency_key: 'flood-100' }))).toMatch(/^NotConfirmed: The person must approve/);
    expect(links).toHaveLength(101);
    expect(apiCalls(sandbox, 'POST')).toBe(0);
  });

  it('a page decision serves one server state: another process over the same fleet store never uses it', async () => {
    const fleet = new MemoryFleetStore();
    const b = bank({ client: { fleet } });
    const links: ConfirmationLink[] = [];
    const opts = { customer: b.session, allow: ['transfers.create'] as never, limits: LIMITS, onConfirmationLink: (l: ConfirmationLink) => links.push(l) };
    const first = await v1(createMcpServer(b.ob, opts), 'none');
    const second = await v1(createMcpServer(b.client({ fleet }), { ...opts, customer: b.client({ fleet }).forCustomer(b.tokens, { id: 'customer-42' }) }), 'none');
    open.push(first, second);
    const args = { ...TRANSFER, idempotency_key: 'k-fleet' };
    await first.call('transfers_create', args);
    await person.answer(links[0]!.url, { token: tokenOf(links[0]!.url), decision: 'confirm' });
    // The other process holds no such link: it asks anew, nothing is sent there.
    expect(textOf(await second.call('transfers_create', args))).toMatch(/^NotConfirmed: The person must approve/);
    expect((await first.call('transfers_create', args)).isError).toBeFalsy();
    expect(b.sandbox.payments()).toHaveLength(1);
  });
});

describe('the options of the confirmation', () => {
  it('refuses what it cannot do, naming the option', () => {
    const b = bank();
    const refused = (extra: Record<string, unknown>) => {
      try {
        createMcpServer(b.ob, options(b, extra as never));
      } catch (error) {
        return (error as { issues: { path: string; message: string }[] }).issues;
      }
      return [];
    };
    expect(refused({ confirm: 'form' })).toEqual([{ path: 'confirm', message: "must be 'elicit', 'page' or 'none'", code: 'invalid_value' }]);
    expect(refused({ confirmSecret: 'short' })).toEqual([expect.objectContaining({ path: 'confirmSecret', message: 'must be a passphrase of at least 8 characters' })]);
    expect(refused({ confirmSecret: SECRET, confirm: 'none' })).toEqual([expect.objectContaining({ path: 'confirmSecret' })]);
    expect(refused({ confirmPage: { url: 'http://x', fetch: async () => new Response(), close: async () => {} } })).toEqual([expect.objectContaining({ path: 'confirmPage', message: 'must be made by createConfirmationPage' })]);
    expect(refused({ onConfirmationLink: 'stderr' })).toEqual([expect.objectContaining({ path: 'onConfirmationLink' })]);
    expect(refused({ confirm: 'page', confirmSecret: SECRET })).toEqual([]);
  });
});
