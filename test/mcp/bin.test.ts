import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run as runBin, useBin, useHttpServers } from './bin-support.js';
import { type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { ALL_SCOPES, APP, textOf, TRANSFER } from './support.js';

// The command as it ships: built with the package's tsup config (its entry alone), run as a child process, driven
// over stdio and Streamable HTTP by the official clients of both lines, against a sandbox on
// 127.0.0.1 whose counters say what was sent.
const bin = useBin('bin');
const MONEY = ['--allow', 'transfers.create', '--max-amount', '50000', '--daily-amount', '60000', '--ledger', 'memory'];
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;

interface Connected {
  call(name: string, args?: Record<string, unknown>): Promise<{ isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> }>;
  tools(): Promise<string[]>;
  asked: string[];
  close(): Promise<void>;
}

async function v2Client(transport: ConstructorParameters<typeof Client>[1] & object, connectTo: StdioClientTransport | StreamableHTTPClientTransport): Promise<Connected> {
  const asked: string[] = [];
  const client = new Client({ name: 'bin-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, ...transport });
  client.setRequestHandler('elicitation/create', async (request) => (asked.push(String(request.params.message)), { action: 'accept', content: { confirm: true } }));
  await client.connect(connectTo);
  return { asked, call: (name, args = {}) => client.callTool({ name, arguments: args }) as never, tools: async () => (await client.listTools()).tools.map((t) => t.name), close: () => client.close() };
}

async function v1Client(connectTo: StdioClientTransportV1 | StreamableHTTPClientTransportV1): Promise<Connected> {
  const asked: string[] = [];
  const client = new ClientV1({ name: 'bin-test-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => (asked.push(String(request.params.message)), { action: 'accept', content: { confirm: true } }));
  await client.connect(connectTo);
  return { asked, call: (name, args = {}) => client.callTool({ name, arguments: args }) as never, tools: async () => (await client.listTools()).tools.map((t) => t.name), close: () => client.close() };
}

describe('openbanking-ng-mcp over stdio, against a sandbox on 127.0.0.1', () => {
  let server: SandboxServer;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    server = await startSandboxServer({ clients: [APP], seed: 'mcp-bin' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    dir = mkdtempSync(join(tmpdir(), 'openbanking-ng-mcp-'));
    const tokens = server.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' });
    writeFileSync(join(dir, 'tokens.json'), JSON.stringify(tokens));
    env = { OB_CLIENT_ID: APP.clientId, OB_CLIENT_SECRET: APP.clientSecret, OB_BASE_URL: server.baseUrl, OB_AUTH_URL: server.authUrl, OB_CUSTOMER_TOKENS: join(dir, 'tokens.json') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const lines: [string, () => Promise<Connected>][] = [
    ['v2 client', () => v2Client({}, new StdioClientTransport({ command: process.execPath, args: [bin.path, ...MONEY], env, stderr: 'pipe' }))],
    ['v2 client on 2026-07-28', () => v2Client({ versionNegotiation: { mode: { pin: '2026-07-28' } } }, new StdioClientTransport({ command: process.execPath, args: [bin.path, ...MONEY], env, stderr: 'pipe' }))],
    ['v1 client', () => v1Client(new StdioClientTransportV1({ command: process.execPath, args: [bin.path, ...MONEY], env, stderr: 'pipe' }))],
  ];
  for (const [line, open] of lines) {
    it(`${line}: lists, reads, sends a confirmed transfer once, refuses one over the limit unsent`, async () => {
      const agent = await open();
      try {
        expect(await agent.tools()).toEqual(expect.arrayContaining(['accounts_list', 'transfers_create', 'transfers_wait']));
        expect((await agent.call('accounts_list')).structuredContent).toMatchObject({ accounts: expect.any(Array) });
        const sent = await agent.call('transfers_create', TRANSFER);
        expect(sent.isError, textOf(sent)).toBeFalsy();
        expect(agent.asked).toHaveLength(1);
        const over = await agent.call('transfers_create', { ...TRANSFER, amount: 55_001 });
        expect(textOf(over)).toMatch(/^ValidationError: .*perCall/);
        expect(server.requests.count(POSTS)).toBe(1);
        expect(server.payments()).toHaveLength(1);
        expect(server.payments()[0]!.idempotencyKey).toBe(sent.structuredContent!.idempotency_key);
      } finally {
        await agent.close();
      }
    });
  }

  it('with no environment: the built-in sandbox and its consented demo customer, read-only', async () => {
    const agent = await v1Client(new StdioClientTransportV1({ command: process.execPath, args: [bin.path], env: {}, stderr: 'pipe' }));
    try {
      const tools = await agent.tools();
      expect(tools).toContain('customers_retrieve');
      expect(tools).not.toContain('transfers_create');
      expect((await agent.call('customers_retrieve')).structuredContent).toMatchObject({ customer_id: 'CUS-0001' });
    } finally {
      await agent.close();
    }
    expect(server.requests.count()).toBe(0);
  });

  it('money tools without both limits: exit 1, naming the flag; nothing served', async () => {
    const refused = await runBin(bin.path, ['--allow', 'transfers.create', '--max-amount', '100'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--daily-amount/);
    expect(refused.stderr).not.toContain(APP.clientSecret);
    expect((await runBin(bin.path, ['--allow', 'bills.pay,transfers.create'])).code).toBe(1);
    const production = await runBin(bin.path, [], { OB_CLIENT_ID: APP.clientId, OB_CLIENT_SECRET: APP.clientSecret, OB_ENVIRONMENT: 'production' });
    expect(production.code).toBe(1);
    expect(production.stderr).toMatch(/OB_BASE_URL and OB_AUTH_URL/);
    expect((await runBin(bin.path, ['--bogus'])).code).toBe(2);
    expect(server.requests.count()).toBe(0);
  });

  it('without @modelcontextprotocol/server installed: exit 1 with the line to install it', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'openbanking-ng-mcp-bare-'));
    try {
      cpSync(bin.out, bare, { recursive: true });
      const missing = await runBin(join(bare, 'bin', 'openbanking-ng-mcp.js'), []);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^\s*npm install @modelcontextprotocol\/server$/m);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe('openbanking-ng-mcp --http', () => {
  const serve = useHttpServers(bin);

  it('serves both client lines on 127.0.0.1; money tools ask the person over HTTP too', async () => {
    const token = 'mcp-token-SENTINEL-2c7e';
    const url = new URL(await serve(MONEY, { OB_MCP_TOKEN: token }));
    expect(url.hostname).toBe('127.0.0.1');
    const requestInit = { headers: { authorization: `Bearer ${token}` } };
    const modern = await v2Client({ versionNegotiation: { mode: { pin: '2026-07-28' } } }, new StreamableHTTPClientTransport(url, { requestInit }));
    const legacy = await v1Client(new StreamableHTTPClientTransportV1(url, { requestInit }));
    try {
      for (const agent of [modern, legacy]) {
        expect(await agent.tools()).toContain('transfers_create');
        expect((await agent.call('accounts_list')).isError).toBeFalsy();
        const sent = await agent.call('transfers_create', TRANSFER);
        expect(sent.isError, textOf(sent)).toBeFalsy();
        expect(agent.asked).toHaveLength(1);
      }
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });

  it('a host other than loopback needs OB_MCP_TOKEN (exit 1 without); with it set, every request needs the bearer token', async () => {
    const refused = await runBin(bin.path, ['--http', '--host', '0.0.0.0', '--port', '0']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/OB_MCP_TOKEN/);
    const token = 'mcp-token-SENTINEL-81bd';
    const url = new URL(await serve([], { OB_MCP_TOKEN: token }));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${token}`]) {
      const answer = await fetch(url, { method: 'POST', headers: { ...headers, ...(authorization ? { authorization } : {}) }, body });
      expect(answer.status, authorization).toBe(401);
      expect(await answer.text()).not.toContain(token);
    }
    const agent = await v2Client({}, new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      expect(await agent.tools()).toContain('accounts_list');
    } finally {
      await agent.close();
    }
  });
});
