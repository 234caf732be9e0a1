import * as oauth from 'oauth4webapi';
import { AbortError, OAuthError, ValidationError, type ValidationIssue } from '../errors/base.js';
import { type ScopeInput, scopeList } from '../core/scopes.js';
import type { Sleep } from '../core/retry-timing.js';
import { type AuthorizationRequest, checkCodeVerifier, checkRedirectUri, createAuthorizationRequest, requireString, scopeString } from './pkce.js';
import { authorizationServer, type GrantContext, requestGrant, runGrant } from './grants.js';
import type { TokenSet } from './token-cache.js';

// `ob.auth`: every argument checked before anything is sent, then the grant; and the device-code
// flow, a request then polling.

/** What `ob.auth` needs from its client. */
export interface AuthContext {
  grant: GrantContext;
  redirectUri: string | undefined;
  sleep: Sleep;
}

/**
 * Options every `ob.auth` grant takes as its last argument.
 * @group OAuth
 */
export interface GrantOptions {
  /** Aborts the request; the promise rejects with `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Input of {@link Auth.authorizationUrl}: the client supplies `authUrl`, `clientId`, the
 * authorize path and (unless given here) its `redirectUri` option.
 * @group OAuth
 */
export interface AuthorizationUrlParams {
  /** Scopes to ask the customer for: an array of the spec's names or one space-separated string. */
  scope: ScopeInput;
  /** Default: the client's `redirectUri` option. */
  redirectUri?: string;
  /** Default: random. */
  state?: string;
  /** Default: random (43–128 unreserved characters when given). */
  codeVerifier?: string;
}

/**
 * Input of {@link Auth.exchangeCode}.
 * @group OAuth
 */
export interface ExchangeCodeParams {
  /** The authorization code from the callback. */
  code: string;
  /** The PKCE code verifier the authorization request was built with. */
  codeVerifier: string;
  /** The redirect URI of the authorization request, exactly. Default: the client's `redirectUri` option. */
  redirectUri?: string;
}

/**
 * Options of {@link Auth.deviceCode}.
 * @group OAuth
 */
export interface DeviceCodeOptions extends GrantOptions {
  /** The target bank connection (`target_connection_id`), e.g. `'CONN0987654321'`. */
  targetConnectionId?: string;
}

/**
 * Options of {@link Auth.pollDeviceToken}.
 * @group OAuth
 */
export interface PollDeviceTokenOptions extends GrantOptions {
  /** Seconds between polls. Default: the response's `interval`, else 5. `slow_down` adds 5 s. Never less than 1 s, whatever the server says. */
  interval?: number;
}

/**
 * The provider's consent details on a device authorization (Sparkle's `obn_custom_metadata`).
 * @group OAuth
 */
export interface DeviceConsentMetadata {
  /** How the customer confirms consent, e.g. `'OAUTH2'`. */
  consent_validation_method?: string;
  /** Text to show (or send by SMS/USSD) to the customer. */
  consent_message?: string;
  /** Consent state, e.g. `'PENDING_VALIDATION'`. */
  consent_status?: string;
  [extra: string]: unknown;
}

/**
 * The device-authorization response (RFC 8628 §3.2), as the identity host sent it: unknown members
 * are kept.
 * @group OAuth
 */
export interface DeviceAuthorization {
  /** The code the backend polls the token endpoint with. Keep it secret. */
  device_code: string;
  /** The short code the customer confirms, e.g. `'BZ4K8'`. */
  user_code: string;
  /** Where the customer enters the code. */
  verification_uri: string;
  /** The verification URI with the code filled in, when the host sends one. */
  verification_uri_complete?: string;
  /** Seconds to wait between polls (5 when absent). */
  interval?: number;
  /** Lifetime of the codes in seconds. */
  expires_in: number;
  /** The provider's consent details (Sparkle sends them on every response). */
  obn_custom_metadata?: DeviceConsentMetadata;
  [extra: string]: unknown;
}

/** RFC 8628 §3.5: the default polling interval, and how much `slow_down` adds, in seconds. */
export const DEVICE_POLL_INTERVAL = 5;
/** The shortest wait between polls (seconds), whatever the server's `interval`. */
export const MIN_DEVICE_POLL_INTERVAL = 1;
/** What each `slow_down` answer adds to the interval (seconds). */
export const SLOW_DOWN_STEP = 5;

/** When each device authorization this SDK returned was received (ms), for the local expiry check. */
const receivedAt = new WeakMap<object, number>();

/**
 * The OAuth 2.0 grants of the identity host: `ob.auth`. Every method returns a promise and
 * reports every failure by rejecting it: `ValidationError` for bad input (nothing is sent),
 * `OAuthError` for an OAuth error answer (`error`, `errorDescription`, `status`),
 * `ConnectionError` / `TimeoutError` when the identity host cannot be reached, `AbortError` when
 * the signal fires. Client authentication is `client_secret_post`.
 *
 * @example
 * ```ts
 * const tokens = await ob.auth.exchangeCode({ code, codeVerifier, redirectUri: 'https://app.example.com/callback' });
 * const fresh = await ob.auth.refresh(tokens.refresh_token);
 * ```
 * @group OAuth
 */
export class Auth {
  /** Private, never an own property: the grant context holds the client secret. */
  readonly #ctx: AuthContext;

  /** @internal */
  constructor(ctx: AuthContext) {
    this.#ctx = ctx;
  }

  /** A view for logs: the identity host and the client id, never the secret. */
  toJSON(): Record<string, unknown> {
    return { authUrl: this.#ctx.grant.authUrl, clientId: this.#ctx.grant.clientId };
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Auth ${JSON.stringify(this.toJSON())}`;
  }

  /**
   * Builds the authorize URL with PKCE (S256) and `state`, from the client's `authUrl`,
   * `clientId`, `endpoints.authorize` and `redirectUri`. The same as `createAuthorizationRequest`
   * of `openbanking-ng/pkce`, for backends that start the flow themselves.
   *
   * @example
   * ```ts
   * // the scopes of the operations the app will call
   * const scope = [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']];
   * const { url, state, codeVerifier } = await ob.auth.authorizationUrl({ scope });
   * ```
   */
  async authorizationUrl(params: AuthorizationUrlParams): Promise<AuthorizationRequest> {
    const { grant } = this.#ctx;
    const p = params ?? ({} as AuthorizationUrlParams);
    const redirectUri = p.redirectUri ?? this.#ctx.redirectUri;
    if (redirectUri === undefined) throw new ValidationError('Invalid authorization request', [missingRedirectUri]);
    return createAuthorizationRequest({
      authUrl: grant.authUrl,
      clientId: grant.clientId,
      redirectUri,
      scope: p.scope,
      ...(p.state !== undefined ? { state: p.state } : {}),
      ...(p.codeVerifier !== undefined ? { codeVerifier: p.codeVerifier } : {}),
      authorizePath: grant.endpoints.authorize,
    });
  }

  /**
   * Exchanges the authorization code for the customer's tokens: POST `{auth_url}/oauth/token`
   * with `grant_type=authorization_code`, `client_id`, `client_secret`, `code`, `redirect_uri`
   * and `code_verifier`. A used, expired or unknown code, or a wrong verifier, rejects with
   * `OAuthError('invalid_grant')`.
   *
   * @example
   * ```ts
   * const tokens = await ob.auth.exchangeCode({ code, codeVerifier, redirectUri: 'https://app.example.com/callback' });
   * ```
   */
  async exchangeCode(params: ExchangeCodeParams, options?: GrantOptions): Promise<TokenSet> {
    const { grant } = this.#ctx;
    const issues: ValidationIssue[] = [];
    const p = params ?? ({} as ExchangeCodeParams);
    requireString(issues, 'code', p.code);
    checkCodeVerifier(issues, 'codeVerifier', p.codeVerifier);
    const redirectUri = p.redirectUri ?? this.#ctx.redirectUri;
    if (redirectUri === undefined) issues.push(missingRedirectUri);
    else checkRedirectUri(issues, 'redirectUri', redirectUri);
    const signal = checkSignal(issues, options);
    throwIfAny('Invalid code exchange', issues);
    grant.secrets?.remember('login', p.code);
    grant.secrets?.remember('login', p.codeVerifier);
    return requestGrant(grant, { kind: 'authorization_code', code: p.code, codeVerifier: p.codeVerifier, redirectUri: redirectUri! }, signal);
  }

  /**
   * Gets a new token set with a refresh token: POST `{auth_url}/oauth/token` with
   * `grant_type=refresh_token`, `client_id`, `client_secret` and `refresh_token`. The answer may
   * carry a new (rotated) refresh token: store it, the old one may no longer work. When the
   * server does not rotate, the given refresh token is carried over into the new set.
   *
   * Do not retry a refresh that failed with `OAuthError`: with rotating refresh tokens a second
   * attempt only turns into `invalid_grant`.
   *
   * Takes `tokens.refresh_token` as it is typed (optional): a token set without one rejects with
   * `ValidationError` (`refreshToken: is required`) and nothing is sent.
   */
  async refresh(refreshToken: string | undefined, options?: GrantOptions): Promise<TokenSet> {
    const issues: ValidationIssue[] = [];
    requireString(issues, 'refreshToken', refreshToken);
    const signal = checkSignal(issues, options);
    throwIfAny('Invalid refresh', issues);
    return requestGrant(this.#ctx.grant, { kind: 'refresh_token', refreshToken: refreshToken as string }, signal);
  }

  /**
   * Requests a client-credentials token: POST `{auth_url}/oauth2/token` with
   * `grant_type=client_credentials`, `client_id`, `client_secret` and `scope`. Every call makes
   * one request; API calls need none of this, they get (and cache) their tokens themselves.
   *
   * @example
   * ```ts
   * const cc = await ob.auth.clientCredentials(['cards.create']);
   * ```
   */
  async clientCredentials(scopes: ScopeInput, options?: GrantOptions): Promise<TokenSet> {
    const issues: ValidationIssue[] = [];
    const scope = scopeString(issues, 'scopes', scopes, false);
    const signal = checkSignal(issues, options);
    throwIfAny('Invalid client credentials request', issues);
    return requestGrant(this.#ctx.grant, { kind: 'client_credentials', scope: scopeList(scope).join(' ') }, signal);
  }

  /**
   * Starts the device-code flow (for customers on USSD, SMS or other limited channels): POST
   * `{auth_url}/oauth2/device/code` with `client_id`, `scope` and, when given,
   * `target_connection_id`. Resolves to the device-authorization response, the provider's
   * `obn_custom_metadata` included; show `user_code` / `obn_custom_metadata.consent_message` to
   * the customer, then call {@link Auth.pollDeviceToken}.
   *
   * @example
   * ```ts
   * const device = await ob.auth.deviceCode([...OPERATION_SCOPES['accounts.list']], { targetConnectionId: 'CONN0987654321' });
   * sendSms(customerPhone, device.obn_custom_metadata?.consent_message ?? `Code: ${device.user_code}`);
   * const tokens = await ob.auth.pollDeviceToken(device, { signal: AbortSignal.timeout(15 * 60_000) });
   * ```
   */
  async deviceCode(scopes: ScopeInput, options?: DeviceCodeOptions): Promise<DeviceAuthorization> {
    const ctx = this.#ctx.grant;
    const issues: ValidationIssue[] = [];
    const scope = scopeString(issues, 'scopes', scopes, true);
    const signal = checkSignal(issues, options);
    const target = options?.targetConnectionId;
    if (target !== undefined) requireString(issues, 'targetConnectionId', target);
    throwIfAny('Invalid device code request', issues);
    const url = ctx.authUrl + ctx.endpoints.deviceCode;
    const as = authorizationServer(ctx, { device_authorization_endpoint: url });
    const client: oauth.Client = { client_id: ctx.clientId };
    return runGrant('device_authorization', { ctx, url, signal }, async (requestOptions) => {
      const params = new URLSearchParams({ scope });
      if (target !== undefined) params.set('target_connection_id', target);
      // The spec's form has `client_id` and no secret: client authentication "none".
      const response = await oauth.deviceAuthorizationRequest(as, client, oauth.None(), params, requestOptions);
      const result = { ...(await oauth.processDeviceAuthorizationResponse(as, client, response)) } as DeviceAuthorization;
      receivedAt.set(result, ctx.now());
      return result;
    });
  }

  /**
   * Polls `{auth_url}/oauth2/token` with `grant_type=urn:ietf:params:oauth:grant-type:device_code`
   * until the customer answers, as RFC 8628 asks: it waits `interval` seconds (the response's,
   * else 5) before each poll, keeps polling on `authorization_pending`, waits 5 s longer after
   * each `slow_down`, and resolves to the token set once the customer approves. A denial rejects
   * with `OAuthError('access_denied')`, an expired code with `OAuthError('expired_token')`
   * (also checked locally against `expires_in` when the whole response is given). A network
   * failure rejects at once; polling again with the same device code is safe.
   *
   * @param deviceCodeOrResponse - the `device_code`, or the whole response of {@link Auth.deviceCode}
   */
  async pollDeviceToken(deviceCodeOrResponse: string | DeviceAuthorization, options?: PollDeviceTokenOptions): Promise<TokenSet> {
    const issues: ValidationIssue[] = [];
    const response = typeof deviceCodeOrResponse === 'object' && deviceCodeOrResponse !== null ? deviceCodeOrResponse : undefined;
    const deviceCode = response ? response.device_code : deviceCodeOrResponse;
    requireString(issues, response ? 'device_code' : 'deviceCode', deviceCode);
    const signal = checkSignal(issues, options);
    const interval = options?.interval ?? (typeof response?.interval === 'number' ? response.interval : DEVICE_POLL_INTERVAL);
    if (typeof interval !== 'number' || !Number.isFinite(interval) || interval < 0) {
      issues.push({ path: 'interval', message: 'must be a number of seconds ≥ 0', code: 'invalid_value' });
    }
    throwIfAny('Invalid device token poll', issues);
    // A server (or caller) asking for 0 s would turn polling into a busy loop against the identity host.
    return pollDevice(this.#ctx, deviceCode as string, Math.max(interval, MIN_DEVICE_POLL_INTERVAL), response, signal);
  }
}

const missingRedirectUri: ValidationIssue = { path: 'redirectUri', message: 'is required (pass it here or set the redirectUri option of the client)', code: 'missing' };

/** The `signal` of a grant's options, or an issue when it is not one. */
function checkSignal(issues: ValidationIssue[], options: GrantOptions | undefined): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    issues.push({ path: 'options', message: 'must be an object', code: 'invalid_type' });
    return undefined;
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    issues.push({ path: 'signal', message: 'must be an AbortSignal', code: 'invalid_type' });
    return undefined;
  }
  return options.signal;
}

function throwIfAny(what: string, issues: ValidationIssue[]): void {
  if (issues.length > 0) throw new ValidationError(what, issues);
}

/**
 * The device code grant until the customer answers: waits `interval` seconds before each poll,
 * keeps going on `authorization_pending`, adds 5 s to the interval on `slow_down`, and rejects
 * with the `OAuthError` of any other answer (`access_denied`, `expired_token`, ...). Never waits
 * past the code's expiry, when the device authorization it came from is known.
 */
async function pollDevice(ctx: AuthContext, deviceCode: string, interval: number, authorization: DeviceAuthorization | undefined, signal: AbortSignal | undefined): Promise<TokenSet> {
  const { grant } = ctx;
  const expiresIn = authorization?.expires_in;
  const deadline = typeof expiresIn === 'number' && authorization ? (receivedAt.get(authorization) ?? grant.now()) + expiresIn * 1000 : undefined;
  const expired = () => new OAuthError('expired_token', 'the device code expired before the customer answered; request a new one');
  for (;;) {
    // Never sleep past the code's expiry: a wait that would end after it ends at it.
    const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - grant.now();
    if (left <= 0) throw expired();
    try {
      await ctx.sleep(Math.min(interval * 1000, left), signal);
    } catch {
      throw new AbortError('device code polling: aborted');
    }
    if (signal?.aborted) throw new AbortError('device code polling: aborted');
    if (interval * 1000 >= left || (deadline !== undefined && grant.now() >= deadline)) throw expired();
    try {
      return await requestGrant(grant, { kind: 'device_code', deviceCode }, signal);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.error === 'authorization_pending') continue;
      if (error.error === 'slow_down') {
        interval += SLOW_DOWN_STEP;
        continue;
      }
      throw error;
    }
  }
}
