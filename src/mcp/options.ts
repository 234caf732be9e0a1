import { type CustomerSession, type CustomerSessionOptions, type OpenBanking, type OperationName, ValidationError, type ValidationIssue } from '../index.js';
import { operations } from '../schemas.js';
import { MONEY_OPERATIONS } from './catalog.js';

/**
 * What `allow` takes: an operation name (`'transfers.create'`), or `'writes'` for every POST and
 * PATCH operation that does not move money.
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
   * operation that is not a money tool. Default: reads only (the GET operations and `transfers_wait`).
   */
  allow?: readonly AllowName[];
  /** Required when a money tool is allowed: both limits, in major units. */
  limits?: McpLimits;
  /**
   * `'elicit'` (default): a money tool asks the person through MCP elicitation before sending.
   * `'none'`: it does not ask (the limits still hold). Set it only where a person already
   * approves every call some other way.
   */
  confirm?: 'elicit' | 'none';
  /**
   * Options of the session `connect_bank` makes once the person approves (`id`, `onTokens`,
   * `onConsentEnded`); `onTokens` receives the first token set too, so that you can store it.
   */
  connect?: CustomerSessionOptions;
  /** Clock in milliseconds that decides the Lagos calendar day. Default `Date.now`. */
  now?: () => number;
}

/** The options checked, the tools' operations resolved. */
export interface ResolvedMcpOptions {
  customer: CustomerSession | undefined;
  /** Every operation listed: the reads and what `allow` adds. */
  listed: ReadonlySet<OperationName>;
  limits: McpLimits | undefined;
  confirm: 'elicit' | 'none';
  connect: CustomerSessionOptions | undefined;
  now: () => number;
}

const KNOWN = new Set(['customer', 'allow', 'limits', 'confirm', 'connect', 'now']);

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
  const listed = new Set(names.filter((name) => operations[name].method === 'GET'));
  const allow = options.allow ?? [];
  if (!Array.isArray(allow)) issues.push({ path: 'allow', message: "must be an array of operation names and 'writes'", code: 'invalid_type' });
  else {
    allow.forEach((name: unknown, i) => {
      if (name === 'writes') for (const op of names) if (operations[op].method !== 'GET' && !MONEY_OPERATIONS.has(op)) listed.add(op);
      if (name === 'writes') return;
      if (typeof name === 'string' && Object.hasOwn(operations, name)) listed.add(name as OperationName);
      else issues.push({ path: `allow.${i}`, message: `is not an operation name or 'writes' (e.g. 'transfers.create')`, code: 'invalid_value' });
    });
  }

  const limits = options.limits;
  if (limits !== undefined && (typeof limits !== 'object' || limits === null)) issues.push({ path: 'limits', message: 'must be { perCall, perDay }', code: 'invalid_type' });
  const moneyListed = [...listed].filter((name) => MONEY_OPERATIONS.has(name));
  if (moneyListed.length > 0 || (typeof limits === 'object' && limits !== null)) {
    checkLimit(issues, 'perCall', limits?.perCall);
    checkLimit(issues, 'perDay', limits?.perDay);
    if (typeof limits === 'object' && limits !== null) for (const key of Object.keys(limits)) if (key !== 'perCall' && key !== 'perDay') issues.push({ path: `limits.${key}`, message: 'is not a limit (perCall, perDay)', code: 'unrecognized_keys' });
  }
  const confirm = options.confirm ?? 'elicit';
  if (confirm !== 'elicit' && confirm !== 'none') issues.push({ path: 'confirm', message: "must be 'elicit' or 'none'", code: 'invalid_value' });
  if (options.connect !== undefined && (typeof options.connect !== 'object' || options.connect === null)) issues.push({ path: 'connect', message: 'must be the options of ob.forCustomer', code: 'invalid_type' });
  if (options.now !== undefined && typeof options.now !== 'function') issues.push({ path: 'now', message: 'must be a function returning milliseconds', code: 'invalid_type' });
  if (issues.length > 0) {
    const money = issues.some((i) => i.path.startsWith('limits.') && i.code === 'missing');
    throw new ValidationError(money ? `Money tools (${moneyListed.join(', ')}) need both limits` : 'Invalid MCP server options', issues);
  }
  return {
    customer: options.customer,
    listed,
    limits: limits && { perCall: limits.perCall, perDay: limits.perDay },
    confirm,
    connect: options.connect,
    now: options.now ?? Date.now,
  };
}
