import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type ClientOptions, type CustomerSession, type CustomerSessionOptions, type FleetStore, isValidationError, type Logger, OPERATION_SCOPES, OpenBanking, type TokenSet } from '../index.js';
import { type AllowName, createConfirmationPage, createMcpServerFactory, type McpServerOptions } from '../mcp.js';
import { kindOf } from '../mcp/catalog.js';
import { INSTRUMENT_OPERATIONS, MONEY_OPERATIONS } from '../mcp/movement.js';
import { createSandbox } from '../testing.js';
import { openLedgerStore } from './mcp-ledger.js';
import { operatorLinks, publicUrlOf } from './mcp-page.js';
import { type HttpEndpoint, serveHttp } from './mcp-http.js';

/** Where the command writes: stderr only, since stdout carries the protocol over stdio. */
export interface McpCliOutput {
  err(line: string): void;
}

/** A server that is running: stop it with `close`. */
export interface RunningMcp {
  /** With --http: `http://host:port/mcp`. */
  url?: string;
  close(): Promise<void>;
}

const USAGE = `Usage: openbanking-ng-mcp [options]

Serves the Open Banking API to an AI agent over the Model Context Protocol (stdio by default).
Read-only unless --allow says otherwise; money tools need --max-amount, --daily-amount and a
durable ledger (--redis, or --ledger memory).

Options:
      --allow <names>         operations to allow beside the reads, comma-separated or repeated:
                              money tools transfers.create, bills.pay, directDebits.charge,
                              accounts.holds.create; instrument tools directDebits.create,
                              directDebits.update, cards.create, accounts.holds.update (each
                              confirmed by the person); or writes (every other POST and PATCH)
      --strict-schemas        list input schemas as OpenAI's strict function calling takes them
                              (every property required, null for one left out)
      --max-amount <n>        per-call limit of the money tools, and of a mandate's amount (naira)
      --daily-amount <n>      per-day limit of the money tools (naira, Lagos calendar day)
      --redis <url>           keep the day's total in Redis (also OB_REDIS_URL; needs the redis package)
      --ledger memory         keep it in this process only: a restart starts the day again
      --confirm page          the person confirms on this server's page only, never in a form
      --no-confirm            do not ask the person to confirm (the limits still hold)
      --open                  open a confirmation link meant for the operator in the default browser
      --http                  serve Streamable HTTP at /mcp instead of stdio
      --host <address>        --http address (default 127.0.0.1; any other needs OB_MCP_TOKEN)
      --port <n>              --http port (default 3000; 0 picks a free one)
      --public-url <url>      --http behind a proxy: the URL where browsers reach this server
  -h, --help                  show this help

Environment (none: the built-in local sandbox with a consented demo customer):
  OB_CLIENT_ID, OB_CLIENT_SECRET   the application's credentials
  OB_ENVIRONMENT                   sandbox (default) or production
  OB_BASE_URL, OB_AUTH_URL         the API and identity hosts (required in production)
  OB_CUSTOMER_TOKENS               a JSON file with the customer's token set; when it does not
                                   exist yet, connect_bank writes it once the customer approves
  OB_REDIS_URL                     as --redis
  OB_MCP_TOKEN                     with --http: the bearer token every request must carry;
                                   required whenever a write, instrument or money tool is
                                   allowed, the server acts for a real customer, or --host is
                                   not a loopback address
  OB_MCP_CONFIRM_SECRET            a passphrase the confirmation page asks for before Confirm
                                   (at least 8 characters; no MCP client ever sees it)`;

/** Every customer scope the operations ask for: the demo customer's consent. */
const ALL_SCOPES = [...new Set(Object.values(OPERATION_SCOPES).flat())].sort();

/** The client's log lines on stderr, whatever their level: stdout is the protocol. */
function stderrLogger(io: McpCliOutput): Logger {
  const line = (level: string) => (message: string, details?: object) => io.err(`openbanking-ng ${level}: ${message}${details ? ` ${JSON.stringify(details)}` : ''}`);
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/** Writes the customer's token set for the next start, readable by its owner only. */
const saveTokens = (path: string) => (tokens: TokenSet) => writeFileSync(path, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });

interface Setup {
  ob: OpenBanking;
  customer: CustomerSession | undefined;
  connect: CustomerSessionOptions | undefined;
  where: string;
  /** True for the built-in local sandbox: no real customer, no real money. */
  builtIn: boolean;
}

/** The client and customer the environment describes, or the local sandbox and its demo customer. */
function setupFromEnvironment(env: NodeJS.ProcessEnv, logger: Logger, fleet: FleetStore | undefined): Setup {
  const { OB_CLIENT_ID: clientId, OB_CLIENT_SECRET: clientSecret, OB_ENVIRONMENT: environment, OB_BASE_URL: baseUrl, OB_AUTH_URL: authUrl, OB_CUSTOMER_TOKENS: tokensPath } = env;
  if ((clientId === undefined) !== (clientSecret === undefined)) throw new Error('OB_CLIENT_ID and OB_CLIENT_SECRET go together');
  if (clientId === undefined || clientSecret === undefined) {
    if (environment === 'production') throw new Error('OB_ENVIRONMENT=production needs OB_CLIENT_ID and OB_CLIENT_SECRET');
    const demo = { clientId: 'openbanking-ng-mcp-demo', clientSecret: `demo-${crypto.randomUUID()}`, name: 'openbanking-ng-mcp demo' };
    const sandbox = createSandbox({ clients: [demo] });
    const ob = new OpenBanking({ clientId: demo.clientId, clientSecret: demo.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logger, ...(fleet ? { fleet } : {}) });
    const tokens = sandbox.issueTokens({ clientId: demo.clientId, scope: ALL_SCOPES, kind: 'customer' });
    return { ob, customer: ob.forCustomer(tokens, { id: 'demo-customer' }), connect: undefined, where: 'the built-in local sandbox, as its consented demo customer', builtIn: true };
  }
  if (environment !== undefined && environment !== 'sandbox' && environment !== 'production') throw new Error('OB_ENVIRONMENT must be sandbox or production');
  if (environment === 'production' && (baseUrl === undefined || authUrl === undefined)) throw new Error('OB_ENVIRONMENT=production needs OB_BASE_URL and OB_AUTH_URL: the hosts your registration gave you');
  const options: ClientOptions = { clientId, clientSecret, environment: environment ?? 'sandbox', logger, ...(fleet ? { fleet } : {}) };
  if (baseUrl !== undefined) options.baseUrl = baseUrl;
  if (authUrl !== undefined) options.authUrl = authUrl;
  const ob = new OpenBanking(options);
  if (tokensPath === undefined) return { ob, customer: undefined, connect: undefined, where: `${ob.baseUrl}; no customer yet (connect_bank)`, builtIn: false };
  const save = saveTokens(tokensPath);
  if (!existsSync(tokensPath)) return { ob, customer: undefined, connect: { onTokens: save }, where: `${ob.baseUrl}; no customer yet (connect_bank writes ${tokensPath})`, builtIn: false };
  let tokens: TokenSet;
  try {
    tokens = JSON.parse(readFileSync(tokensPath, 'utf8')) as TokenSet;
  } catch {
    throw new Error(`OB_CUSTOMER_TOKENS: ${tokensPath} is not a JSON token set`);
  }
  return { ob, customer: ob.forCustomer(tokens, { onTokens: save }), connect: undefined, where: `${ob.baseUrl}, for the customer of ${tokensPath}`, builtIn: false };
}

/** The command's names for the options' paths, so that a message names what the operator typed. */
function asFlags(message: string, allow: readonly string[]): string {
  return message
    .replace(/\ballow\.(\d+)/g, (_, i: string) => `--allow ${allow[Number(i)] ?? ''}`)
    .replaceAll('limits.perCall', '--max-amount')
    .replaceAll('limits.perDay', '--daily-amount')
    .replaceAll("ledger: 'memory'", '--ledger memory')
    .replaceAll('confirmSecret', 'OB_MCP_CONFIRM_SECRET')
    .replaceAll("confirm: 'none'", '--no-confirm')
    .replace(/give the client a fleet \(([^)]*)\)/, 'give --redis URL (OB_REDIS_URL: Redis keeps the total across restarts and processes)');
}

/** A refusal to start, every problem on its own line. */
function startupError(error: unknown, allow: readonly string[]): string {
  const lines = [asFlags((error as Error).message, allow)];
  if (isValidationError(error)) for (const issue of error.issues) lines.push(`  ${asFlags(`${issue.path}: ${issue.message}`, allow)}`);
  return lines.join('\n');
}

/**
 * Parses the command line and the environment, checks the options and starts serving. Resolves
 * to the running server, or to an exit code: 0 after --help, 2 for arguments it cannot read, 1
 * when it refuses to start (money tools without both limits, a token file it cannot read, a
 * public --host without OB_MCP_TOKEN).
 */
export async function runMcpCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: McpCliOutput): Promise<RunningMcp | number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      allowNegative: true,
      options: {
        allow: { type: 'string', multiple: true },
        'strict-schemas': { type: 'boolean', default: false },
        'max-amount': { type: 'string' },
        'daily-amount': { type: 'string' },
        redis: { type: 'string' },
        ledger: { type: 'string' },
        confirm: { type: 'string' },
        open: { type: 'boolean', default: false },
        'public-url': { type: 'string' },
        http: { type: 'boolean', default: false },
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '3000' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`openbanking-ng-mcp: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.err(USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) {
    io.err(`openbanking-ng-mcp: --port must be a number from 0 to 65535\n\n${USAGE}`);
    return 2;
  }
  // --no-confirm arrives as confirm: false.
  const confirm = (values.confirm as string | boolean | undefined) === false ? 'none' : values.confirm === undefined ? 'elicit' : values.confirm;
  if (confirm !== 'elicit' && confirm !== 'page' && confirm !== 'none') {
    io.err(`openbanking-ng-mcp: --confirm takes only page (or --no-confirm)\n\n${USAGE}`);
    return 2;
  }
  const publicUrl = values['public-url'] === undefined ? undefined : publicUrlOf(values['public-url']);
  if (values['public-url'] !== undefined && (publicUrl === undefined || !values.http)) {
    io.err(`openbanking-ng-mcp: --public-url takes the http(s) URL where browsers reach this server, with --http only\n\n${USAGE}`);
    return 2;
  }
  const allow = (values.allow ?? []).flatMap((list) => list.split(',')).map((name) => name.trim()).filter(Boolean) as AllowName[];
  const amount = (flag: 'max-amount' | 'daily-amount') => (values[flag] === undefined ? undefined : Number(values[flag]));
  const perCall = amount('max-amount');
  const perDay = amount('daily-amount');

  if (values.ledger !== undefined && values.ledger !== 'memory') {
    io.err(`openbanking-ng-mcp: --ledger takes only memory (for Redis, give --redis URL)\n\n${USAGE}`);
    return 2;
  }
  const redisUrl = values.redis ?? (env.OB_REDIS_URL === '' ? undefined : env.OB_REDIS_URL);
  if (redisUrl !== undefined && values.ledger === 'memory') {
    io.err(`openbanking-ng-mcp: --redis and --ledger memory exclude each other: choose where the day's total lives\n\n${USAGE}`);
    return 2;
  }

  // Over --http the page is served by the same server, at --public-url behind a proxy.
  let origin: string | undefined;
  const page = values.http ? createConfirmationPage({ url: () => publicUrl ?? origin! }) : undefined;
  let factory: () => McpServer;
  let setup: Setup;
  let ledgerStore: Awaited<ReturnType<typeof openLedgerStore>> | undefined;
  try {
    if (redisUrl !== undefined) ledgerStore = await openLedgerStore(redisUrl);
    setup = setupFromEnvironment(env, stderrLogger(io), ledgerStore?.fleet);
    const options: McpServerOptions = { allow, confirm, onConfirmationLink: operatorLinks(io.err, values.open) };
    const secret = env.OB_MCP_CONFIRM_SECRET === '' ? undefined : env.OB_MCP_CONFIRM_SECRET;
    if (secret !== undefined) options.confirmSecret = secret;
    if (page) options.confirmPage = page;
    if (perCall !== undefined || perDay !== undefined) options.limits = { ...(perCall !== undefined ? { perCall } : {}), ...(perDay !== undefined ? { perDay } : {}) } as McpServerOptions['limits'];
    if (values.ledger === 'memory') options.ledger = 'memory';
    if (values['strict-schemas']) options.schemas = 'strict';
    if (setup.customer) options.customer = setup.customer;
    if (setup.connect) options.connect = setup.connect;
    factory = createMcpServerFactory(setup.ob, options);
  } catch (error) {
    await ledgerStore?.close();
    io.err(`openbanking-ng-mcp: ${startupError(error, allow)}`);
    return 1;
  }
  const money = allow.filter((name) => MONEY_OPERATIONS.has(name as never));
  const confirmed = allow.filter((name) => MONEY_OPERATIONS.has(name as never) || INSTRUMENT_OPERATIONS.has(name as never));
  const where = redisUrl !== undefined ? "the day's total in Redis" : "the day's total in memory (a restart starts the day again)";
  const posture = money.length === 0 ? 'no money movement' : `money tools ${money.join(', ')} within ${perCall} per call and ${perDay} per day, ${where}${confirm === 'none' ? ', NOT confirmed (--no-confirm)' : `, each confirmed by the person${confirm === 'page' ? ' on its page' : ''}`}`;
  const closeAll = (close: () => Promise<void>) => async () => {
    await close();
    await ledgerStore?.close();
  };

  if (!values.http) {
    const handle = serveStdio(factory);
    io.err(`openbanking-ng-mcp: serving over stdio, against ${setup.where}; ${posture}.`);
    return { close: closeAll(() => handle.close()) };
  }
  const token = env.OB_MCP_TOKEN === '' ? undefined : env.OB_MCP_TOKEN;
  // A token guards every address where the agent can change something or reaches a real customer.
  const changes = allow.some((name) => name === 'writes' || (Object.hasOwn(OPERATION_SCOPES, name) && kindOf(name) !== 'read'));
  const why = changes ? 'a write, instrument or money tool is allowed' : !setup.builtIn ? 'the server acts for a real customer (not the built-in sandbox)' : undefined;
  if (token === undefined && why !== undefined) {
    await ledgerStore?.close();
    io.err(`openbanking-ng-mcp: --http needs OB_MCP_TOKEN here, because ${why}: every request must then carry it as Authorization: Bearer. Set OB_MCP_TOKEN to a long random value and give it to your MCP client.`);
    return 1;
  }
  let endpoint: HttpEndpoint;
  try {
    endpoint = await serveHttp(factory, { host: values.host, port, token, page, publicUrl });
    origin = new URL(endpoint.url).origin;
  } catch (error) {
    await ledgerStore?.close();
    io.err(`openbanking-ng-mcp: ${(error as Error).message}`);
    return 1;
  }
  io.err(`openbanking-ng-mcp: serving Streamable HTTP at ${endpoint.url}${token ? ' (Authorization: Bearer OB_MCP_TOKEN required)' : ''}, against ${setup.where}; ${posture}.`);
  return { url: endpoint.url, close: closeAll(async () => (await page?.close(), endpoint.close())) };
}
