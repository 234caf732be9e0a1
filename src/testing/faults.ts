import type { Random } from './random.js';

/**
 * What an injected fault does to one request. Faults that answer instead of the sandbox
 * (`status`, `response`, `drop` before, and the body faults given a `status`) leave the sandbox
 * untouched: no card is stored. The others let the request run first (a card may be stored) and
 * then spoil or delay the answer.
 *
 * | `type` | effect |
 * |---|---|
 * | `status` | answers `status` (e.g. 429, 500, 503) with the spec's error body; `Retry-After` only when `retryAfter` is given |
 * | `drop` | cuts the connection with no answer, `when: 'before'` (default) the request runs or `'after'` it ran |
 * | `delay` | waits `ms` of wall-clock time `'before'` (default) or `'after'` running the request |
 * | `malformed-json` | a body that is cut-off JSON (`content-type: application/json`) |
 * | `html` | an nginx-style HTML error page (`text/html`) |
 * | `empty` | an empty body |
 * | `omit-field` | runs the request and removes `field` (a dotted path, e.g. `'data.card_id'`) from the JSON answer |
 * | `truncate` | runs the request, sends the status line, headers and half the body, then cuts the connection |
 * | `response` | answers exactly `status`, `body` and `headers` |
 *
 * `malformed-json`, `html` and `empty` keep the real answer's status after running the request
 * when `status` is omitted, and answer `status` without running it when it is given.
 * @group Sandbox
 */
export type SandboxFault =
  | {
      /** Answer an error status with the spec's body, without running the request. */
      type: 'status';
      /** HTTP status to answer, e.g. 429, 500, 502, 503, 504. */
      status: number;
      /** `Retry-After` value (seconds, or an HTTP date); no header when omitted. */
      retryAfter?: number | string;
      /** `message` of the error body. Default: the status's usual text. */
      message?: string;
    }
  | {
      /** Cut the connection without an answer. */
      type: 'drop';
      /** `'before'` (default): the request never runs. `'after'`: it runs, then the answer is lost. */
      when?: 'before' | 'after';
    }
  | {
      /** Hold the request for a while. */
      type: 'delay';
      /** Wall-clock milliseconds to hold the request (so the client's own timer can fire). */
      ms: number;
      /** `'before'` (default): wait, then run the request. `'after'`: run it, then wait before answering. */
      when?: 'before' | 'after';
    }
  | {
      /** Cut-off JSON as the body. */
      type: 'malformed-json';
      /** Answer this status without running the request; omitted, the request runs and keeps its status. */
      status?: number;
    }
  | {
      /** An nginx-style HTML error page as the body. */
      type: 'html';
      /** Answer this status without running the request; omitted, the request runs and keeps its status. */
      status?: number;
    }
  | {
      /** An empty body. */
      type: 'empty';
      /** Answer this status without running the request; omitted, the request runs and keeps its status. */
      status?: number;
    }
  | {
      /** Run the request and remove one member of its JSON answer. */
      type: 'omit-field';
      /** Dotted path of the member to remove from the JSON answer, e.g. `'data.card_id'`. */
      field: string;
    }
  | {
      /** Run the request, send the status line, headers and half the body, then cut the connection. */
      type: 'truncate';
    }
  | {
      /** Answer exactly what is given, without running the request. */
      type: 'response';
      /** HTTP status. */
      status: number;
      /** Body: text as is, or an object or array sent as JSON. */
      body?: string | Record<string, unknown> | unknown[];
      /** Headers of the answer. */
      headers?: Record<string, string>;
    };

/**
 * Which requests get a fault, and how many times.
 * @group Sandbox
 */
export interface FaultRule {
  /** Path of the request (`'/openapi/v1/cards'`, `'/oauth2/token'`), or a RegExp tested against it. */
  path: string | RegExp;
  /** Only requests with this method. Default: any. */
  method?: string;
  /** How many faults to inject before the rule retires. Default 1; `Infinity` for every match. */
  times?: number;
  /** Chance (0–1) that a matching request is faulted, drawn from the sandbox's seeded generator. Default 1. */
  probability?: number;
  /** The fault, or a list to pick from at random for each injection. */
  fault: SandboxFault | readonly SandboxFault[];
}

/**
 * A rule once injected: how much of it was used, and a way to withdraw it.
 * @group Sandbox
 */
export interface FaultHandle {
  /** Faults injected so far by this rule. */
  readonly injected: number;
  /** Faults still to inject (`Infinity` for a standing rule). */
  readonly remaining: number;
  /** Withdraws the rule. */
  cancel(): void;
}

/**
 * Fault injection for tests.
 * @group Sandbox
 */
export interface SandboxFaults {
  /**
   * Adds a rule. Rules are tried in the order they were added; the first that matches and fires
   * decides the request's fault.
   *
   * @example
   * ```ts
   * sandbox.faults.inject({ path: '/openapi/v1/cards', times: 2, fault: { type: 'status', status: 503 } });
   * sandbox.faults.inject({ path: '/openapi/v1/cards', fault: { type: 'drop', when: 'after' } });
   * ```
   */
  inject(rule: FaultRule): FaultHandle;
  /** Withdraws every rule. */
  clear(): void;
  /** Total faults injected since creation (or the last `reset`). */
  readonly injected: number;
}

const TYPES = new Set(['status', 'drop', 'delay', 'malformed-json', 'html', 'empty', 'omit-field', 'truncate', 'response']);

function checkFault(fault: SandboxFault): void {
  if (typeof fault !== 'object' || fault === null || !TYPES.has(fault.type)) {
    throw new TypeError(`faults.inject: fault.type must be one of ${[...TYPES].join(', ')}`);
  }
  const status = (fault as { status?: unknown }).status;
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599)) {
    throw new TypeError('faults.inject: fault.status must be an HTTP status from 200 to 599');
  }
  if ((fault.type === 'status' || fault.type === 'response') && status === undefined) throw new TypeError(`faults.inject: a '${fault.type}' fault needs a status`);
  if (fault.type === 'delay' && (typeof fault.ms !== 'number' || !(fault.ms >= 0) || !Number.isFinite(fault.ms))) throw new TypeError('faults.inject: a delay fault needs ms ≥ 0');
  if (fault.type === 'omit-field' && (typeof fault.field !== 'string' || fault.field === '')) throw new TypeError('faults.inject: an omit-field fault needs a field path such as data.card_id');
  const when = (fault as { when?: unknown }).when;
  if (when !== undefined && when !== 'before' && when !== 'after') throw new TypeError("faults.inject: when must be 'before' or 'after'");
}

interface ActiveRule {
  rule: FaultRule;
  faults: readonly SandboxFault[];
  remaining: number;
  injected: number;
}

/** The fault rules behind {@link SandboxFaults}. */
export class FaultInjector implements SandboxFaults {
  #rules: ActiveRule[] = [];
  #injected = 0;

  constructor(private readonly random: Random) {}

  get injected(): number {
    return this.#injected;
  }

  inject(rule: FaultRule): FaultHandle {
    if (typeof rule !== 'object' || rule === null) throw new TypeError('faults.inject: expected { path, fault, times?, probability?, method? }');
    if (typeof rule.path !== 'string' && !(rule.path instanceof RegExp)) throw new TypeError('faults.inject: path must be a string or a RegExp');
    const times = rule.times ?? 1;
    if (typeof times !== 'number' || !(times >= 1) || (!Number.isInteger(times) && times !== Infinity)) throw new TypeError('faults.inject: times must be a positive integer or Infinity');
    const probability = rule.probability ?? 1;
    if (typeof probability !== 'number' || !(probability >= 0 && probability <= 1)) throw new TypeError('faults.inject: probability must be between 0 and 1');
    const faults: readonly SandboxFault[] = Array.isArray(rule.fault) ? rule.fault : [rule.fault as SandboxFault];
    if (faults.length === 0) throw new TypeError('faults.inject: fault must not be an empty list');
    faults.forEach(checkFault);
    const active: ActiveRule = { rule: { ...rule }, faults: [...faults], remaining: times, injected: 0 };
    this.#rules.push(active);
    return {
      get injected() {
        return active.injected;
      },
      get remaining() {
        return active.remaining;
      },
      cancel: () => {
        this.#rules = this.#rules.filter((r) => r !== active);
      },
    };
  }

  clear(): void {
    this.#rules = [];
  }

  reset(): void {
    this.#rules = [];
    this.#injected = 0;
  }

  /** The fault for this request, if a rule fires; the rule's budget is spent at once. */
  take(method: string, path: string): SandboxFault | undefined {
    for (const active of this.#rules) {
      const { rule } = active;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      // `search` ignores `lastIndex`, so a RegExp with the g flag matches every time.
      if (typeof rule.path === 'string' ? rule.path !== path : path.search(rule.path) === -1) continue;
      if (rule.probability !== undefined && rule.probability < 1 && this.random.next() >= rule.probability) continue;
      active.remaining -= 1;
      active.injected += 1;
      this.#injected += 1;
      if (active.remaining <= 0) this.#rules = this.#rules.filter((r) => r !== active);
      const pick = active.faults.length === 1 ? active.faults[0]! : active.faults[Math.floor(this.random.next() * active.faults.length)]!;
      return pick;
    }
    return undefined;
  }
}
