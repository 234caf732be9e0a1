import type { Environment } from '../options.js';
import { SandboxBank } from './bank.js';
import { CardStore, type StoredCard } from './card-store.js';
import { ClientRegistry, type SandboxClient } from './clients.js';
import { consentControls, type SandboxConsentControls } from './consent-controls.js';
import { KNOWN_SCOPES, parseScope, publicClient, type SandboxContext } from './context.js';
import { applyFault, internalError } from './fault-effects.js';
import { FaultInjector, type SandboxFaults } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import { connectionClosedError, type Outcome, truncatedResponse } from './outcome.js';
import { resolveSandboxOptions, type SandboxClientInit, type SandboxOptions } from './options.js';
import { type SandboxPayment, SandboxPayments } from './payments.js';
import { createRandom } from './random.js';
import { RateLimiter } from './rate-limit.js';
import { RequestLog, type SandboxRequestRecord, type SandboxRequests } from './requests.js';
import { methodNotAllowed, notFound } from './responses.js';
import { RouteTable } from './routes/table.js';
import { TokenAuthority } from './tokens.js';

/**
 * A token set minted directly by {@link SandboxControls.issueTokens}, shaped like a token
 * endpoint's answer.
 * @group Sandbox
 */
export interface SandboxTokens {
  /** The bearer token for API calls. */
  access_token: string;
  /** Always `'Bearer'`. */
  token_type: 'Bearer';
  /** Lifetime in seconds. */
  expires_in: number;
  /** Space-separated scopes. */
  scope: string;
  /** Present for customer tokens. */
  refresh_token?: string;
}

/**
 * What tests can see and steer in a sandbox, whichever transport serves it.
 * @group Sandbox
 */
export interface SandboxControls extends SandboxConsentControls {
  /** `'sandbox'` or `'production'`. */
  readonly environment: Environment;
  /** The API base URL (with `/openapi/v1`), without a trailing slash: the client's `baseUrl`. */
  readonly baseUrl: string;
  /** The identity host URL, without a trailing slash: the client's `authUrl`. */
  readonly authUrl: string;
  /** Fault injection: the next N requests to a path answer 429, 5xx, drop the connection, ... */
  readonly faults: SandboxFaults;
  /** Request counters and a log, per path and method. */
  readonly requests: SandboxRequests;
  /** The sandbox's clock reading (ms), from the `now` option. */
  now(): number;
  /**
   * Registers an application at once, with generated credentials unless given, and returns them.
   *
   * @example
   * ```ts
   * const app = sandbox.registerClient({ redirectUris: ['https://app.example/callback'] });
   * const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, ... });
   * ```
   */
  registerClient(init?: Partial<SandboxClientInit>): SandboxClient;
  /** Approves a `PENDING_APPROVAL` registration (production mode) and returns its new credentials. */
  approveRegistration(username: string): SandboxClient;
  /** The cards the sandbox holds (secret fields in plaintext), oldest first; all clients' unless filtered. */
  cards(filter?: { clientId?: string }): StoredCard[];
  /**
   * The money movements the sandbox performed (`transfers.create`, `bills.pay`,
   * `directDebits.charge`), oldest first, each with the `idempotency-key` that performed it: a
   * replayed request adds nothing.
   */
  payments(filter?: { clientId?: string }): SandboxPayment[];
  /**
   * Acts as the customer on the consent page: opens `authorizeUrl` (the URL your app sends the
   * customer to), presses Approve or Deny, and resolves to the URL the browser would be sent
   * back to (`redirect_uri?code=...&state=...` or `?error=access_denied&state=...`). An
   * authorization request the sandbox refuses to redirect (unknown client, unregistered
   * redirect URI) rejects with the page's message.
   */
  consent(authorizeUrl: string | URL, decision?: 'approve' | 'deny'): Promise<string>;
  /** The customer approves a device authorization, named by its `user_code` or `device_code`. */
  approveDeviceCode(code: string): void;
  /** The customer denies a device authorization, named by its `user_code` or `device_code`. */
  denyDeviceCode(code: string): void;
  /**
   * Mints tokens for a registered client without running a grant, e.g. a customer token with a
   * refresh token, or one about to expire (`expiresIn`).
   */
  issueTokens(input: { clientId: string; scope: string | readonly string[]; kind?: 'customer' | 'client'; expiresIn?: number }): SandboxTokens;
  /**
   * Forgets every card, token, code, idempotency key, fault rule, counter and rate-limit budget,
   * and every client not given in the options.
   */
  reset(): void;
}

/**
 * The sandbox as a fetch handler: pass it as the client's `fetch`, or call it with a `Request`.
 * It carries the {@link SandboxControls}.
 *
 * @example
 * ```ts
 * import { OpenBanking } from 'openbanking-ng';
 * import { createSandbox } from 'openbanking-ng/testing';
 *
 * const sandbox = createSandbox({ clients: [{ clientId: 'app', clientSecret: 'app-secret' }] });
 * const ob = new OpenBanking({ clientId: 'app', clientSecret: 'app-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox });
 * await ob.cards.create({ ... });
 * sandbox.cards().length; // 1
 * ```
 * @group Sandbox
 */
export interface Sandbox extends SandboxControls {
  /** Handles one request like `fetch` would: resolves to the answer, rejects with a `TypeError` for a dropped connection. */
  (input: Request | string | URL, init?: RequestInit): Promise<Response>;
}

/** The engine behind every transport: one request in, one {@link Outcome} out. */
export interface SandboxCore {
  handle(request: Request): Promise<Outcome>;
  controls: SandboxControls;
}

const cores = new WeakMap<object, SandboxCore>();

/** The engine of a sandbox made by {@link createSandbox}, for the other transports. */
export function sandboxCore(value: unknown): SandboxCore | undefined {
  return typeof value === 'function' || (typeof value === 'object' && value !== null) ? cores.get(value) : undefined;
}

/** Resolves with `promise`, or rejects with the signal's reason as soon as it fires (as fetch does). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | null): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function stripSlash(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

function pageError(html: string): string {
  const match = /<p class="error"[^>]*>([\s\S]*?)<\/p>/.exec(html);
  const text = (match?.[1] ?? 'the sandbox refused the authorization request').replace(/<[^>]+>/g, '');
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The refresh token a refresh grant carries (read from a copy of its form), else undefined. */
async function refreshTokenOf(request: Request, method: string): Promise<string | undefined> {
  if (method !== 'POST' || !/x-www-form-urlencoded/i.test(request.headers.get('content-type') ?? '')) return undefined;
  const form = new URLSearchParams(await request.clone().text().catch(() => ''));
  return form.get('grant_type') === 'refresh_token' ? (form.get('refresh_token') ?? undefined) : undefined;
}

/** Builds the engine and its controls from options. */
function buildCore(options: SandboxOptions | undefined): SandboxCore {
  const o = resolveSandboxOptions(options);
  const random = createRandom(o.seed);
  const ctx: SandboxContext = {
    options: o,
    random,
    clients: new ClientRegistry(random, o.clients),
    tokens: new TokenAuthority(random, o.now, { token: o.tokenLifetime, code: o.codeLifetime, deviceCode: o.deviceCodeLifetime, deviceInterval: o.deviceCodeInterval }),
    cards: new CardStore(),
    bank: new SandboxBank(),
    payments: new SandboxPayments(o.now),
    idempotency: new IdempotencyStore(),
    limiter: o.rateLimits ? new RateLimiter(o.rateLimits, o.now) : undefined,
    authUrl: stripSlash(o.authUrl),
    baseUrl: stripSlash(o.baseUrl),
    authPath: o.authUrl.pathname.replace(/\/+$/, ''),
  };
  const faults = new FaultInjector(random);
  const log = new RequestLog();

  const routes = new RouteTable(ctx);
  const origins = new Set([o.authUrl.origin, o.baseUrl.origin]);

  const route = async (request: Request, url: URL, method: string): Promise<Response> => {
    const match = routes.match(url.origin, url.pathname);
    if (!match) {
      const hint = origins.has(url.origin) ? undefined : `this sandbox serves ${ctx.authUrl} and ${ctx.baseUrl}`;
      return notFound(method, url.pathname, hint);
    }
    const handler = match.methods.get(method);
    if (!handler) return methodNotAllowed(method, url.pathname, [...match.methods.keys()]);
    try {
      return await handler(ctx, request, url, match.params);
    } catch {
      return internalError();
    }
  };

  // A request held by a delay across a reset belongs to the state before it: it must not store
  // a card in, or show up in the counters of, the state after it.
  let generation = 0;

  const handle = async (request: Request): Promise<Outcome> => {
    const at = o.now();
    const born = generation;
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const refreshToken = await refreshTokenOf(request, method);
    const fault = faults.take(method, url.pathname);
    const run = () => (born === generation ? route(request, url, method) : Promise.resolve(internalError()));
    let outcome: Outcome;
    try {
      outcome = fault ? await applyFault(fault, run) : { kind: 'respond', response: await run() };
    } catch {
      outcome = { kind: 'respond', response: internalError() };
    }
    if (born !== generation) return outcome;
    if (refreshToken !== undefined) log.recordRefreshGrant(refreshToken);
    const record: SandboxRequestRecord = {
      method,
      path: url.pathname,
      status: outcome.kind === 'drop' ? 'dropped' : outcome.response.status,
      fault: fault?.type,
      idempotencyKey: request.headers.get('idempotency-key') ?? undefined,
      at,
    };
    log.record(record);
    try {
      o.onRequest?.({ ...record });
    } catch {
      // an observer's failure must not change the answer
    }
    return outcome;
  };

  const deviceFor = (code: string, verb: string) => {
    const record = typeof code === 'string' ? ctx.tokens.device(code) : undefined;
    if (!record) throw new Error(`${verb}: no device authorization has that user_code or device_code`);
    if (record.expiresAt <= o.now()) throw new Error(`${verb}: the device authorization has expired`);
    if (record.status !== 'pending') throw new Error(`${verb}: the device authorization was already ${record.status === 'denied' ? 'denied' : 'approved'}`);
    return record;
  };

  const controls: SandboxControls = {
    environment: o.environment,
    baseUrl: ctx.baseUrl,
    authUrl: ctx.authUrl,
    faults,
    requests: log,
    now: () => o.now(),
    registerClient: (init) => publicClient(ctx.clients.add(init)),
    approveRegistration: (username) => publicClient(ctx.clients.approve(username)),
    cards: (filter) => ctx.cards.list(filter?.clientId),
    payments: (filter) => ctx.payments.ledger().filter((p) => filter?.clientId === undefined || p.clientId === filter.clientId),
    async consent(authorizeUrl, decision = 'approve') {
      if (decision !== 'approve' && decision !== 'deny') throw new TypeError("consent: decision must be 'approve' or 'deny'");
      const page = await handle(new Request(String(authorizeUrl)));
      if (page.kind !== 'respond') throw new Error('consent: the authorization request got no answer (an injected fault?)');
      const location = page.response.headers.get('location');
      if (location) return location;
      const html = await page.response.text();
      if (page.response.status !== 200) throw new Error(`consent: ${pageError(html)}`);
      const consentId = /name="consent_id" value="([^"]*)"/.exec(html)?.[1];
      const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
      if (!consentId || !action) throw new Error('consent: the consent page has no form');
      const answer = await handle(
        new Request(new URL(action, String(authorizeUrl)), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ consent_id: consentId, decision }).toString(),
        }),
      );
      if (answer.kind !== 'respond') throw new Error('consent: the consent form got no answer (an injected fault?)');
      const back = answer.response.headers.get('location');
      if (!back) throw new Error(`consent: ${pageError(await answer.response.text())}`);
      return back;
    },
    ...consentControls(ctx),
    approveDeviceCode(code) {
      deviceFor(code, 'approveDeviceCode').status = 'approved';
    },
    denyDeviceCode(code) {
      deviceFor(code, 'denyDeviceCode').status = 'denied';
    },
    issueTokens(input) {
      const client = ctx.clients.get(input?.clientId);
      if (!client) throw new Error('issueTokens: unknown clientId');
      const scopes = typeof input.scope === 'string' ? parseScope(input.scope) : [...input.scope];
      const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
      if (unknown.length > 0) throw new Error(`issueTokens: unknown scope ${unknown.join(' ')}`);
      if (input.expiresIn !== undefined && !(typeof input.expiresIn === 'number' && Number.isFinite(input.expiresIn) && input.expiresIn >= 0)) {
        throw new Error('issueTokens: expiresIn must be a number of seconds ≥ 0');
      }
      const issued = ctx.tokens.issue({ clientId: client.clientId, scopes, kind: input.kind ?? 'customer', ...(input.expiresIn !== undefined ? { expiresIn: input.expiresIn } : {}) });
      const out: SandboxTokens = { access_token: issued.access_token, token_type: 'Bearer', expires_in: issued.expires_in, scope: issued.scope };
      if (issued.refresh_token !== undefined) out.refresh_token = issued.refresh_token;
      return out;
    },
    reset() {
      generation += 1;
      ctx.clients.reset();
      ctx.tokens.reset();
      ctx.cards.reset();
      ctx.bank.reset();
      ctx.payments.reset();
      ctx.idempotency.reset();
      ctx.limiter?.clear();
      faults.reset();
      log.clear();
    },
  };
  return { handle, controls };
}

/** Copies the controls onto `target` (the handler function, or a server object). */
export function attachControls<T extends object>(target: T, controls: SandboxControls): T & SandboxControls {
  Object.defineProperties(target, Object.getOwnPropertyDescriptors(controls));
  return target as T & SandboxControls;
}

/**
 * Creates a local sandbox of the Open Banking API as a fetch handler: DCR, the OAuth endpoints
 * (authorization code with PKCE, refresh with rotation, client credentials, device code), and
 * every typed operation (cards, customers, accounts, transfers, bills, disputes, direct debits,
 * savings) with every check the spec makes. Nothing leaves the process and no
 * credentials are needed. Runs wherever `fetch`, `Request` and Web Crypto exist.
 *
 * Throws a `ValidationError` listing every bad option.
 * @group Sandbox
 */
export function createSandbox(options?: SandboxOptions): Sandbox {
  const core = buildCore(options);
  const handler = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.signal.aborted) throw request.signal.reason;
    const outcome = await abortable(core.handle(request), request.signal);
    if (outcome.kind === 'drop') throw connectionClosedError();
    if (outcome.kind === 'truncate') return truncatedResponse(outcome.response);
    return outcome.response;
  };
  const sandbox = attachControls(handler, core.controls) as Sandbox;
  cores.set(sandbox, core);
  return sandbox;
}
