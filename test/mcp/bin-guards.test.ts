import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from '../../src/bin/mcp-http.js';
import { createMcpServerFactory } from '../../src/mcp.js';
import { type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { startRedis, type TestRedis } from '../fleet/support.js';
import { run, useBin, useHttpServers } from './bin-support.js';
import { ALL_SCOPES, APP, bank, textOf, TRANSFER } from './support.js';

// DESIGN "Agents", rows "HTTP", "limits" (the day's total outlives the process) and "read-only by
// default" (errors an operator and an agent can act on), for the command as it ships.
const bin = useBin('guards');
const serve = useHttpServers(bin);
const POSTS = { path: '/openapi/v1/transactions/transfer', method: 'POST' } as const;
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let server: SandboxServer;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startSandboxServer({ clients: [APP], seed: 'mcp-guards' });
  dir = mkdtempSync(join(tmpdir(), 'openbanking-ng-mcp-guards-'));
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify(server.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' })));
  env = { OB_CLIENT_ID: APP.clientId, OB_CLIENT_SECRET: APP.clientSecret, OB_BASE_URL: server.baseUrl, OB_AUTH_URL: server.authUrl, OB_CUSTOMER_TOKENS: join(dir, 'tokens.json') };
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--http: any local process is a stranger', () => {
  it('without OB_MCP_TOKEN it refuses to start when a write, instrument or money tool is listed, or for a real customer', async () => {
    for (const [args, extra, why] of [
      [['--allow', 'transfers.create', '--max-amount', '100', '--daily-amount', '100', '--ledger', 'memory'], {}, /a write, instrument or money tool is allowed/],
      [['--allow', 'writes'], {}, /a write, instrument or money tool is allowed/],
      [['--allow', 'cards.create'], {}, /a write, instrument or money tool is allowed/],
      [[], env, /acts for a real customer/],
    ] as const) {
      const refused = await run(bin.path, ['--http', '--port', '0', ...args], extra);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(/--http needs OB_MCP_TOKEN here, because/);
      expect(refused.stderr).toMatch(why);
    }
    // Reads of the built-in sandbox's demo customer need none on loopback.
    expect(new URL(await serve([])).hostname).toBe('127.0.0.1');
  });

  it('with a token, the Host and Origin checks still apply; a request without the token is a 401 with WWW-Authenticate: Bearer', async () => {
    const token = 'mcp-token-SENTINEL-40aa';
    const url = new URL(await serve(['--allow', 'transfers.create', '--max-amount', '100', '--daily-amount', '100', '--ledger', 'memory'], { ...env, OB_MCP_TOKEN: token }));
    const auth = { authorization: `Bearer ${token}` };
    // node:http, since fetch may not set Host.
    const post = (headers: Record<string, string>) =>
      new Promise<{ status: number; headers: { get(name: string): string | undefined } }>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { ...HEADERS, ...headers } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, headers: { get: (name) => res.headers[name] as string | undefined } });
        });
        req.once('error', reject);
        req.end(INIT);
      });
    expect((await post({ ...auth, host: `evil.example:${url.port}` })).status).toBe(403);
    expect((await post({ ...auth, origin: 'http://evil.example' })).status).toBe(403);
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post({ ...auth, origin: `http://127.0.0.1:${url.port}` })).status).toBe(200);
    expect(server.requests.count(POSTS)).toBe(0);
  });
});

describe('--http sessions are capped and expire', () => {
  it('at most maxSessions at once, the longest idle closed first; one idle past its limit is closed', async () => {
    const { ob, session } = bank();
    let now = 0;
    const endpoint = await serveHttp(createMcpServerFactory(ob, { customer: session }), { host: '127.0.0.1', port: 0, token: undefined, maxSessions: 3, sessionIdleMs: 30 * 60_000, now: () => now });
    const clients: ClientV1[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        now += 1_000;
        const client = new ClientV1({ name: `c${i}`, version: '1' });
        await client.connect(new StreamableHTTPClientTransportV1(new URL(endpoint.url)));
        clients.push(client);
      }
      // The fourth session closed the first, the longest idle.
      await expect(clients[0]!.listTools()).rejects.toThrow(/Session not found|404/);
      expect((await clients[3]!.listTools()).tools.length).toBeGreaterThan(0);
      now += 30 * 60_000 + 1;
      await expect(clients[1]!.listTools()).rejects.toThrow(/Session not found|404/);
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      await endpoint.close();
    }
  });
});

describe("the day's total outlives the process", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  const LIMITS = ['--max-amount', '50000', '--daily-amount', '100000'];

  it('money tools need --redis or --ledger memory: without either, exit 1 naming both', async () => {
    const refused = await run(bin.path, ['--allow', 'transfers.create', ...LIMITS], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/need a durable ledger/);
    expect(refused.stderr).toMatch(/--redis URL/);
    expect(refused.stderr).toMatch(/--ledger memory/);
  });

  it('with --redis, a restart does not start the day again', async () => {
    server.reset();
    writeFileSync(join(dir, 'tokens.json'), JSON.stringify(server.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' })));
    const agent = async () => {
      const client = new Client({ name: 'ledger', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin.path, '--allow', 'transfers.create', ...LIMITS, '--redis', redis.url], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' }));
      return client;
    };
    const first = await agent();
    for (let i = 0; i < 2; i++) {
      const sent = await first.callTool({ name: 'transfers_create', arguments: { ...TRANSFER, amount: 50_000 } });
      expect(sent.isError, textOf(sent as never)).toBeFalsy();
    }
    await first.close();
    const restarted = await agent();
    const refused = await restarted.callTool({ name: 'transfers_create', arguments: { ...TRANSFER, amount: 50_000 } });
    expect(textOf(refused as never)).toMatch(/daily limit \(limits\.perDay\) of 100000 NGN \(100000 NGN already sent\)/);
    await restarted.close();
    expect(server.payments()).toHaveLength(2);
  });
});

describe('errors an operator and an agent can act on', () => {
  it('an unknown --allow name lists the names and the closest one; --max-amount alone names --daily-amount', async () => {
    const unknown = await run(bin.path, ['--allow', 'transfers.send']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--allow transfers\.send: is not an operation name or 'writes' \(did you mean 'transfers\.create'\?\); allow takes: .*bills\.pay.*cards\.create.*writes/);
    const alone = await run(bin.path, ['--max-amount', '100']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toMatch(/--daily-amount/);
    expect(alone.stderr).not.toMatch(/\(\)/);
  });

  it('calling a tool the operator did not list says which --allow name lists it', async () => {
    const client = new Client({ name: 'reads', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin.path], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' }));
    try {
      const refused = await client.callTool({ name: 'transfers_create', arguments: TRANSFER });
      expect(refused.isError).toBe(true);
      expect(textOf(refused as never)).toMatch(/^NotAllowed: transfers_create is not enabled on this server, so nothing was sent\. The operator enables it with allow: \['transfers\.create'\] \(openbanking-ng-mcp --allow transfers\.create\)/);
    } finally {
      await client.close();
    }
  });
});
