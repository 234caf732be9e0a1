import { Auth } from './auth/auth.js';
import { ClientCredentialsTokens } from './auth/client-credentials.js';
import { CustomerSession, type CustomerSessionOptions } from './auth/customer-session.js';
import type { GrantContext } from './auth/grant.js';
import type { TokenSetInput } from './auth/token-store.js';
import { clientOptionsFromRegistration, fetchRegistration, type FetchRegistrationParams, type RegisterParams, type Registration, register } from './auth/registration.js';
import { type Scope, scopeList, SCOPES } from './auth/scopes.js';
import type { APIPromise } from './core/api-promise.js';
import { type BearerSource, type HttpMethod, type RequestOptions, Transport } from './core/transport.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import { type ClientOptions, describeType, type ResolvedOptions, resolveOptions } from './options.js';
import { Cards } from './resources/cards.js';
import type { ResourceContext } from './resources/resource.js';

/**
 * Parameters of {@link OpenBanking.request}: any API operation through the same pipeline.
 * @group Client
 */
export interface RequestParams {
  /** HTTP method. */
  method: HttpMethod;
  /** Path under the base URL, starting with `/`, e.g. `/accounts`. Encode path segments yourself. */
  path: string;
  /** JSON body. */
  body?: unknown;
  /** Query parameters; `undefined` values are left out, arrays repeat the name. */
  query?: Record<string, string | number | boolean | Date | undefined | null | readonly (string | number | boolean)[]>;
  /** Client-credentials scope(s) the operation needs. */
  scope?: Scope | readonly Scope[];
  /** Use the customer's token (only on a customer session from `ob.forCustomer`). */
  customer?: boolean;
}

const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const accessToken = (token: { access_token: string }): string => token.access_token;
const REQUEST_KEYS = new Set(['method', 'path', 'body', 'query', 'scope', 'customer']);

/** Checks `ob.request` parameters; returns the problems. */
export function checkRequestParams(params: RequestParams): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof params !== 'object' || params === null) {
    return [{ path: '', message: `must be an object { method, path, ... }, got ${describeType(params)}`, code: 'invalid_type' }];
  }
  for (const key of Object.keys(params)) {
    if (!REQUEST_KEYS.has(key)) issues.push({ path: key, message: 'is not a request parameter', code: 'unrecognized_keys' });
  }
  if (typeof params.method !== 'string' || !METHODS.includes(params.method)) {
    issues.push({ path: 'method', message: `must be one of ${METHODS.join(', ')}`, code: 'invalid_value' });
  }
  if (typeof params.path !== 'string' || !params.path.startsWith('/') || params.path.startsWith('//') || /[\s?#]|(^|\/)\.\.?(\/|$)/.test(params.path)) {
    issues.push({ path: 'path', message: 'must be a path starting with / without spaces, query, fragment or dot segments', code: 'invalid_format' });
  }
  if (params.query !== undefined && (typeof params.query !== 'object' || params.query === null || Array.isArray(params.query))) {
    issues.push({ path: 'query', message: 'must be an object', code: 'invalid_type' });
  }
  if (params.scope !== undefined) {
    const list = typeof params.scope === 'string' ? [params.scope] : Array.isArray(params.scope) ? params.scope : undefined;
    if (!list) issues.push({ path: 'scope', message: 'must be a scope name or an array of them', code: 'invalid_type' });
    else for (const s of list) if (!(SCOPES as readonly string[]).includes(s)) issues.push({ path: 'scope', message: `"${String(s)}" is not a scope of the spec`, code: 'invalid_value' });
  }
  if (params.customer !== undefined && typeof params.customer !== 'boolean') issues.push({ path: 'customer', message: 'must be a boolean', code: 'invalid_type' });
  return issues;
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
export class OpenBanking {
  /** Customer cards. */
  readonly cards: Cards;
  /** The OAuth 2.0 grants: authorize URL, code exchange, refresh, client credentials, device code. */
  readonly auth: Auth;
  /** @internal */
  protected readonly transport: Transport;
  /** @internal */
  protected readonly clientTokens: ClientCredentialsTokens;
  /** @internal */
  protected readonly config: ResolvedOptions;

  /**
   * Validates every option and throws one `ValidationError` listing all problems (missing
   * credentials, a URL without a scheme, plain `http://` to a non-loopback host, a negative timeout…).
   */
  constructor(options: ClientOptions) {
    this.config = resolveOptions(options);
    this.transport = new Transport(this.config);
    this.clientTokens = new ClientCredentialsTokens(this.grantContext(), this.config.endpoints.clientCredentials, this.config.tokenStore);
    this.cards = new Cards(this.resourceContext());
    const c = this.config;
    this.auth = new Auth({ grant: this.grantContext(), endpoints: c.endpoints, redirectUri: c.redirectUri, sleep: c.sleep });
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
    return new OpenBanking(clientOptionsFromRegistration(credentials, options));
  }

  /** The environment this client talks to. */
  get environment(): ResolvedOptions['environment'] {
    return this.config.environment;
  }
  /** API gateway base URL (no trailing slash). */
  get baseUrl(): string {
    return this.config.baseUrl;
  }
  /** Identity host URL (no trailing slash). */
  get authUrl(): string {
    return this.config.authUrl;
  }
  /** The application's client id. */
  get clientId(): string {
    return this.config.clientId;
  }

  /**
   * Calls any API operation through the same pipeline (validation, token, idempotency key,
   * signature, retries, envelope). For the areas whose paths the spec does not show. Resolves to
   * the envelope's `data` (or the whole body when it has no envelope).
   *
   * @example
   * ```ts
   * const accounts = await ob.request<{ accounts: unknown[] }>({ method: 'GET', path: '/accounts', scope: 'accounts.list.readonly' });
   * ```
   */
  request<Data = unknown>(params: RequestParams, options?: RequestOptions): APIPromise<Data> {
    return this.send<Data>(params, options, this.requestBearer(params));
  }

  /** @internal `ob.request` with the bearer source chosen by the caller (customer sessions). */
  protected send<Data>(params: RequestParams, options: RequestOptions | undefined, bearer: BearerSource): APIPromise<Data> {
    return this.transport.request<unknown, Data>(
      {
        method: params?.method,
        path: params?.path,
        query: params?.query,
        body: params?.body,
        bearer,
      },
      options,
      () => {
        const issues = checkRequestParams(params);
        if (issues.length > 0) throw new ValidationError('Invalid request parameters', issues);
      },
    );
  }

  /**
   * Fetches the application's credentials once production approval is granted: GET
   * `{auth_url}/dcr` with HTTP Basic (the registration's `username:password`). Resolves to the
   * flat credentials; `status: 'PENDING_APPROVAL'` (null `client_id` and `client_secret`) while
   * approval is pending.
   *
   * @example
   * ```ts
   * // authUrl: the production identity host your provider gave you (it is not published)
   * const creds = await OpenBanking.fetchRegistration({ authUrl: process.env.OB_AUTH_URL!, username, password });
   * if (creds.status === 'APPROVED') saveSecret(creds.client_id!, creds.client_secret!);
   * ```
   */
  static fetchRegistration(params: FetchRegistrationParams): Promise<Registration> {
    return fetchRegistration(params);
  }

  /**
   * A view of this client whose calls use a customer's access token (from `ob.auth.exchangeCode`
   * or `ob.auth.pollDeviceToken`), refreshed ahead of expiry with one refresh for any number of
   * concurrent calls; `onTokens` receives every new set so you can persist it.
   *
   * @example
   * ```ts
   * const customer = ob.forCustomer(tokens, { onTokens: (t) => db.saveTokens(userId, t) });
   * const accounts = await customer.request({ method: 'GET', path: '/accounts' });
   * ```
   */
  forCustomer(tokens: TokenSetInput, options?: CustomerSessionOptions): CustomerSession {
    return new CustomerSession(
      {
        send: (params, callOptions, bearer) => this.send(params, callOptions, bearer),
        clientBearer: (params) => this.requestBearer({ ...params, customer: false }),
        refresh: (refreshToken) => this.auth.refresh(refreshToken),
        now: () => this.config.now(),
      },
      tokens,
      options,
    );
  }

  /** @internal Token source for `ob.request` (customer sessions bring their own). */
  protected requestBearer(params: RequestParams): BearerSource {
    if (params?.customer === true) {
      return {
        token: () => Promise.reject(new ValidationError('Invalid request parameters', [{ path: 'customer', message: 'needs a customer session: call ob.forCustomer(tokens).request(...)', code: 'no_customer_session' }])),
        renew: () => Promise.resolve(undefined),
      };
    }
    return this.clientBearer(scopeList(typeof params?.scope === 'string' ? [params.scope] : (params?.scope ?? [])) as Scope[]);
  }

  /** @internal A bearer source backed by cached client-credentials tokens for `scopes`. */
  protected clientBearer(scopes: readonly Scope[]): BearerSource {
    return {
      token: () => this.clientTokens.get(scopes).then(accessToken),
      renew: (rejected) => this.clientTokens.renew(scopes, rejected).then(accessToken),
    };
  }

  /** @internal */
  protected resourceContext(): ResourceContext {
    return { transport: this.transport, bearer: (scopes) => this.clientBearer(scopes) };
  }

  /** @internal */
  protected grantContext(): GrantContext {
    const c = this.config;
    return { clientId: c.clientId, clientSecret: c.clientSecret, authUrl: c.authUrl, fetch: c.fetch, timeout: c.timeout, now: c.now };
  }

  /** A redacted view for `console.log` and `util.inspect`: never the secret. */
  toJSON(): Record<string, unknown> {
    return { clientId: this.config.clientId, environment: this.config.environment, baseUrl: this.config.baseUrl, authUrl: this.config.authUrl };
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OpenBanking ${JSON.stringify(this.toJSON())}`;
  }
}
