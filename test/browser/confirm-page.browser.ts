// The confirmation page of openbanking-ng/mcp in a real browser (DESIGN "Agents", row
// "confirmation"): Debian's Chromium, driven by playwright-core, opens the link an MCP server gave
// through URL elicitation of the official v2 client, reads the movement and presses Confirm or
// Decline; the sandbox's counters say what was sent. Then everything that must decide nothing: the
// same link again, a link past 5 minutes, a GET, a POST from another origin, a POST without the
// token, a wrong passphrase; the page runs no script and cannot be framed. Last, the command over
// stdio with a v1 client that declares no elicitation: the link reaches the operator's stderr only.
//
// Screenshots go to artifacts/confirm-page/; with UPDATE_DOCS=1 the phone-sized one of the page
// is written to docs/images/confirm-page.png too. Requests off 127.0.0.1 are refused.
import { createServer, type Server } from 'node:http';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer, type McpServerOptions } from '../../src/mcp.js';
import { startSandboxServer } from '../../src/testing.js';
import { useBin } from '../mcp/bin-support.js';
import { type UrlAgent, v2Url } from '../mcp/page-support.js';
import { ALL_SCOPES, APP, bank, textOf, TRANSFER } from '../mcp/support.js';
import { executablePath, isLoopback, launchChromium, requireChromium } from './chromium.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const shots = `${root}artifacts/confirm-page`;
const LIMITS = { perCall: 50_000, perDay: 200_000 };
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;
const SECRET = 'correct horse battery';
const RENT = { ...TRANSFER, amount: 45_000, narration: 'Rent for June, flat 3B', reference: 'RENT-2026-06' };

requireChromium('the confirmation page test');

describe.skipIf(!executablePath)('the confirmation page in Chromium', () => {
  const bin = useBin('confirm-page');
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let foreign: Server;
  let foreignOrigin: string;
  /** What the foreign origin serves next: a page of someone else's. */
  let foreignHtml = '';
  const offLoopback: string[] = [];
  const agents: UrlAgent[] = [];

  beforeAll(async () => {
    rmSync(shots, { recursive: true, force: true });
    mkdirSync(shots, { recursive: true });
    browser = await launchChromium();
    foreign = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(foreignHtml));
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    foreignOrigin = `http://127.0.0.1:${(foreign.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => foreign?.close(resolve));
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (isLoopback(url)) return route.continue();
      offLoopback.push(url);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `${shots}/failed-${ctx.task.name.replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => {});
    await context.close();
    await Promise.all(agents.splice(0).map((a) => a.close()));
    expect(offLoopback).toEqual([]);
  });

  /** A server with the transfer tool, the v2 client declaring URL elicitation, and a transfer waiting for the person. */
  async function waiting(extra: Partial<McpServerOptions> = {}, args: Record<string, unknown> = RENT) {
    const b = bank();
    const agent = await v2Url(createMcpServer(b.ob, { customer: b.session, allow: ['transfers.create'], limits: LIMITS, ledger: 'memory', ...extra }));
    agents.push(agent);
    const call = agent.call('transfers_create', args);
    call.catch(() => undefined);
    return { ...b, agent, call, url: await agent.nextLink() };
  }
  const heading = () => page.locator('h1').innerText();

  it('opened from the URL elicitation, it shows exactly the call; Confirm sends one transfer, under the key the tool returns', async () => {
    const { sandbox, agent, call, url } = await waiting();
    expect(agent.links[0]!.message).toContain('Open this page of the server');
    const response = await page.goto(url);
    expect(response!.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
    expect(response!.headers()['cache-control']).toBe('no-store');
    expect(await heading()).toBe('Confirm transfers_create: an AI agent asks to move money for you.');
    expect(await page.locator('.amount').innerText()).toBe('₦45,000.00');
    const rows = await page.locator('dl > div').evaluateAll((divs) => divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]));
    expect(rows).toEqual([
      ['Amount', '₦45,000.00 (45000 NGN)'],
      ['From', 'account "0123456789"'],
      ['To', 'account "0987654321" at bank "000013"'],
      ['narration', '"Rent for June, flat 3B"'],
      ['reference', '"RENT-2026-06"'],
      [expect.stringMatching(/^Today \(\d{4}-\d{2}-\d{2}, Lagos\)$/), '₦0.00 sent of ₦200,000.00 a day; at most ₦50,000.00 per call.'],
    ]);
    expect(await page.locator('script').count()).toBe(0);
    await page.screenshot({ path: `${shots}/confirm-page.png`, fullPage: true });
    if (process.env.UPDATE_DOCS === '1') {
      mkdirSync(`${root}docs/images`, { recursive: true });
      copyFileSync(`${shots}/confirm-page.png`, `${root}docs/images/confirm-page.png`);
    }
    expect(sandbox.requests.count(POSTS)).toBe(0);

    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(heading, { timeout: 10_000 }).toBe('Confirmed');
    await page.screenshot({ path: `${shots}/confirmed.png`, fullPage: true });
    const sent = await call;
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(sandbox.requests.count(POSTS)).toBe(1);
    expect(sandbox.payments()).toEqual([expect.objectContaining({ kind: 'transfer', amount: 45_000, idempotencyKey: sent.structuredContent!.idempotency_key })]);
  });

  it('Decline: nothing is sent', async () => {
    const { sandbox, call, url } = await waiting();
    await page.goto(url);
    await page.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(heading, { timeout: 10_000 }).toBe('Declined');
    expect(textOf(await call)).toMatch(/^NotConfirmed: The person declined on the confirmation page/);
    expect(sandbox.requests.count(POSTS)).toBe(0);
  });

  it('the same link again: open in two tabs, confirmed in one, the other decides nothing', async () => {
    const { sandbox, call, url } = await waiting();
    const second = await context.newPage();
    await page.goto(url);
    await second.goto(url);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(heading, { timeout: 10_000 }).toBe('Confirmed');
    await call;
    await second.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => second.locator('h1').innerText(), { timeout: 10_000 }).toBe('Already confirmed');
    await page.goto(url);
    expect(await heading()).toBe('Already confirmed');
    expect(await page.getByRole('button', { name: 'Confirm' }).count()).toBe(0);
    expect(sandbox.requests.count(POSTS)).toBe(1);
  });

  it('a link past 5 minutes (the server\'s clock moved on) decides nothing', async () => {
    let clock = Date.parse('2026-11-27T09:00:00Z');
    const { sandbox, call, url } = await waiting({ now: () => clock });
    await page.goto(url);
    clock += 5 * 60_000;
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(heading, { timeout: 10_000 }).toBe('This link has expired');
    expect(textOf(await call)).toMatch(/^NotConfirmed: The confirmation page expired/);
    expect(sandbox.requests.count(POSTS)).toBe(0);
  });

  it('a GET never decides, whatever it carries', async () => {
    const { sandbox, call, url } = await waiting();
    const token = new URL(url).pathname.split('/').pop()!;
    for (const query of ['', `?decision=confirm&token=${token}`, `?token=${token}&decision=confirm&passphrase=x`]) {
      await page.goto(`${url}${query}`);
      expect(await heading()).toMatch(/^Confirm transfers_create/);
    }
    expect(sandbox.requests.count(POSTS)).toBe(0);
    await page.getByRole('button', { name: 'Decline' }).click();
    await call;
    expect(sandbox.requests.count(POSTS)).toBe(0);
  });

  it('a POST from another origin is refused: nothing decided, nothing sent', async () => {
    const { sandbox, call, url } = await waiting();
    const token = new URL(url).pathname.split('/').pop()!;
    foreignHtml = `<!doctype html><form method="post" action="${url}"><input type="hidden" name="token" value="${token}"><button name="decision" value="confirm">Win a prize</button></form>`;
    await page.goto(foreignOrigin);
    await page.getByRole('button', { name: 'Win a prize' }).click();
    await expect.poll(heading, { timeout: 10_000 }).toBe('Refused');
    expect(await page.locator('main').innerText()).toContain('Nothing was decided');
    // The link still waits for the person.
    await page.goto(url);
    expect(await page.getByRole('button', { name: 'Confirm' }).count()).toBe(1);
    expect(sandbox.requests.count(POSTS)).toBe(0);
    await page.getByRole('button', { name: 'Decline' }).click();
    await call;
  });

  it("a POST without the page's token is refused: nothing decided, nothing sent", async () => {
    const { sandbox, call, url } = await waiting();
    await page.goto(url);
    await page.route(url, (route) => (route.request().method() === 'POST' ? route.continue({ postData: 'decision=confirm' }) : route.continue()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(heading, { timeout: 10_000 }).toBe('Refused');
    expect(await page.locator('main').innerText()).toContain('did not carry this page’s token');
    expect(sandbox.requests.count(POSTS)).toBe(0);
    await page.unroute(url);
    await page.goto(url);
    await page.getByRole('button', { name: 'Decline' }).click();
    await call;
  });

  it('a wrong passphrase decides nothing; the right one confirms', async () => {
    const { sandbox, call, url } = await waiting({ confirmSecret: SECRET });
    await page.goto(url);
    await page.getByLabel('Passphrase').fill('correct horse');
    await page.screenshot({ path: `${shots}/passphrase.png`, fullPage: true });
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: 10_000 }).toBe('Wrong passphrase: nothing was decided. 4 tries left before this link ends.');
    expect(sandbox.requests.count(POSTS)).toBe(0);
    await page.getByLabel('Passphrase').fill(SECRET);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(heading, { timeout: 10_000 }).toBe('Confirmed');
    expect((await call).isError).toBeFalsy();
    expect(sandbox.requests.count(POSTS)).toBe(1);
  });

  it('runs no script (an injected one is blocked by its policy) and cannot be framed', async () => {
    const { sandbox, call, url } = await waiting({}, { ...RENT, narration: '<img src=x onerror="document.title=1">' });
    const blocked: string[] = [];
    page.on('console', (message) => blocked.push(message.text()));
    await page.goto(url);
    expect(await page.locator('dd').filter({ hasText: '<img src=x onerror=' }).count()).toBe(1);
    expect(await page.locator('img').count()).toBe(0);
    await page.addScriptTag({ content: 'document.body.dataset.ran = "yes"' }).catch(() => undefined);
    expect(await page.locator('body').getAttribute('data-ran')).toBeNull();
    expect(blocked.join('\n')).toMatch(/Content Security Policy/);

    foreignHtml = `<!doctype html><iframe id="frame" src="${url}" width="400" height="600"></iframe>`;
    await page.goto(foreignOrigin);
    const frame = await (await page.locator('#frame').elementHandle())!.contentFrame();
    await frame!.waitForLoadState();
    // Chromium refuses to render it there (frame-ancestors 'none'): the frame holds its own error page.
    const framed = await frame!.content();
    expect(framed).not.toContain('₦45,000.00');
    expect(framed).not.toContain('Confirm');
    expect(sandbox.requests.count(POSTS)).toBe(0);
    await page.goto(url);
    await page.getByRole('button', { name: 'Decline' }).click();
    await call;
  });

  it('no elicitation, the command over stdio with a v1 client: the link reaches the operator only; approved, the same call sends once', async () => {
    const provider = await startSandboxServer({ clients: [APP], seed: 'confirm-page' });
    try {
      const tokens = provider.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' });
      const dir = `${shots}/tokens`;
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${dir}/tokens.json`, JSON.stringify(tokens));
      const env = { PATH: process.env.PATH ?? '', OB_CLIENT_ID: APP.clientId, OB_CLIENT_SECRET: APP.clientSecret, OB_BASE_URL: provider.baseUrl, OB_AUTH_URL: provider.authUrl, OB_CUSTOMER_TOKENS: `${dir}/tokens.json` };
      const transport = new StdioClientTransportV1({ command: process.execPath, args: [bin.path, '--allow', 'transfers.create', '--max-amount', '50000', '--daily-amount', '60000', '--ledger', 'memory'], env, stderr: 'pipe' });
      let stderr = '';
      transport.stderr!.on('data', (chunk) => (stderr += chunk));
      const client = new ClientV1({ name: 'no-elicitation', version: '1.0.0' }, { capabilities: {} });
      await client.connect(transport);
      try {
        const args = { ...RENT, idempotency_key: 'rent-june-3b' };
        const refused = (await client.callTool({ name: 'transfers_create', arguments: args })) as { isError?: boolean; content: { text?: string }[] };
        expect(refused.isError).toBe(true);
        await expect.poll(() => /Open this link .*(http:\/\/127\.0\.0\.1:\d+\/confirm\/[A-Za-z0-9_-]{43})/.exec(stderr)?.[1], { timeout: 10_000 }).toBeTruthy();
        const url = /(http:\/\/127\.0\.0\.1:\d+\/confirm\/[A-Za-z0-9_-]{43})/.exec(stderr)![1]!;
        const said = JSON.stringify(refused);
        expect(said).not.toContain(url);
        expect(said).not.toContain(new URL(url).pathname.split('/').pop());
        expect(said).not.toMatch(/https?:\/\//);
        expect(said).toContain('idempotency_key \\"rent-june-3b\\"');
        await page.goto(url);
        expect(await page.locator('.amount').innerText()).toBe('₦45,000.00');
        await page.getByRole('button', { name: 'Confirm' }).click();
        await expect.poll(heading, { timeout: 10_000 }).toBe('Confirmed');
        expect(await page.locator('.outcome').innerText()).toContain('It is sent when the agent calls transfers_create again with the same idempotency key');
        expect(provider.requests.count(POSTS)).toBe(0);
        const sent = (await client.callTool({ name: 'transfers_create', arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
        expect(sent.isError).toBeFalsy();
        expect(sent.structuredContent).toMatchObject({ idempotency_key: 'rent-june-3b' });
        expect(provider.payments()).toEqual([expect.objectContaining({ amount: 45_000, idempotencyKey: 'rent-june-3b' })]);
        expect(provider.requests.count(POSTS)).toBe(1);
      } finally {
        await client.close();
      }
    } finally {
      await provider.close();
    }
  });
});
