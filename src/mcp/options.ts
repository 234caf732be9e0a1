import { type CustomerSession, type CustomerSessionOptions, type OpenBanking, type OperationName, ValidationError, type ValidationIssue } from '../index.js';
import { operations } from '../schemas.js';
import { kindOf } from './catalog.js';
import type { ConfirmationLink } from './channels.js';
import { MANDATE_OPERATIONS, MONEY_OPERATIONS } from './movement.js';
import { type ConfirmationPage, ConfirmationPages } from './page.js';

/**
 * What `allow` takes: an operation name (`'transfers.create'`), or `'writes'` for every POST and
 * PATCH operation that neither moves money nor creates or redirects a way money can move (money
 * and instrument tools are listed only by name).
 * @group Agents
 */
export type AllowName = OperationName | 'writes';

/**
 * The money limits, in major units (naira), per customer session `id` (else per server), the day
 * being the calendar day in Lagos (WAT).
 * @group Agents
 */
export interface McpLimits {
  /** The largest amount one call may move; equal is allowed. */
  perCall: number;
  /** The most that may be sent in one Lagos calendar day; reaching it exactly is allowed. */
  perDay: number;
}

/**
 * Options of {@link createMcpServer}.
 * @group Agents
 */
export interface McpServerOptions {
  /**
   * The customer the agent acts for (`ob.forCustomer(tokens, { id })`). Without one, the server
   * lists `connect_bank`, which gets the customer's consent through the device-code flow.
   */
  customer?: CustomerSession;
  /**
   * Operations to list beside the reads, by name, and `'writes'` for every POST and PATCH
   * operation that is neither a money tool (`transfers.create`, `bills.pay`,
   * `directDebits.charge`, `accounts.holds.create`) nor an instrument tool (`directDebits.create`,
   * `directDebits.update`, `cards.create`, `accounts.holds.update`): those two kinds are listed
   * only by name. Default: reads only (the GET operations and `transfers_wait`).
   */
  allow?: readonly AllowName[];
  /**
   * Required when a money tool is allowed: both limits, in major units. A mandate tool
   * (`directDebits.create`, `directDebits.update`) needs `perCall`, which its `amount` may not exceed.
   */
  limits?: McpLimits;
  /**
   * How a money or instrument tool asks the person before every send. `'elicit'` (default): on
   * this server's confirmation page through URL elicitation where the client declares it, else
   * through a form where the client declares form elicitation, else the page's link goes to the
   * operator (`onConfirmationLink`) and the tool answers that the person must approve outside the
   * chat. `'page'`: the same without the form (a form is the client's word, the page is this
   * server's). `'none'`: it does not ask (the limits still hold); set it only where a person
   * already approves every call some other way.
   */
  confirm?: 'elicit' | 'page' | 'none';
  /**
   * A passphrase the confirmation page asks for before Confirm (at least 8 characters): a wrong one
   * decides nothing, five end the link. No client or result ever carries it; with it the form is
   * not used, as with `confirm: 'page'`.
   */
  confirmSecret?: string;
  /**
   * The confirmation page, when your own HTTP server serves it ({@link createConfirmationPage}).
   * Default: one of this server's own, listening on an ephemeral `127.0.0.1` port once a person
   * is first asked.
   */
  confirmPage?: ConfirmationPage;
  /**
   * Receives the page's link when the client cannot ask the person (no elicitation, or only the
   * form where the page is required): give it to the person, never to the model. Default: a line
   * on stderr.
   */
  onConfirmationLink?: (link: ConfirmationLink) => void;
  /**
   * Where the day's totals live. Without this option they live in the client's fleet store, which
   * money tools require; `'memory'` accepts an in-memory ledger instead (a restart starts the
   * day again, and separate processes do not share the limits).
   */
  ledger?: 'memory';
  /**
   * Options of the session `connect_bank` makes once the person approves (`id`, `onTokens`,
   * `onConsentEnded`); `onTokens` receives the first token set too, so that you can store it.
   */
  connect?: CustomerSessionOptions;
  /** Clock in milliseconds that decides the Lagos calendar day. Default `Date.now`. */
  now?: () => number;
  /**
   * `'strict'`: input schemas in the form OpenAI's strict function calling takes unchanged (every
   * property required, an optional one as `anyOf [T, null]`, `additionalProperties: false`, only
   * the keywords that mode supports), and a `null` argument read as absent.
   */
  schemas?: 'strict';
}

/** The options checked, the tools' operations resolved. */
export interface ResolvedMcpOptions {
  customer: CustomerSession | undefined;
  /** Every operation listed: the reads and what `allow` adds. */
  listed: ReadonlySet<OperationName>;
  limits: McpLimits | undefined;
  confirm: 'elicit' | 'page' | 'none';
  confirmSecret: string | undefined;
  /** The page given, or one of the server's own. */
  confirmPage: ConfirmationPages;
  /** True when the server made the page itself (it closes it with the server). */
  ownPage: boolean;
  onConfirmationLink: (link: ConfirmationLink) => void;
  /** True when the day's totals are kept in memory (said explicitly, or no money tool and no fleet). */
  memoryLedger: boolean;
  connect: CustomerSessionOptions | undefined;
  now: () => number;
  /** How input schemas are listed. */
  schemas: 'default' | 'strict';
}

const KNOWN = new Set(['customer', 'allow', 'limits', 'confirm', 'confirmSecret', 'confirmPage', 'onConfirmationLink', 'ledger', 'connect', 'now', 'schemas']);

/** An operator link, on stderr: the side of a stdio server the model never reads. */
const linkOnStderr = (link: ConfirmationLink) =>
  console.error(`openbanking-ng: ${link.tool} waits for the person's confirmation outside the chat: open ${link.url} (one decision, until ${link.expiresAt.toISOString()}).`);

function checkConfirm(issues: ValidationIssue[], options: McpServerOptions, confirm: unknown): void {
  if (confirm !== 'elicit' && confirm !== 'page' && confirm !== 'none') issues.push({ path: 'confirm', message: "must be 'elicit', 'page' or 'none'", code: 'invalid_value' });
  const secret = options.confirmSecret;
  if (secret !== undefined && (typeof secret !== 'string' || [...secret].length < 8)) issues.push({ path: 'confirmSecret', message: 'must be a passphrase of at least 8 characters', code: 'invalid_value' });
  if (secret !== undefined && confirm === 'none') issues.push({ path: 'confirmSecret', message: "asks the person on the confirmation page, which confirm: 'none' turns off", code: 'invalid_value' });
  if (options.confirmPage !== undefined && !(options.confirmPage instanceof ConfirmationPages)) issues.push({ path: 'confirmPage', message: 'must be made by createConfirmationPage', code: 'invalid_type' });
  if (options.onConfirmationLink !== undefined && typeof options.onConfirmationLink !== 'function') issues.push({ path: 'onConfirmationLink', message: 'must be a function', code: 'invalid_type' });
}

/** The edit distance of two names, for "did you mean". */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The allow name closest to `name`. */
export function closestName(name: string): AllowName {
  const names: AllowName[] = [...(Object.keys(operations) as OperationName[]), 'writes'];
  return names.reduce((best, candidate) => (distance(name, candidate) < distance(name, best) ? candidate : best));
}

/** What `allow` takes, for messages: every operation name that is not a read, and `'writes'`. */
export function allowNames(): string {
  return [...(Object.keys(operations) as OperationName[]).filter((name) => kindOf(name) !== 'read'), 'writes'].join(', ');
}

function isClient(value: unknown): value is OpenBanking {
  const ob = value as Partial<OpenBanking> | null;
  return typeof ob === 'object' && ob !== null && typeof ob.forCustomer === 'function' && typeof ob.on === 'function' && typeof ob.auth === 'object';
}

function isSession(value: unknown): value is CustomerSession {
  const session = value as Partial<CustomerSession> | null;
  return typeof session === 'object' && session !== null && typeof session.request === 'function' && typeof session.setTokens === 'function' && 'consent' in session;
}

function checkLimit(issues: ValidationIssue[], name: keyof McpLimits, value: unknown): void {
  if (value === undefined) issues.push({ path: `limits.${name}`, message: 'is required when a money tool is allowed (major units, e.g. 50000)', code: 'missing' });
  else if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) issues.push({ path: `limits.${name}`, message: 'must be a positive number of major units', code: 'invalid_type' });
}

/**
 * Checks the options and resolves `allow`; throws one `ValidationError` listing every problem,
 * money tools without both limits among them.
 */
export function resolveMcpOptions(ob: unknown, input: McpServerOptions | undefined): ResolvedMcpOptions {
  const issues: ValidationIssue[] = [];
  if (!isClient(ob)) issues.push({ path: 'ob', message: 'must be an OpenBanking client', code: 'invalid_type' });
  const options = input ?? {};
  if (typeof options !== 'object' || options === null) throw new ValidationError('Invalid MCP server options', [{ path: '', message: 'must be an object', code: 'invalid_type' }]);
  for (const key of Object.keys(options)) if (!KNOWN.has(key)) issues.push({ path: key, message: 'is not an option of createMcpServer', code: 'unrecognized_keys' });
  if (options.customer !== undefined && !isSession(options.customer)) issues.push({ path: 'customer', message: 'must be a customer session (ob.forCustomer(tokens))', code: 'invalid_type' });

  const names = Object.keys(operations) as OperationName[];
  const listed = new Set(names.filter((name) => kindOf(name) === 'read'));
  const allow = options.allow ?? [];
  if (!Array.isArray(allow)) issues.push({ path: 'allow', message: "must be an array of operation names and 'writes'", code: 'invalid_type' });
  else {
    allow.forEach((name: unknown, i) => {
      if (name === 'writes') for (const op of names) if (kindOf(op) === 'write') listed.add(op);
      if (name === 'writes') return;
      if (typeof name === 'string' && Object.hasOwn(operations, name)) listed.add(name as OperationName);
      else {
        const near = typeof name === 'string' ? ` (did you mean '${closestName(name)}'?)` : '';
        issues.push({ path: `allow.${i}`, message: `is not an operation name or 'writes'${near}; allow takes: ${allowNames()}`, code: 'invalid_value' });
      }
    });
  }

  const limits = options.limits;
  const given = typeof limits === 'object' && limits !== null;
  if (limits !== undefined && !given) issues.push({ path: 'limits', message: 'must be { perCall, perDay }', code: 'invalid_type' });
  const moneyListed = [...listed].filter((name) => MONEY_OPERATIONS.has(name));
  const mandateListed = [...listed].filter((name) => MANDATE_OPERATIONS.has(name));
  // Money needs both limits, a mandate its per-call limit; limits given without either must be whole.
  const needed = moneyListed.length > 0 || (mandateListed.length === 0 && given) ? (['perCall', 'perDay'] as const) : mandateListed.length > 0 ? (['perCall'] as const) : [];
  for (const name of ['perCall', 'perDay'] as const) if ((needed as readonly string[]).includes(name) || (given && limits[name] !== undefined)) checkLimit(issues, name, limits?.[name]);
  if (given) for (const key of Object.keys(limits)) if (key !== 'perCall' && key !== 'perDay') issues.push({ path: `limits.${key}`, message: 'is not a limit (perCall, perDay)', code: 'unrecognized_keys' });
  const confirm = options.confirm ?? 'elicit';
  checkConfirm(issues, options, confirm);
  if (options.ledger !== undefined && options.ledger !== 'memory') issues.push({ path: 'ledger', message: "must be 'memory' (or left out: the client's fleet store)", code: 'invalid_value' });
  const fleet = isClient(ob) ? ob.fleet : undefined;
  if (moneyListed.length > 0 && fleet === undefined && options.ledger !== 'memory') {
    issues.push({
      path: 'ledger',
      message: "money tools need a durable ledger for the day's total: give the client a fleet (its store keeps the total across restarts and processes), or accept an in-memory one explicitly with ledger: 'memory' (a restart starts the day again)",
      code: 'ledger_required',
    });
  }
  if (options.connect !== undefined && (typeof options.connect !== 'object' || options.connect === null)) issues.push({ path: 'connect', message: 'must be the options of ob.forCustomer', code: 'invalid_type' });
  if (options.now !== undefined && typeof options.now !== 'function') issues.push({ path: 'now', message: 'must be a function returning milliseconds', code: 'invalid_type' });
  if (options.schemas !== undefined && options.schemas !== 'strict') issues.push({ path: 'schemas', message: "must be 'strict' (or left out)", code: 'invalid_value' });
  if (issues.length > 0) {
    const missing = issues.filter((i) => i.path.startsWith('limits.') && i.code === 'missing').map((i) => i.path);
    let title = 'Invalid MCP server options';
    if (missing.length > 0 && moneyListed.length > 0) title = `Money tools (${moneyListed.join(', ')}) need both limits`;
    else if (missing.length > 0 && mandateListed.length > 0) title = `Mandate tools (${mandateListed.join(', ')}) need limits.perCall`;
    else if (missing.length > 0) title = `The limits go together: ${missing.join(' and ')} is missing (limits apply to money tools, which allow lists by name)`;
    else if (issues.some((i) => i.code === 'ledger_required')) title = `Money tools (${moneyListed.join(', ')}) need a durable ledger`;
    throw new ValidationError(title, issues);
  }
  return {
    customer: options.customer,
    listed,
    schemas: options.schemas ?? 'default',
    limits: limits && { perCall: limits.perCall, perDay: limits.perDay },
    confirm,
    confirmSecret: options.confirmSecret,
    confirmPage: (options.confirmPage as ConfirmationPages | undefined) ?? new ConfirmationPages(),
    ownPage: options.confirmPage === undefined,
    onConfirmationLink: options.onConfirmationLink ?? linkOnStderr,
    memoryLedger: options.ledger === 'memory' || fleet === undefined,
    connect: options.connect,
    now: options.now ?? (() => Date.now()),
  };
}
