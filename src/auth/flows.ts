import * as oauth from 'oauth4webapi';
import { AbortError, OAuthError } from '../errors/index.js';
import { ValidationError, type ValidationIssue } from '../errors/index.js';
import { type ScopeInput, scopeList } from '../core/scopes.js';
import type { Endpoints } from '../core/config.js';
import type { Sleep } from '../core/retry-timing.js';
import { type AuthorizationRequest, checkCodeVerifier, checkRedirectUri, requireString, scopeString } from './authorization.js';
import { createAuthorizationRequest } from './authorization.js';
import { authorizationServer, type GrantContext, requestClientCredentials, requestCodeExchange, requestRefresh, runGrant, toTokenSet, type TokenSet } from './grant.js';

// The bodies of `ob.auth`'s methods: every argument checked before anything is sent, then the grant;
// and the device-code flow, a request then polling.

/** What `ob.auth` needs from its client. */
export interface AuthContext {
  grant: GrantContext;
  endpoints: Endpoints;
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

/** `ob.auth.authorizationUrl`: the authorize URL with PKCE (S256) and state. */
export async function authorizationUrl(ctx: AuthContext, params: AuthorizationUrlParams): Promise<AuthorizationRequest> {
  const { grant, endpoints } = ctx;
  const p = params ?? ({} as AuthorizationUrlParams);
  const redirectUri = p.redirectUri ?? ctx.redirectUri;
  if (redirectUri === undefined) {
    throw new ValidationError('Invalid authorization request', [
      { path: 'redirectUri', message: 'is required (pass it here or set the redirectUri option of the client)', code: 'missing' },
    ]);
  }
  return createAuthorizationRequest({
    authUrl: grant.authUrl,
    clientId: grant.clientId,
    redirectUri,
    scope: p.scope,
    ...(p.state !== undefined ? { state: p.state } : {}),
    ...(p.codeVerifier !== undefined ? { codeVerifier: p.codeVerifier } : {}),
    authorizePath: endpoints.authorize,
  });
}

/** `ob.auth.exchangeCode`: the arguments checked, then the code exchanged. */
export async function exchangeCode(ctx: AuthContext, params: ExchangeCodeParams, options?: GrantOptions): Promise<TokenSet> {
  const issues: ValidationIssue[] = [];
  const p = params ?? ({} as ExchangeCodeParams);
  requireString(issues, 'code', p.code);
  checkCodeVerifier(issues, 'codeVerifier', p.codeVerifier);
  const redirectUri = p.redirectUri ?? ctx.redirectUri;
  if (redirectUri === undefined) issues.push({ path: 'redirectUri', message: 'is required (pass it here or set the redirectUri option of the client)', code: 'missing' });
  else checkRedirectUri(issues, 'redirectUri', redirectUri);
  const signal = checkSignal(issues, options);
  throwIfAny('Invalid code exchange', issues);
  ctx.grant.secrets?.remember('login', p.code);
  ctx.grant.secrets?.remember('login', p.codeVerifier);
  return requestCodeExchange(ctx.grant, ctx.endpoints.token, { code: p.code, codeVerifier: p.codeVerifier, redirectUri: redirectUri! }, signal);
}

/** `ob.auth.refresh`: the refresh token checked, then the refresh grant. */
export async function refresh(ctx: AuthContext, refreshToken: string | undefined, options?: GrantOptions): Promise<TokenSet> {
  const issues: ValidationIssue[] = [];
  requireString(issues, 'refreshToken', refreshToken);
  const signal = checkSignal(issues, options);
  throwIfAny('Invalid refresh', issues);
  ctx.grant.secrets?.remember('token', refreshToken);
  return requestRefresh(ctx.grant, ctx.endpoints.token, refreshToken as string, signal);
}

/** `ob.auth.clientCredentials`: the scopes checked, then one client-credentials grant. */
export async function clientCredentials(ctx: AuthContext, scopes: ScopeInput, options?: GrantOptions): Promise<TokenSet> {
  const issues: ValidationIssue[] = [];
  const scope = scopeString(issues, 'scopes', scopes, false);
  const signal = checkSignal(issues, options);
  throwIfAny('Invalid client credentials request', issues);
  return requestClientCredentials(ctx.grant, ctx.endpoints.clientCredentials, scopeList(scope).join(' '), signal);
}

/** `ob.auth.deviceCode`: the scopes checked, then the device authorization request. */
export async function deviceCode(ctx: AuthContext, scopes: ScopeInput, options?: DeviceCodeOptions): Promise<DeviceAuthorization> {
  const issues: ValidationIssue[] = [];
  const scope = scopeString(issues, 'scopes', scopes, true);
  const signal = checkSignal(issues, options);
  const target = options?.targetConnectionId;
  if (target !== undefined) requireString(issues, 'targetConnectionId', target);
  throwIfAny('Invalid device code request', issues);
  return requestDeviceAuthorization(ctx.grant, ctx.endpoints.deviceCode, scope, target, signal);
}

/** `ob.auth.pollDeviceToken`: the device code and interval checked, then polling until a token. */
export async function pollDeviceToken(ctx: AuthContext, deviceCodeOrResponse: string | DeviceAuthorization, options?: PollDeviceTokenOptions): Promise<TokenSet> {
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
  return pollDeviceAuthorization(ctx.grant, {
    tokenPath: ctx.endpoints.clientCredentials,
    deviceCode: deviceCode as string,
    // A server (or caller) asking for 0 s would turn polling into a busy loop against the identity host.
    interval: Math.max(interval, MIN_DEVICE_POLL_INTERVAL),
    authorization: response,
    sleep: ctx.sleep,
    signal,
  });
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

/** Asks for a device code (POST `{auth_url}/oauth2/device/code`, form `client_id`, `scope`, `target_connection_id`). */
export async function requestDeviceAuthorization(
  ctx: GrantContext,
  path: string,
  scope: string,
  targetConnectionId: string | undefined,
  signal?: AbortSignal,
): Promise<DeviceAuthorization> {
  const url = ctx.authUrl + path;
  const as = authorizationServer(ctx, { device_authorization_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  return runGrant('device authorization request', { ctx, url, signal, observed: false }, async (options) => {
    const params = new URLSearchParams({ scope });
    if (targetConnectionId !== undefined) params.set('target_connection_id', targetConnectionId);
    // The spec's form has `client_id` and no secret: client authentication "none".
    const response = await oauth.deviceAuthorizationRequest(as, client, oauth.None(), params, options);
    const result = { ...(await oauth.processDeviceAuthorizationResponse(as, client, response)) } as DeviceAuthorization;
    receivedAt.set(result, ctx.now());
    return result;
  });
}

/** What {@link pollDeviceAuthorization} needs beyond the grant context. */
export interface DevicePoll {
  tokenPath: string;
  deviceCode: string;
  /** Seconds between polls. */
  interval: number;
  /** The device authorization the code came from, for its expiry. */
  authorization?: DeviceAuthorization | undefined;
  sleep: Sleep;
  signal?: AbortSignal | undefined;
}

/**
 * Polls the token endpoint with `grant_type=urn:ietf:params:oauth:grant-type:device_code` until
 * the customer answers: waits `interval` seconds before each poll, keeps going on
 * `authorization_pending`, adds 5 s to the interval on `slow_down`, and rejects with the
 * `OAuthError` of any other answer (`access_denied`, `expired_token`, ...).
 */
export async function pollDeviceAuthorization(ctx: GrantContext, poll: DevicePoll): Promise<TokenSet> {
  const url = ctx.authUrl + poll.tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  const { signal } = poll;
  const expiresIn = poll.authorization?.expires_in;
  const deadline =
    typeof expiresIn === 'number' && poll.authorization ? (receivedAt.get(poll.authorization) ?? ctx.now()) + expiresIn * 1000 : undefined;
  const expired = () => new OAuthError('expired_token', 'the device code expired before the customer answered; request a new one');
  let interval = poll.interval;
  for (;;) {
    // Never sleep past the code's expiry: a wait that would end after it ends at it.
    const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - ctx.now();
    if (left <= 0) throw expired();
    try {
      await poll.sleep(Math.min(interval * 1000, left), signal);
    } catch {
      throw new AbortError('device code polling: aborted');
    }
    if (signal?.aborted) throw new AbortError('device code polling: aborted');
    if (interval * 1000 >= left || (deadline !== undefined && ctx.now() >= deadline)) throw expired();
    try {
      return await runGrant('device code grant', { ctx, url, signal }, async (options) => {
        const response = await oauth.deviceCodeGrantRequest(as, client, oauth.ClientSecretPost(ctx.clientSecret), poll.deviceCode, options);
        return toTokenSet(await oauth.processDeviceCodeResponse(as, client, response), ctx.now(), ctx.secrets);
      });
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
