// The MCP server under test, driven by the official MCP clients of both lines: v2
// (@modelcontextprotocol/client) over an in-memory pair (2025-era) and in process over Streamable
// HTTP (2026-07-28), and v1 (@modelcontextprotocol/sdk) over its in-memory pair; against the local
// sandbox in process, whose counters say what was sent.
import { Client, StreamableHTTPClientTransport, InMemoryTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type ClientOptions, type CustomerSessionOptions, OPERATION_SCOPES, OpenBanking } from '../../src/index.js';
import { createMcpServerFactory, type McpServerOptions } from '../../src/mcp.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/testing.js';

export const APP = { clientId: 'mcp-app', clientSecret: 'mcp-app-secret-SENTINEL-5f2a' };
export const ALL_SCOPES = [...new Set(Object.values(OPERATION_SCOPES).flat())].sort();
export const TRANSFER = { amount: 5_000, source_account_number: '0123456789', destination_bank_code: '000013', destination_account_number: '0987654321', narration: 'Rent for June' };

/** The sandbox, a client on it that never sleeps, and a consented customer session. */
export function bank(options: { client?: Partial<ClientOptions>; sandbox?: SandboxOptions; session?: CustomerSessionOptions } = {}) {
  const sandbox = createSandbox({ clients: [APP], seed: 'mcp', ...options.sandbox });
  const client = (extra: Partial<ClientOptions> = {}) =>
    new OpenBanking({ ...APP, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logLevel: 'off', retryDelay: 0, sleep: async () => {}, ...options.client, ...extra });
  const ob = client();
  const tokens = sandbox.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' });
  const session = ob.forCustomer(tokens, { id: 'customer-42', ...options.session });
  return { sandbox, ob, client, tokens, session };
}

/** API requests the sandbox received (token requests excluded). */
export const apiCalls = (sandbox: Sandbox, method?: string) => sandbox.requests.count(method ? { path: /^\/openapi\/v1\//, method } : /^\/openapi\/v1\//);

/** How the person answers a confirmation; `'none'`: the client cannot ask (no elicitation capability). */
export type Answer = 'accept' | 'decline' | 'cancel' | 'untick' | 'none';

/** What a connected client did and can do, whichever line it comes from. */
export interface Agent {
  line: string;
  /** The confirmations the person was shown (their messages). */
  asked: string[];
  listTools(): Promise<{ name: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown>; annotations?: Record<string, unknown>; description?: string }[]>;
  call(name: string, args?: Record<string, unknown>): Promise<{ isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> }>;
  close(): Promise<void>;
}

function answer(kind: Exclude<Answer, 'none'>) {
  if (kind === 'accept') return { action: 'accept' as const, content: { confirm: true } };
  if (kind === 'untick') return { action: 'accept' as const, content: { confirm: false } };
  return { action: kind };
}

/** The v2 client (2025-era handshake) over an in-memory pair with `server`. */
export async function v2(server: McpServer, elicit: Answer = 'accept'): Promise<Agent> {
  const asked: string[] = [];
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { capabilities: elicit !== 'none' ? { elicitation: { form: {} } } : {} });
  if (elicit !== 'none') client.setRequestHandler('elicitation/create', async (request) => (asked.push(String(request.params.message)), answer(elicit)));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return wrap('v2', client, asked, () => client.close());
}

/** The v2 client pinned to protocol 2026-07-28, over Streamable HTTP served in process by `createMcpHandler`. */
export async function v2Modern(factory: () => McpServer, elicit: Answer = 'accept'): Promise<Agent> {
  const asked: string[] = [];
  const handler = createMcpHandler(factory);
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { capabilities: elicit !== 'none' ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  if (elicit !== 'none') client.setRequestHandler('elicitation/create', async (request) => (asked.push(String(request.params.message)), answer(elicit)));
  await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
  if (client.getProtocolEra() !== 'modern') throw new Error('the v2 client did not negotiate 2026-07-28');
  return wrap('v2 (2026-07-28)', client, asked, async () => {
    await client.close();
    await handler.close();
  });
}

/** The v1 client (`@modelcontextprotocol/sdk`) over its in-memory pair with `server`. */
export async function v1(server: McpServer, elicit: Answer = 'accept'): Promise<Agent> {
  const asked: string[] = [];
  const client = new ClientV1({ name: 'test-agent-v1', version: '1.0.0' }, { capabilities: elicit !== 'none' ? { elicitation: {} } : {} });
  if (elicit !== 'none') client.setRequestHandler(ElicitRequestSchema, async (request) => (asked.push(String(request.params.message)), answer(elicit)));
  const [clientSide, serverSide] = InMemoryTransportV1.createLinkedPair();
  await server.connect(serverSide as never);
  await client.connect(clientSide);
  return wrap('v1', client as unknown as Client, asked, () => client.close());
}

function wrap(line: string, client: Client, asked: string[], close: () => Promise<void>): Agent {
  return {
    line,
    asked,
    listTools: async () => (await client.listTools()).tools as never,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as never,
    close,
  };
}

/** Connects one client of the given line to a server (or the servers of a factory) built from `ob` and `options`. */
export type Connect = (ob: OpenBanking, options: McpServerOptions, elicit?: Answer) => Promise<Agent>;

/** Every client line the server must work with: each test runs once per line. */
export const LINES: [string, Connect][] = [
  ['v2 client, in memory', (ob, options, elicit) => v2(createMcpServerFactory(ob, options)(), elicit)],
  ['v2 client, 2026-07-28 over HTTP', (ob, options, elicit) => v2Modern(createMcpServerFactory(ob, options), elicit)],
  ['v1 client, in memory', (ob, options, elicit) => v1(createMcpServerFactory(ob, options)(), elicit)],
];

/** The text of a tool result. */
export const textOf = (result: { content: { type: string; text?: string }[] }) => result.content.map((c) => c.text ?? '').join('\n');
