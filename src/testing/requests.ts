/**
 * One request the sandbox received and what it did with it. Never carries headers or bodies,
 * so nothing secret can end up in a test log.
 * @group Sandbox
 */
export interface SandboxRequestRecord {
  /** HTTP method. */
  method: string;
  /** Path of the request URL, e.g. `/openapi/v1/cards`. */
  path: string;
  /** HTTP status answered, or `'dropped'` when the connection was cut before any answer. */
  status: number | 'dropped';
  /** The injected fault's `type`, when one was applied. */
  fault: string | undefined;
  /** The `idempotency-key` header, when present. */
  idempotencyKey: string | undefined;
  /** When the request arrived, on the sandbox's clock (ms). */
  at: number;
}

/**
 * Which requests to count or list: a path (exact string or RegExp tested against the path),
 * and optionally a method. A plain string is a path.
 * @group Sandbox
 */
export type RequestFilter =
  | string
  | RegExp
  | {
      /** Exact path, or a RegExp tested against the path. Default: any. */
      path?: string | RegExp;
      /** HTTP method, any case. Default: any. */
      method?: string;
    };

/**
 * Counters and a log of the requests the sandbox received, faulted ones included.
 * @group Sandbox
 */
export interface SandboxRequests {
  /** How many requests matched `filter` (all when omitted). Exact, however many arrived. */
  count(filter?: RequestFilter): number;
  /** The most recent requests (up to 10 000) matching `filter`, oldest first. */
  list(filter?: RequestFilter): SandboxRequestRecord[];
  /**
   * How many refresh grants carried `refreshToken` (grant_type `refresh_token`, to any token
   * endpoint), however they were answered: faulted, dropped and refused ones included. A rotating
   * refresh token is safe only if this never passes 1.
   */
  refreshGrants(refreshToken: string): number;
  /** Forgets every count and record. */
  clear(): void;
}

const LOG_LIMIT = 10_000;

function matcher(filter: RequestFilter | undefined): (method: string, path: string) => boolean {
  if (filter === undefined) return () => true;
  const f = typeof filter === 'string' || filter instanceof RegExp ? { path: filter } : filter;
  const method = f.method?.toUpperCase();
  return (m, p) => (method === undefined || m === method) && (f.path === undefined || (typeof f.path === 'string' ? p === f.path : p.search(f.path) !== -1));
}

/** The request log behind {@link SandboxRequests}. */
export class RequestLog implements SandboxRequests {
  readonly #counts = new Map<string, number>();
  /** Refresh grants by the refresh token they carried (never printed: only counted). */
  readonly #grants = new Map<string, number>();
  #records: SandboxRequestRecord[] = [];

  /** Counts one refresh grant carrying `refreshToken`. */
  recordRefreshGrant(refreshToken: string): void {
    this.#grants.set(refreshToken, (this.#grants.get(refreshToken) ?? 0) + 1);
  }

  refreshGrants(refreshToken: string): number {
    return this.#grants.get(refreshToken) ?? 0;
  }

  record(entry: SandboxRequestRecord): void {
    const key = `${entry.method} ${entry.path}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#records.push(entry);
    if (this.#records.length > LOG_LIMIT * 1.5) this.#records = this.#records.slice(-LOG_LIMIT);
  }

  count(filter?: RequestFilter): number {
    const match = matcher(filter);
    let total = 0;
    for (const [key, n] of this.#counts) {
      const space = key.indexOf(' ');
      if (match(key.slice(0, space), key.slice(space + 1))) total += n;
    }
    return total;
  }

  list(filter?: RequestFilter): SandboxRequestRecord[] {
    const match = matcher(filter);
    return this.#records.slice(-LOG_LIMIT).filter((r) => match(r.method, r.path)).map((r) => ({ ...r }));
  }

  clear(): void {
    this.#counts.clear();
    this.#grants.clear();
    this.#records = [];
  }
}
