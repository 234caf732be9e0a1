import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { run as runBin, useBin } from './bin-support.js';
import { person, tokenOf } from './page-support.js';
import { ALL_SCOPES, APP, textOf, TRANSFER } from './support.js';

// The command's confirmation page (DESIGN "Agents", row "confirmation"): --confirm page,
// OB_MCP_CONFIRM_SECRET, --open and, over --http, the page on the same server (under --public-url
// behind a proxy); against a sandbox on 127.0.0.1 whose counters say what was sent.
const bin = useBin('bin-page');
const MONEY = ['--allow', 'transfers.create', '--max-amount', '50000', '--daily-amount', '60000', '--ledger', 'memory'];
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;
const SECRET = 'operator-passphrase-SENTINEL-4d1';
const LINK = /(http:\/\/127\.0\.0\.1:\d+\/confirm\/[A-Za-z0-9_-]{43})/;

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

describe('openbanking-ng-mcp and its confirmation page', () => {
  let server: SandboxServer;
  let env: Record<string, string>;
  let dir: string;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    server = await startSandboxServer({ clients: [APP], seed: 'mcp-bin-page' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    dir = mkdtempSync(join(tmpdir(), 'openbanking-ng-mcp-page-'));
    writeFileSync(join(dir, 'tokens.json'), JSON.stringify(server.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' })));
    env = { PATH: process.env.PATH ?? '', OB_CLIENT_ID: APP.clientId, OB_CLIENT_SECRET: APP.clientSecret, OB_BASE_URL: server.baseUrl, OB_AUTH_URL: server.authUrl, OB_CUSTOMER_TOKENS: join(dir, 'tokens.json') };
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The command over stdio with the v2 client declaring `elicitation`; its stderr as it comes. */
  async function overStdio(args: string[], elicitation: 'form' | 'url' | undefined, extraEnv: Record<string, string> = {}) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin.path, ...MONEY, ...args], env: { ...env, ...extraEnv }, stderr: 'pipe' });
    const log = { stderr: '' };
    transport.stderr!.on('data', (chunk) => (log.stderr += chunk));
    const asked: { mode?: string; url?: string; message: string }[] = [];
    const client = new Client({ name: 'bin-page', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: { [elicitation]: {} } } : {} });
    if (elicitation) client.setRequestHandler('elicitation/create', async (r) => (asked.push(r.params as never), r.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { confirm: true } }));
    await client.connect(transport);
    const call = (a: Record<string, unknown>) => client.callTool({ name: 'transfers_create', arguments: a }, { timeout: 60_000 }) as Promise<Result>;
    return { client, log, asked, call, close: () => client.close() };
  }

  it('--confirm page: a client with only form elicitation is never shown the form; the link goes to stderr; approved, the same call sends once', async () => {
    const agent = await overStdio(['--confirm', 'page'], 'form');
    try {
      const args = { ...TRANSFER, idempotency_key: 'bin-page-1' };
      const refused = await agent.call(args);
      expect(textOf(refused)).toMatch(/^NotConfirmed: The person must approve this request outside the chat/);
      await expect.poll(() => LINK.exec(agent.log.stderr)?.[1], { timeout: 10_000 }).toBeTruthy();
      const url = LINK.exec(agent.log.stderr)![1]!;
      expect(JSON.stringify(refused)).not.toContain(tokenOf(url));
      expect(agent.log.stderr).toMatch(/each confirmed by the person on its page/);
      await person.answer(url, { token: tokenOf(url), decision: 'confirm' });
      const sent = await agent.call(args);
      expect(sent.isError, textOf(sent)).toBeFalsy();
      expect(agent.asked).toEqual([]);
      expect(server.payments().map((p) => p.idempotencyKey)).toEqual(['bin-page-1']);
    } finally {
      await agent.close();
    }
  });

  it('OB_MCP_CONFIRM_SECRET: the page asks for it, a wrong one decides nothing, and no client ever sees it', async () => {
    const agent = await overStdio([], 'url', { OB_MCP_CONFIRM_SECRET: SECRET });
    try {
      const call = agent.call(TRANSFER);
      await expect.poll(() => agent.asked.length, { timeout: 10_000 }).toBe(1);
      const url = agent.asked[0]!.url!;
      expect(url).toMatch(LINK);
      expect((await person.read(url)).html).toContain('name="passphrase"');
      expect((await person.answer(url, { token: tokenOf(url), decision: 'confirm', passphrase: 'not-the-passphrase' })).status).toBe(403);
      expect(server.requests.count(POSTS)).toBe(0);
      expect((await person.answer(url, { token: tokenOf(url), decision: 'confirm', passphrase: SECRET })).status).toBe(200);
      const sent = await call;
      expect(sent.isError, textOf(sent)).toBeFalsy();
      expect(server.requests.count(POSTS)).toBe(1);
      const seen = JSON.stringify([sent, agent.asked, agent.client.getInstructions(), (await agent.client.listTools()).tools]);
      expect(seen).not.toContain(SECRET);
      expect(agent.log.stderr).not.toContain(SECRET);
    } finally {
      await agent.close();
    }
  });

  it('--open hands the operator link to the default browser too', async () => {
    const fake = mkdtempSync(join(tmpdir(), 'openbanking-ng-mcp-open-'));
    try {
      const opened = join(fake, 'opened.txt');
      writeFileSync(join(fake, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
      chmodSync(join(fake, 'xdg-open'), 0o755);
      const agent = await overStdio(['--open'], undefined, { PATH: `${fake}:${env.PATH}` });
      try {
        await agent.call(TRANSFER);
        const read = () => (existsSync(opened) ? readFileSync(opened, 'utf8') : '');
        await expect.poll(read, { timeout: 10_000 }).toMatch(LINK);
        expect(readFileSync(opened, 'utf8').trim()).toBe(LINK.exec(agent.log.stderr)![1]);
      } finally {
        await agent.close();
      }
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });

  /** `--http` on a free port; resolves with its /mcp URL and its stderr so far. */
  function serve(args: string[], extraEnv: Record<string, string>): Promise<{ url: URL; log: { stderr: string } }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin.path, '--http', '--port', '0', ...MONEY, ...args], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      const log = { stderr: '' };
      child.stderr.on('data', (chunk) => {
        log.stderr += chunk;
        const url = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(log.stderr)?.[1];
        if (url) resolve({ url: new URL(url), log });
      });
      child.on('close', (code) => reject(new Error(`exited ${code}: ${log.stderr}`)));
    });
  }

  it('--http: the page is served by the same server, without the bearer token the MCP endpoint needs', async () => {
    const token = 'mcp-token-SENTINEL-77aa';
    const { url } = await serve([], { OB_MCP_TOKEN: token });
    const links: string[] = [];
    const client = new Client({ name: 'bin-page-http', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('elicitation/create', async (r) => (links.push(String((r.params as { url: string }).url)), { action: 'accept' }));
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const call = client.callTool({ name: 'transfers_create', arguments: TRANSFER }) as Promise<Result>;
      await expect.poll(() => links.length, { timeout: 10_000 }).toBe(1);
      expect(links[0]).toMatch(new RegExp(`^${url.origin}/confirm/[A-Za-z0-9_-]{43}$`));
      expect((await person.answer(links[0]!, { token: tokenOf(links[0]!), decision: 'confirm' }, { origin: 'http://localhost:1' })).status).toBe(403);
      expect((await person.answer(links[0]!, { token: tokenOf(links[0]!), decision: 'confirm' })).status).toBe(200);
      const sent = await call;
      expect(sent.isError, textOf(sent)).toBeFalsy();
      expect(server.payments()).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('--http --public-url: links name the public URL; the page answers there through the proxy, its Origin is the public one', async () => {
    const token = 'mcp-token-SENTINEL-9f30';
    const { url, log } = await serve(['--public-url', 'https://agent.example.com/bank/'], { OB_MCP_TOKEN: token });
    // A 2025-era client over HTTP without elicitation: the link goes to the operator.
    const client = new Client({ name: 'bin-page-public', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const args = { ...TRANSFER, idempotency_key: 'bin-page-public' };
      expect((await client.callTool({ name: 'transfers_create', arguments: args })).isError).toBe(true);
      await expect.poll(() => /(https:\/\/agent\.example\.com\/bank\/confirm\/[A-Za-z0-9_-]{43})/.exec(log.stderr)?.[1], { timeout: 10_000 }).toBeTruthy();
      const link = /(https:\/\/agent\.example\.com\/bank\/confirm\/[A-Za-z0-9_-]{43})/.exec(log.stderr)![1]!;
      // What the proxy forwards: the public Host and the public Origin, to the same path.
      const forward = (origin: string) =>
        new Promise<number>((resolve, reject) => {
          const body = new URLSearchParams({ token: tokenOf(link), decision: 'confirm' }).toString();
          const headers = { host: 'agent.example.com', origin, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) };
          request(`${url.origin}/bank/confirm/${tokenOf(link)}`, { method: 'POST', headers }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject).end(body);
        });
      expect(await forward(url.origin)).toBe(403);
      expect(await forward('https://agent.example.com')).toBe(200);
      expect((await client.callTool({ name: 'transfers_create', arguments: args })).isError).toBeFalsy();
      expect(server.payments().map((p) => p.idempotencyKey)).toEqual(['bin-page-public']);
    } finally {
      await client.close();
    }
  });

  it('refuses what it cannot do: --confirm other than page, --public-url without --http or not http(s), a short passphrase', async () => {
    for (const args of [['--confirm', 'form'], ['--public-url', 'https://agent.example.com'], ['--http', '--public-url', 'ftp://agent.example.com']]) {
      const refused = await runBin(bin.path, args, env);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(/--confirm takes only page|--public-url takes/);
    }
    const short = await runBin(bin.path, MONEY, { ...env, OB_MCP_CONFIRM_SECRET: 'short' });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/OB_MCP_CONFIRM_SECRET: must be a passphrase of at least 8 characters/);
    expect(short.stderr).not.toContain('confirmSecret');
    expect(server.requests.count()).toBe(0);
  });
});
