// The confirmation page under test: MCP clients of both lines that declare URL elicitation (and
// hand the link to the "person"), and a person who reads and answers the page over HTTP as a
// browser would (the browser tests do it in Chromium).
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** How the client answers the URL elicitation: it opens the page (`accept`), or the person refuses. */
export type Opening = 'accept' | 'decline' | 'cancel';

/** A tool call's result, whichever line. */
export type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

/** A client that declares URL elicitation: each link it is given arrives in `links`. */
export interface UrlAgent {
  line: string;
  /** The links (and messages) of the URL elicitations, in order. */
  links: { url: string; message: string }[];
  /** Resolves with the next link given (or one already given and not yet awaited). */
  nextLink(): Promise<string>;
  /** Progress messages received for tool calls. */
  progress: string[];
  call(name: string, args: Record<string, unknown>): Promise<Result>;
  close(): Promise<void>;
}

function linkQueue() {
  const links: { url: string; message: string }[] = [];
  let taken = 0;
  const waiters: ((url: string) => void)[] = [];
  return {
    links,
    push(url: string, message: string) {
      links.push({ url, message });
      waiters.shift()?.(url);
    },
    next(): Promise<string> {
      if (taken < links.length) return Promise.resolve(links[taken++]!.url);
      return new Promise((resolve) => waiters.push((url) => (taken++, resolve(url))));
    },
  };
}

const callOptions = (progress: string[]) => ({ onprogress: (p: { message?: string }) => progress.push(String(p.message)), resetTimeoutOnProgress: true, timeout: 120_000 });

/** The v2 client over an in-memory pair (2025-era handshake), declaring URL elicitation. */
export async function v2Url(server: McpServer, opening: Opening = 'accept'): Promise<UrlAgent> {
  const queue = linkQueue();
  const progress: string[] = [];
  const client = new Client({ name: 'url-agent', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as { mode?: string; url?: string; message: string };
    if (params.mode === 'url') queue.push(params.url!, params.message);
    return { action: opening };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { line: 'v2', links: queue.links, nextLink: queue.next, progress, call: (name, args) => client.callTool({ name, arguments: args }, callOptions(progress)) as never, close: () => client.close() };
}

/** The v2 client on 2026-07-28 over Streamable HTTP served in process, declaring URL elicitation. */
export async function v2UrlModern(factory: () => McpServer, opening: Opening = 'accept'): Promise<UrlAgent> {
  const queue = linkQueue();
  const progress: string[] = [];
  const handler = createMcpHandler(factory);
  const client = new Client({ name: 'url-agent', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as { mode?: string; url?: string; message: string };
    if (params.mode === 'url') queue.push(params.url!, params.message);
    return { action: opening };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
  if (client.getProtocolEra() !== 'modern') throw new Error('the v2 client did not negotiate 2026-07-28');
  const close = async () => {
    await client.close();
    await handler.close();
  };
  return { line: 'v2 (2026-07-28)', links: queue.links, nextLink: queue.next, progress, call: (name, args) => client.callTool({ name, arguments: args }, callOptions(progress)) as never, close };
}

/** The v1 client over its in-memory pair, declaring URL elicitation. */
export async function v1Url(server: McpServer, opening: Opening = 'accept'): Promise<UrlAgent> {
  const queue = linkQueue();
  const progress: string[] = [];
  const client = new ClientV1({ name: 'url-agent-v1', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as { mode?: string; url?: string; message: string };
    if (params.mode === 'url') queue.push(params.url!, params.message);
    return { action: opening };
  });
  const [clientSide, serverSide] = InMemoryTransportV1.createLinkedPair();
  await server.connect(serverSide as never);
  await client.connect(clientSide);
  return { line: 'v1', links: queue.links, nextLink: queue.next, progress, call: (name, args) => client.callTool({ name, arguments: args }, undefined, callOptions(progress)) as never, close: () => client.close() };
}

/** The person at the page, over HTTP as a browser sends it (the page's own Origin unless told otherwise). */
export const person = {
  async read(url: string): Promise<{ status: number; html: string; text: string; headers: Headers }> {
    const response = await fetch(url);
    const html = await response.text();
    return { status: response.status, html, text: plain(html), headers: response.headers };
  },
  async answer(url: string, fields: Record<string, string>, options: { origin?: string | null; path?: string; type?: string } = {}): Promise<{ status: number; text: string }> {
    const target = options.path === undefined ? url : new URL(options.path, url).href;
    const origin = options.origin === undefined ? new URL(url).origin : options.origin;
    const headers: Record<string, string> = { 'content-type': options.type ?? 'application/x-www-form-urlencoded' };
    if (origin !== null) headers.origin = origin;
    const response = await fetch(target, { method: 'POST', headers, body: new URLSearchParams(fields).toString() });
    return { status: response.status, text: plain(await response.text()) };
  },
};

/** The token of a link: its last path segment. */
export const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

/** The text a person reads of an HTML page. */
export function plain(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/\s+/g, ' ')
    .trim();
}
