import { Auth } from './auth/ob-auth.js';
import { CustomerRefresh, type Refreshed } from './auth/customer-refresh.js';
import { CustomerSession, type CustomerSessionOptions, SessionTokens } from './auth/customer-session.js';
import { type GrantContext, requestGrant } from './auth/grants.js';
import { ClientCredentialsTokens, fleetGrantGuard } from './auth/client-credentials.js';
import type { TokenSetInput } from './auth/token-cache.js';
import type { FetchRegistrationParams, RegisterParams, Registration } from './auth/registration.js';
import { fetchRegistration, register } from './auth/registration.js';
import type { APIPromise } from './core/promise.js';
import type { BearerSource } from './core/http.js';
import type { RequestOptions } from './core/validation.js';
import type { RequestParams } from './core/operation.js';
import type { Scope } from './core/scopes.js';
import { isLoopbackHost } from './core/config.js';
import { FieldCrypto } from './core/field-crypto.js';
import type { ClientEventListener, ClientEventName } from './core/event-types.js';
import type { FleetStore } from './core/store.js';
import { ValidationError } from './errors/base.js';
import { type ClientOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { templateOfPath } from './resources/namespaces.js';
import { Namespaces } from './resources/namespaces.js';
import { OperationRunner } from './core/call.js';

export type { RequestParams } from './core/operation.js';

/** Everything a client holds, kept in one private field so that no secret is an own property. */
interface ClientState {
  config: ResolvedOptions;
  /** Secret fields of the client's calls (and its sessions'), encrypted once per logical call. */
  crypto: FieldCrypto;
  /** The client's own runner: `ob.request` and a session's `request` go through it. */
  runner?: OperationRunner | undefined;
  /** Client-credentials tokens, with the one cache of their token sources (one per scope set). */
  clientTokens: ClientCredentialsTokens;
  /** The customer refresh protocol's side of this client: its claims, and the claims it saw. */
  customerRefresh: CustomerRefresh;
  /** Its sessions' refreshes in flight, by refresh token: the sessions holding one refresh token make one. */
  customerRefreshes: Map<string, Promise<Refreshed>>;
  /** The `fleet` option as given. */
  fleet: FleetStore | undefined;
}

/** A client instance's name in the claims it makes: random, so two clients in one process are two claimers. */
function instanceId(): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The Open Banking Nigeria client.
 *
 * @example
 * ```ts
 * import { OpenBanking } from 'openbanking-ng';
 * const ob = new OpenBanking({ clientId: 'my-client', clientSecret: 'my-secret', environment: 'sandbox' });
 * const card = await ob.cards.create({
 *   account_number: '0123456789',
 *   card_holder_name: 'Ada Obi',
 *   card_status: 'ACTIVE',
 *   card_default_pin: '1234',
 *   card_expiry: { month: '09', year: '2029' },
 * });
 * ```
 * @group Client
 */
export class OpenBanking extends Namespaces {
  /** The OAuth 2.0 grants: authorize URL, code exchange, refresh, client credentials, device code. */
  readonly auth: Auth;
  readonly #state: ClientState;

  /**
   * Validates every option and throws one `ValidationError` listing all problems (missing
   * credentials, a URL without a scheme, plain `http://` to a non-loopback host, a negative timeout…).
   */
  constructor(options: ClientOptions) {
    const config = resolveOptions(options);
    const grant = grantContext(config);
    const auth = new Auth({ grant, redirectUri: config.redirectUri, sleep: config.sleep });
    const { fleet, fleetLockTtl, store } = config;
    const state: ClientState = {
      config,
      crypto: new FieldCrypto(config),
      // With a fleet: one client-credentials grant per scope set across every process.
      clientTokens: new ClientCredentialsTokens(grant, config.tokenStore, fleet && fleetGrantGuard(fleet, fleetLockTtl)),
      customerRefresh: new CustomerRefresh({ instance: instanceId(), store, lockTtlMs: fleetLockTtl, now: () => config.now(), grant: (refreshToken) => requestGrant(grant, { kind: 'refresh_token', refreshToken }) }),
      customerRefreshes: new Map(),
      fleet: options.fleet,
    };
    state.runner = runnerFor(state, undefined);
    super(state.runner);
    this.#state = state;
    this.auth = auth;
  }

  /**
   * Registers an application with the identity host (dynamic client registration,
   * `POST {auth_url}/dcr`). Approved at once in the sandbox environment; in production the
   * answer is `PENDING_APPROVAL` with null credentials (a result, not an error) until the
   * provider approves it. Rejects with `ValidationError` before sending anything when a field is
   * missing or malformed, with `OAuthError` when the identity host refuses.
   *
   * @example
   * ```ts
   * const registration = await OpenBanking.register({
   *   authUrl: 'https://identity-sandbox.sparkle.fyi',
   *   username: 'my-fintech',
   *   password: process.env.OB_REGISTRATION_PASSWORD!,
   *   app_name: 'My Fintech',
   *   redirect_url: 'https://my-fintech.example/callback',
   * });
   * const ob = OpenBanking.fromRegistration(registration);
   * ```
   * @group Registration
   */
  static register(params: RegisterParams): Promise<Registration> {
    return register(params);
  }

  /**
   * Builds a client from what {@link OpenBanking.register} returned: its credentials, the
   * `api_base_url` and `auth_base_url` it carries, its `connection_id` and `participant_id`, and
   * its first redirect URI. `options` add to or override any of these. Throws `ValidationError`
   * while the registration is still `PENDING_APPROVAL`.
   * @group Registration
   */
  static fromRegistration(credentials: Registration, options?: Omit<ClientOptions, 'clientId' | 'clientSecret'>): OpenBanking {
    return new this(clientOptionsFromRegistration(credentials, options));
  }

  /**
   * Fetches the application's credentials once production approval is granted: GET
   * `{auth_url}/dcr` with HTTP Basic (the registration's `username:password`). Resolves to the
   * flat credentials; `status: 'PENDING_APPROVAL'` (null `client_id` and `client_secret`) while
   * approval is pending.
   *
   * @example
   * ```ts
   * declare const username: string, password: string;
   * declare function saveSecret(id: string, secret: string): void;
   * // authUrl: the production identity host your provider gave you (it is not published)
   * const creds = await OpenBanking.fetchRegistration({ authUrl: process.env.OB_AUTH_URL!, username, password });
   * if (creds.status === 'APPROVED') saveSecret(creds.client_id!, creds.client_secret!);
   * ```
   * @group Registration
   */
  static fetchRegistration(params: FetchRegistrationParams): Promise<Registration> {
    return fetchRegistration(params);
  }

  /** The environment this client talks to. */
  get environment(): ResolvedOptions['environment'] {
    return this.#state.config.environment;
  }
  /** API gateway base URL (no trailing slash). */
  get baseUrl(): string {
    return this.#state.config.baseUrl;
  }
  /** Identity host URL (no trailing slash). */
  get authUrl(): string {
    return this.#state.config.authUrl;
  }
  /** The application's client id. */
  get clientId(): string {
    return this.#state.config.clientId;
  }
  /**
   * The `fleet` option's store as given, or undefined: for code built on the client that keeps
   * state of its own across the fleet, such as the daily limits of `openbanking-ng/mcp`.
   * @group Fleets
   */
  get fleet(): FleetStore | undefined {
    return this.#state.fleet;
  }

  /**
   * Listens to the client's calls: `callStart`, `request`, `response`, `retry`, `rateLimitWait`,
   * `token` and `callEnd` (see {@link ClientEvents}), for the calls of its customer sessions
   * too. Returns the function that removes the listener. A listener that throws or rejects is
   * logged at `warn` and never changes the call; payloads are redacted and carry no body. An unknown
   * name or a listener that is not a function throws `ValidationError` at once.
   *
   * @example
   * ```ts
   * const off = ob.on('response', (e) => console.log(e.operation, e.status, e.durationMs));
   * off();
   * ```
   * @group Observability
   */
  on<N extends ClientEventName>(name: N, listener: ClientEventListener<N>): () => void {
    return this.#state.config.events.on(name, listener);
  }

  /**
   * Calls any API operation through the same pipeline (validation, token, idempotency key,
   * signature, retries, envelope). For the operations that have no typed method. Resolves to the
   * envelope's `data` (or the whole body when it has no envelope).
   *
   * @example
   * ```ts
   * const loans = await ob.request<{ loans: unknown[] }>({ method: 'GET', path: '/loans', scope: 'loans.list' });
   * ```
   */
  request<Data = unknown>(params: RequestParams, options?: RequestOptions): APIPromise<Data> {
    const bearer: BearerSource =
      params?.customer === true
        ? {
            token: () => Promise.reject(new ValidationError('Invalid request parameters', [{ path: 'customer', message: 'needs a customer session: call ob.forCustomer(tokens).request(...)', code: 'no_customer_session' }])),
            renew: () => Promise.resolve(undefined),
          }
        : this.#state.clientTokens.source(requestScopes(params));
    return send<Data>(this.#state, params, options, bearer);
  }

  /**
   * A view of this client whose calls use a customer's access token (from `ob.auth.exchangeCode`
   * or `ob.auth.pollDeviceToken`), refreshed ahead of expiry with one refresh for any number of
   * concurrent calls; `onTokens` receives every new set so you can persist it. The session
   * carries every namespace: `session.accounts.list()`, `session.customers.retrieve()`, …
   * With the `fleet` option, sessions given the same `id` in any process share one refresh (see
   * `docs/scaling.md`).
   *
   * @example
   * ```ts
   * import type { TokenSet } from 'openbanking-ng';
   * declare const tokens: TokenSet;
   * declare function saveTokens(t: TokenSet): Promise<void>;
   * const customer = ob.forCustomer(tokens, { onTokens: saveTokens });
   * const { accounts } = await customer.accounts.list();
   * ```
   */
  forCustomer(tokens: TokenSetInput, options?: CustomerSessionOptions): CustomerSession {
    const state = this.#state;
    const session = new SessionTokens(state.customerRefresh, state.customerRefreshes, () => state.config.now(), tokens, options);
    return new CustomerSession({
      runner: runnerFor(state, session.bearer, () => session.consent.scopes, (bearer) => session.gate(bearer)),
      tokens: session,
      send: (params, callOptions, bearer) => send(state, params, callOptions, bearer),
      clientBearer: (params) => session.gate(state.clientTokens.source(requestScopes(params))),
      id: typeof options?.id === 'string' ? options.id : undefined,
    });
  }

  /** A redacted view for `console.log` and `util.inspect`: never the secret. */
  toJSON(): Record<string, unknown> {
    const c = this.#state.config;
    return { clientId: c.clientId, environment: c.environment, baseUrl: c.baseUrl, authUrl: c.authUrl };
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OpenBanking ${JSON.stringify(this.toJSON())}`;
  }
}

/** The operation runner of the client (`customer` undefined) or of a customer session. */
function runnerFor(
  state: ClientState,
  customer: BearerSource | undefined,
  granted?: () => readonly string[] | undefined,
  gate?: (bearer: BearerSource) => BearerSource,
): OperationRunner {
  return new OperationRunner({
    granted,
    clock: { now: state.config.now, sleep: state.config.sleep },
    config: state.config,
    crypto: state.crypto,
    endpoints: state.config.endpoints,
    operationScopes: state.config.operationScopes,
    clientTokens: state.clientTokens,
    gate,
    customerBearer: customer,
  });
}

/** `request` parameters through the pipeline with the given token source. */
function send<Data>(state: ClientState, params: RequestParams, options: RequestOptions | undefined, bearer: BearerSource): APIPromise<Data> {
  const urlTemplate = typeof params?.urlTemplate === 'string' ? params.urlTemplate : templateOfPath(params?.method, params?.path);
  return state.runner!.request<Data>(params, options, bearer, urlTemplate);
}

/** The scopes named by `params.scope`, as a list (the parameters are checked when the call runs). */
function requestScopes(params: RequestParams): Scope[] {
  const scope = params?.scope;
  return typeof scope === 'string' ? [scope] : Array.isArray(scope) ? [...(scope as Scope[])] : [];
}

/** What a grant needs from the client's options. */
function grantContext(c: ResolvedOptions): GrantContext {
  const { clientId, clientSecret, authUrl, fetch, timeout, maxResponseBytes, now, events, secrets, endpoints } = c;
  return { clientId, clientSecret, authUrl, fetch, timeout, maxResponseBytes, now, events, secrets, endpoints, loopback: isLoopbackHost(new URL(authUrl).hostname) };
}

/**
 * The client options a registration implies: credentials, hosts, `connectionId`,
 * `participantId` and the first redirect URI; `options` override any of them. Throws
 * `ValidationError` while the registration has no credentials (still pending).
 */
function clientOptionsFromRegistration(credentials: Registration, options: Omit<ClientOptions, 'clientId' | 'clientSecret'> = {}): ClientOptions {
  if (typeof credentials !== 'object' || credentials === null) {
    throw new ValidationError('Cannot build a client from this registration', [{ path: '', message: 'must be the object OpenBanking.register returned', code: 'invalid_type' }]);
  }
  if (!credentials.client_id || !credentials.client_secret) {
    const pending = credentials.status === 'PENDING_APPROVAL';
    throw new ValidationError('Cannot build a client from this registration', [
      {
        path: pending ? 'status' : 'client_id',
        message: pending
          ? 'is PENDING_APPROVAL: the credentials are issued once the provider approves the registration; fetch them then (GET /dcr with your username and password)'
          : 'client_id and client_secret are required',
        code: pending ? 'pending_approval' : 'missing',
      },
    ]);
  }
  const derived: ClientOptions = { clientId: credentials.client_id, clientSecret: credentials.client_secret };
  if (credentials.api_base_url) derived.baseUrl = credentials.api_base_url;
  if (credentials.auth_base_url) derived.authUrl = credentials.auth_base_url;
  if (credentials.connection_id) derived.connectionId = credentials.connection_id;
  if (credentials.participant_id) derived.participantId = credentials.participant_id;
  if (credentials.redirect_urls?.[0]) derived.redirectUri = credentials.redirect_urls[0];
  return { ...derived, ...options };
}
