// A world for the agent's money invariants: the local sandbox behind a recording proxy that
// knows what the provider performed, one customer, MCP servers over a durable ledger (a fleet
// store that outlives restarts), and the official v2 client on 2026-07-28 in manual mode, so that
// a test can answer, forge and replay confirmations itself, as a hostile client would. The client
// declares form elicitation, URL elicitation or none (the channel); the confirmation page is
// answered in process, by the person or by the hostile client that holds a URL-mode link.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { MemoryFleetStore, OpenBanking } from '../../src/index.js';
import { type ConfirmationPage, createConfirmationPage, createMcpServerFactory, type McpServerOptions } from '../../src/mcp.js';
import { createSandbox, type Sandbox } from '../../src/testing.js';
import { ALL_SCOPES, APP } from './support.js';

/** What the proxy saw the provider perform: the first success (or answer lost after running) per key. */
export interface Performed {
  operation: string;
  key: string;
  body: Record<string, unknown>;
  path: string;
  /** The Lagos day on the servers' clock when it was performed. */
  day: string;
  /** For a charge: the mandate's beneficiary account at that moment. */
  beneficiary?: string;
}

/** A confirmation the server asked for. */
export interface Issued {
  tool: string;
  args: unknown;
  state: string;
  message: string;
  generation: number;
  answered: boolean;
  /** A URL-mode confirmation: the page's link. */
  url?: string;
}

/** How the client can ask the person: a form, the server's page through URL elicitation, or not at all. */
export type Channel = 'form' | 'url' | 'none';

/** A link of the confirmation page: given to the client (URL mode) or to the operator. */
export interface PageLink {
  url: string;
  tool: string;
  generation: number;
  /** A tool call waiting for the person's decision on it. */
  waiting?: Promise<unknown>;
  /** The URL-mode confirmation that gave it. */
  issued?: Issued;
  /** The call that had it given to the operator. */
  call?: { tool: string; args: unknown };
}

/** The origin the world's page is served at. */
export const PAGE_ORIGIN = 'http://page.test';

/** How the operations are recognised on the wire, by method and path. */
const MOVERS: [string, string, RegExp][] = [
  ['transfers.create', 'POST', /^\/openapi\/v1\/transactions\/transfer$/],
  ['bills.pay', 'POST', /^\/openapi\/v1\/bills\/[^/]+\/billers\/[^/]+\/reference\/[^/]+$/],
  ['directDebits.charge', 'POST', /^\/openapi\/v1\/direct-debits\/[^/]+$/],
  ['directDebits.create', 'POST', /^\/openapi\/v1\/direct-debits$/],
  ['directDebits.update', 'PATCH', /^\/openapi\/v1\/direct-debits\/[^/]+$/],
  ['accounts.holds.create', 'POST', /^\/openapi\/v1\/accounts\/[^/]+\/holds$/],
  ['accounts.holds.update', 'PATCH', /^\/openapi\/v1\/accounts\/[^/]+\/holds\/[^/]+$/],
  ['cards.create', 'POST', /^\/openapi\/v1\/cards$/],
];
export const MONEY = new Set(['transfers.create', 'bills.pay', 'directDebits.charge', 'accounts.holds.create']);
const MOVER_PATHS = /^\/openapi\/v1\/(transactions\/transfer|bills\/|direct-debits|accounts\/[^/]+\/holds|cards$)/;

const lagosDay = (ms: number) => new Date(ms + 3_600_000).toISOString().slice(0, 10);

/** The world of one sequence. */
export class World {
  readonly sandbox: Sandbox;
  readonly fleet = new MemoryFleetStore();
  readonly performed: Performed[] = [];
  readonly issued: Issued[] = [];
  /** The messages the person accepted, with their tool: each may cover one movement. */
  readonly accepted: { tool: string; message: string }[] = [];
  /** Requests to operations the server does not list. */
  readonly unlisted: string[] = [];
  now = Date.parse('2026-11-27T09:00:00Z');
  generation = 0;
  beneficiary = '0555666777';
  /** Every call the agent made of its own, to repeat. */
  readonly calls: { tool: string; args: unknown }[] = [];
  /** The page asks for the operator's passphrase. */
  secret = false;
  /** The page's links, in the order given. */
  readonly links: PageLink[] = [];
  /** Calls still running (waiting on the page). */
  readonly inflight = new Set<Promise<unknown>>();
  page: ConfirmationPage | undefined;
  #agent: { client: Client; close: () => Promise<void> } | undefined;
  readonly #options: Omit<McpServerOptions, 'customer' | 'now'>;
  readonly #listed: ReadonlySet<string>;

  constructor(
    seed: number,
    options: Omit<McpServerOptions, 'customer' | 'now'>,
    listed: readonly string[],
    readonly channel: Channel = 'form',
  ) {
    this.sandbox = createSandbox({ clients: [APP], seed: `agent-${seed}` });
    this.#options = options;
    this.#listed = new Set(listed);
  }

  /** The sandbox behind a proxy that records what it performed. */
  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    const mover = MOVER_PATHS.test(path) ? MOVERS.find(([, method, pattern]) => method === request.method && pattern.test(path)) : undefined;
    if (!mover) return this.sandbox(request);
    const [operation] = mover;
    if (!this.#listed.has(operation)) this.unlisted.push(operation);
    const body = JSON.parse(await request.clone().text()) as Record<string, unknown>;
    const key = request.headers.get('idempotency-key') ?? '';
    const beneficiary = this.beneficiary;
    const record = () => {
      if (this.performed.some((p) => p.key === key && p.operation === operation)) return;
      this.performed.push({ operation, key, body, path, day: lagosDay(this.now), ...(operation === 'directDebits.charge' ? { beneficiary } : {}) });
      if (operation === 'directDebits.update' && typeof body.destination_account === 'string') this.beneficiary = body.destination_account;
    };
    try {
      const response = await this.sandbox(request);
      if (response.ok) record();
      return response;
    } catch (error) {
      // The only connection faults the tests inject are answers lost after the request ran.
      record();
      throw error;
    }
  };

  /** (Re)starts the server process: a new client, session and MCP server over the same ledger; confirmations issued before are foreign now. */
  async restart(): Promise<void> {
    await this.#agent?.close();
    // The page lives in the process: its links end with it.
    await this.page?.close();
    this.generation += 1;
    const page = createConfirmationPage({ url: PAGE_ORIGIN });
    this.page = page;
    const generation = this.generation;
    const ob = new OpenBanking({ ...APP, baseUrl: this.sandbox.baseUrl, authUrl: this.sandbox.authUrl, fetch: this.fetch as typeof fetch, fleet: this.fleet, logLevel: 'off', retryDelay: 0, sleep: async () => {} });
    const tokens = this.sandbox.issueTokens({ clientId: APP.clientId, scope: ALL_SCOPES, kind: 'customer' });
    const customer = ob.forCustomer(tokens, { id: 'customer-42' });
    const onConfirmationLink = (link: { url: string; tool: string }) => void this.links.push({ url: link.url, tool: link.tool, generation });
    const handler = createMcpHandler(createMcpServerFactory(ob, { ...this.#options, customer, now: () => this.now, confirmPage: page, onConfirmationLink }));
    const elicitation = (this.channel === 'none' ? {} : { elicitation: this.channel === 'form' ? { form: {} } : { url: {} } }) as Record<string, object>;
    const client = new Client({ name: 'hostile-agent', version: '1.0.0' }, { capabilities: elicitation, versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
    this.#agent = {
      client,
      close: async () => {
        await client.close();
        await handler.close();
      },
    };
  }

  /** Ends the page (every waiting call answers), then the client. */
  async close(): Promise<void> {
    await this.page?.close();
    await Promise.allSettled([...this.inflight]);
    await this.#agent?.close();
  }

  /** Runs a call in the background: it waits on the page until a decision, the link's end or close(). */
  background(run: Promise<unknown>): Promise<unknown> {
    const settled = run.catch(() => undefined).finally(() => this.inflight.delete(settled));
    this.inflight.add(settled);
    return settled;
  }

  /** One request to the page, as a browser (or a client holding the link) sends it. */
  async visit(url: string, method: 'GET' | 'POST', fields: Record<string, string> = {}, origin: string | null = PAGE_ORIGIN): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
    if (origin !== null && method === 'POST') headers.origin = origin;
    const response = await this.page!.fetch(new Request(url, { method, headers, ...(method === 'POST' ? { body: new URLSearchParams(fields).toString() } : {}) }));
    const html = await response.text();
    const text = html.replace(/<style[\s\S]*?<\/style>/g, '').replace(/<[^>]+>/g, ' ').replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))).replace(/\s+/g, ' ');
    return { status: response.status, text };
  }

  /** One tools/call; an `input_required` answer is kept as an issued confirmation. */
  async call(tool: string, args: unknown, retry?: { inputResponses: unknown; requestState: string }): Promise<{ isError?: boolean; inputRequired?: Issued; text: string }> {
    const given = this.links.length;
    const answered = await this.#call(tool, args, retry);
    // A link this call had given to the operator: the agent is told to call again the same way.
    for (const link of this.links.slice(given)) if (!link.issued) link.call = { tool, args };
    return answered;
  }

  async #call(tool: string, args: unknown, retry?: { inputResponses: unknown; requestState: string }): Promise<{ isError?: boolean; inputRequired?: Issued; text: string }> {
    const params = { name: tool, arguments: args as Record<string, unknown>, ...(retry ?? {}) };
    let result: Record<string, unknown>;
    try {
      result = (await this.#agent!.client.callTool(params as never, { allowInputRequired: true } as never)) as Record<string, unknown>;
    } catch (error) {
      return { isError: true, text: `protocol: ${(error as Error).message}` };
    }
    if (result.resultType === 'input_required') {
      const request = (result.inputRequests as Record<string, { params: { message: string; mode?: string; url?: string } }>).confirm!;
      const url = request.params.mode === 'url' ? request.params.url : undefined;
      const issued: Issued = { tool, args, state: String(result.requestState), message: request.params.message, generation: this.generation, answered: false, ...(url ? { url } : {}) };
      this.issued.push(issued);
      if (url) this.links.push({ url, tool, generation: this.generation, issued });
      return { inputRequired: issued, text: issued.message };
    }
    const text = ((result.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('\n');
    return { isError: result.isError === true, text };
  }
}

/** A request state with one character of its signed body changed. */
export function forged(state: string): string {
  const [prefix, body, mac] = state.split('.');
  if (!body || !mac) return `${state}x`;
  const decoded = Buffer.from(body, 'base64url').toString('utf8').replace(/"input":"[0-9a-f]/, (m) => `${m.slice(0, -1)}${m.endsWith('0') ? '1' : '0'}`);
  return [prefix, Buffer.from(decoded).toString('base64url'), mac].join('.');
}

/** What must never happen, checked against what the provider performed. Returns the violations. */
export function violations(world: World, limits: { perCall: number; perDay: number }): string[] {
  const out: string[] = [];
  const money = world.performed.filter((p) => MONEY.has(p.operation));
  const days = new Map<string, number>();
  for (const p of money) {
    const amount = Number(p.body.amount);
    if (!(amount > 0) || amount > limits.perCall) out.push(`${p.operation} performed ${String(p.body.amount)}, outside (0, perCall]`);
    days.set(p.day, (days.get(p.day) ?? 0) + amount);
  }
  for (const [day, total] of days) if (total > limits.perDay + 1e-9) out.push(`performed ${total} on ${day}, over perDay ${limits.perDay}`);
  for (const p of world.performed.filter((m) => m.operation === 'directDebits.update' || m.operation === 'directDebits.create')) {
    if (Number(p.body.amount) > limits.perCall) out.push(`${p.operation} set a mandate amount of ${String(p.body.amount)}, over perCall`);
  }
  // Every movement and instrument change matches its own accepted confirmation, showing amount, currency and destination.
  const free = world.accepted.map((a) => ({ ...a, used: false }));
  for (const p of world.performed) {
    const shows = [...(p.body.amount !== undefined ? [`${String(p.body.amount)} NGN`] : []), ...destinationOf(p)];
    const match = free.find((a) => !a.used && a.tool === p.operation.replaceAll('.', '_') && shows.every((s) => a.message.includes(s)));
    if (p.body.currency !== undefined && p.body.currency !== 'NGN') out.push(`${p.operation} performed in ${String(p.body.currency)}`);
    if (match) match.used = true;
    else out.push(`${p.operation} ${JSON.stringify(p.body)} under ${p.key} matches no confirmation the person accepted`);
  }
  for (const name of world.unlisted) out.push(`a request for the unlisted ${name} reached the provider`);
  return out;
}

/** What a confirmation must show of where a movement goes. */
function destinationOf(p: Performed): string[] {
  const q = (v: unknown) => String(v);
  switch (p.operation) {
    case 'transfers.create':
      return [q(p.body.destination_account_number), q(p.body.destination_bank_code)];
    case 'bills.pay':
      return [q(decodeURIComponent(p.path.split('/')[6] ?? ''))];
    case 'directDebits.charge':
      return [q(p.beneficiary)];
    case 'directDebits.update':
    case 'directDebits.create':
      return p.body.destination_account === undefined ? [] : [q(p.body.destination_account)];
    case 'cards.create':
      return [q(p.body.account_number), q(p.body.card_holder_name)];
    default:
      return [q(decodeURIComponent(p.path.split('/')[4] ?? ''))];
  }
}
