import { type CallToolResult, type InputRequiredResult, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { type CustomerSession, type OpenBanking, type RequestOptions, type Scope, ValidationError } from '../index.js';
import { type JsonSchema, operations } from '../schemas.js';
import { asStandardSchema, isConfirmed, type OperationTool, operationTools, toolName } from './catalog.js';
import type { PageConfirm } from './channels.js';
import { type Confirmation, confirmationCodec } from './confirm.js';
import { CONNECT_OUTPUT, CustomerLink } from './connect.js';
import { PURPOSE } from './fields.js';
import { withoutAbsentNulls } from './inputs.js';
import { invoke, splitArguments } from './invoke.js';
import { Ledger } from './ledger.js';
import { type McpServerOptions, resolveMcpOptions, type ResolvedMcpOptions } from './options.js';
import { ToolRefusal, toolError, toolResult } from './results.js';
import { WAIT_INPUT, WAIT_TOOL, waitForTransfer } from './wait.js';
import { AttemptLog, runWrite } from './writes.js';
import type { RequestStateCodec } from '@modelcontextprotocol/server';
import { version } from '../../package.json';

/** What every server instance of one factory shares: the customer, the day totals, the confirmation key. */
interface AgentState {
  ob: OpenBanking;
  options: ResolvedMcpOptions;
  /** Every operation's tool; only those `listed` are listed and callable. */
  tools: OperationTool[];
  listed: ReadonlySet<string>;
  link: CustomerLink;
  ledger: Ledger;
  attempts: AttemptLog;
  codec: RequestStateCodec<Confirmation>;
  /** The confirmation page, the operator's passphrase, and where operator links go. */
  pages: PageConfirm;
}

/** One attempt log per client: its `request` events count what left the process, whichever server asks. */
const attemptLogs = new WeakMap<OpenBanking, AttemptLog>();

/** The scopes `connect_bank` asks consent for: those of the customer tools listed. */
function customerScopes(tools: readonly OperationTool[], listed: ReadonlySet<string>): Scope[] {
  const names = [...tools.filter((t) => listed.has(t.name) && t.token !== 'client').map((t) => t.operation), 'transfers.retrieve' as const];
  return [...new Set(names.flatMap((name) => operations[name].scopes))].sort();
}

function instructions(state: AgentState): string {
  const { limits, confirm } = state.options;
  const money = state.tools.filter((t) => state.listed.has(t.name) && t.kind === 'money').map((t) => t.name);
  const lines = ['Open Banking Nigeria for one customer, through the openbanking-ng client. Every tool is one API call; results mask card secrets.'];
  if (state.link.session === undefined) lines.push('No customer is connected yet: call connect_bank and give the person the address and code it returns.');
  if (money.length === 0) lines.push('Money movement is not enabled on this server.');
  else lines.push(`Money tools (${money.join(', ')}) stay within ${limits!.perCall} per call and ${limits!.perDay} per Lagos day${confirm !== 'none' ? ', and the person confirms each one' : ''}. Amounts are in naira (NGN) with at most two decimals.`);
  lines.push('To retry a write, repeat its idempotency_key with the same arguments; after a transfer, call transfers_wait rather than sending it again.');
  return lines.join(' ');
}

/** The session for a customer tool, the client for the rest (a `both` tool uses the customer when there is one). */
function targetFor(state: AgentState, tool: Pick<OperationTool, 'token'>): OpenBanking | CustomerSession {
  if (tool.token === 'customer') return state.link.require();
  if (tool.token === 'both') return state.link.session ?? state.ob;
  return state.ob;
}

/** The customer's tokens, masked in any text that would quote them. */
function secretsOf(state: AgentState): string[] {
  const tokens = state.link.session?.tokens;
  return [tokens?.access_token, tokens?.refresh_token, state.options.confirmSecret].filter((t): t is string => typeof t === 'string');
}

async function callOperation(state: AgentState, server: McpServer, tool: OperationTool, given: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
  // Under strict schemas a `null` stands for an argument left out.
  const args = state.options.schemas === 'strict' ? (withoutAbsentNulls(given, tool.input.nullMeansAbsent) as Record<string, unknown>) : given;
  try {
    const target = targetFor(state, tool);
    // Every tool call is a logical call of the client, its span naming the tool.
    const options: RequestOptions = { spanAttributes: { 'openbanking.mcp.tool': tool.name }, signal: ctx.mcpReq.signal };
    if (tool.kind === 'read') return toolResult(tool, await invoke(target, tool, splitArguments(tool, args), options), undefined, secretsOf(state));
    const { ledger, attempts, codec, options: o } = state;
    const customerId = target === state.ob ? undefined : (target as CustomerSession).id;
    return await runWrite({ server, ctx, tool, args, target, customerId, ledger, attempts, codec, limits: o.limits, confirm: o.confirm, pages: state.pages, options, secrets: secretsOf(state) });
  } catch (error) {
    return toolError(error, secretsOf(state));
  }
}

/** The refusal of a tool the operator did not list: which `allow` name would list it; nothing is sent. */
function notAllowed(tool: OperationTool): CallToolResult {
  const names = tool.kind === 'write' ? `'${tool.operation}' (or 'writes')` : `'${tool.operation}'`;
  const refusal = new ToolRefusal(
    'NotAllowed',
    `${tool.name} is not enabled on this server, so nothing was sent. The operator enables it with allow: [${names}] (openbanking-ng-mcp --allow ${tool.kind === 'write' ? `${tool.operation} or --allow writes` : tool.operation})${isConfirmed(tool.kind) ? '; the person then confirms every call' : ''}.`,
  );
  return toolError(refusal, []);
}

/** A tool as tools/list shows it. */
interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: Record<string, unknown>;
}

/**
 * One server instance over the shared state. Every operation's tool is registered, so that calling
 * an unlisted one answers which `allow` name would list it; tools/list shows the listed ones only.
 */
function buildServer(state: AgentState): McpServer {
  const server = new McpServer({ name: 'openbanking-ng', version }, { capabilities: { tools: { listChanged: false } }, instructions: instructions(state) });
  const listed: ListedTool[] = [];
  const register = (tool: ListedTool, run: (args: Record<string, unknown>, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>, list = true) => {
    const { name, inputSchema, outputSchema, ...meta } = tool;
    server.registerTool(name, { ...meta, inputSchema: asStandardSchema(inputSchema), outputSchema: asStandardSchema(outputSchema) }, run);
    if (list) listed.push(tool);
  };
  for (const tool of state.tools) {
    const inputSchema = state.options.schemas === 'strict' ? tool.input.strict : tool.input.json;
    const shown = { name: tool.name, title: tool.operation, description: tool.description, inputSchema, outputSchema: tool.outputSchema, annotations: { ...tool.annotations } };
    const enabled = state.listed.has(tool.name);
    register(shown, enabled ? (args, ctx) => callOperation(state, server, tool, args, ctx) : async () => notAllowed(tool), enabled);
  }
  const strict = state.options.schemas === 'strict';
  register({ ...WAIT_TOOL, inputSchema: strict ? WAIT_INPUT.strict : WAIT_INPUT.json }, async (args, ctx) => waitForTransfer(() => state.link.require(), args, ctx, strict, secretsOf(state)));
  if (state.options.customer === undefined) {
    register(
      {
        name: 'connect_bank',
        title: 'Connect the customer',
        description: PURPOSE.connect_bank,
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        outputSchema: CONNECT_OUTPUT,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      },
      async () => {
        try {
          const answer = await state.link.connect(customerScopes(state.tools, state.listed));
          return { content: [{ type: 'text', text: answer.message }], structuredContent: { ...answer } };
        } catch (error) {
          return toolError(error, []);
        }
      },
    );
  }
  // tools/list shows what the operator listed; the SDK's own listing would show every registered tool.
  server.server.removeRequestHandler('tools/list');
  server.server.setRequestHandler('tools/list', () => ({ tools: listed as never }));
  return server;
}

/**
 * A factory of MCP servers that share one state (the customer, the confirmations, the day
 * totals): for transports that build a server per request, such as `createMcpHandler` of
 * `@modelcontextprotocol/server`. Checks the options once; throws `ValidationError` as
 * {@link createMcpServer} does.
 *
 * @example
 * ```ts
 * import { createMcpHandler } from '@modelcontextprotocol/server';
 * import { OpenBanking } from 'openbanking-ng';
 * import { createMcpServerFactory } from 'openbanking-ng/mcp';
 * declare const ob: OpenBanking;
 * const handler = createMcpHandler(createMcpServerFactory(ob, { customer: ob.forCustomer(tokens) }));
 * declare const tokens: import('openbanking-ng').TokenSet;
 * ```
 * @group Agents
 */
export function createMcpServerFactory(ob: OpenBanking, options?: McpServerOptions): () => McpServer {
  const state = agentState(ob, options);
  return () => buildServer(state);
}

function attemptLogOf(ob: OpenBanking): AttemptLog {
  let log = attemptLogs.get(ob);
  if (!log) attemptLogs.set(ob, (log = new AttemptLog(ob)));
  return log;
}

function agentState(ob: OpenBanking, options: McpServerOptions | undefined): AgentState {
  const resolved = resolveMcpOptions(ob, options);
  const { confirmPage: page, confirmSecret: secret, onConfirmationLink: onLink, now } = resolved;
  return {
    ob,
    options: resolved,
    tools: operationTools(resolved.limits),
    listed: new Set([...resolved.listed].map(toolName)),
    link: new CustomerLink(ob, resolved.customer, resolved.connect),
    ledger: new Ledger(ob, resolved.now, resolved.memoryLedger),
    attempts: attemptLogOf(ob),
    codec: confirmationCodec(),
    pages: { page, secret, onLink, now },
  };
}

/**
 * A Model Context Protocol server over `ob`: one tool per typed operation (`cards_list`,
 * `accounts_transactions_list`, …), read-only unless `allow` says otherwise; money tools confirmed
 * by the person and held to `limits`. Connect it to any transport of `@modelcontextprotocol/server`.
 * Throws `ValidationError` for bad options, money tools without both limits among them.
 *
 * @example
 * ```ts
 * import { InMemoryTransport } from '@modelcontextprotocol/server';
 * import { OpenBanking, type TokenSet } from 'openbanking-ng';
 * import { createMcpServer } from 'openbanking-ng/mcp';
 * declare const ob: OpenBanking, tokens: TokenSet;
 * const session = ob.forCustomer(tokens, { id: 'customer-42' });
 * const server = createMcpServer(ob, { customer: session, allow: ['transfers.create'], limits: { perCall: 50_000, perDay: 200_000 } });
 * const [, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * ```
 * @group Agents
 */
export function createMcpServer(ob: OpenBanking, options?: McpServerOptions): McpServer {
  const state = agentState(ob, options);
  const server = buildServer(state);
  // The state is this server's alone: a device-code wait and its own page end with its connection.
  server.server.onclose = () => {
    state.link.close();
    if (state.options.ownPage) void state.pages.page.close();
  };
  return server;
}
