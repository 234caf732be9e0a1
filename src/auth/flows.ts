import { ValidationError, type ValidationIssue } from '../errors.js';
import { rememberSecret, rememberToken } from '../core/redact.js';
import type { ScopeInput } from '../core/scopes.js';
import type { AuthContext, AuthorizationUrlParams, DeviceCodeOptions, ExchangeCodeParams, GrantOptions, PollDeviceTokenOptions } from './auth.js';
import { type AuthorizationRequest, checkCodeVerifier, checkRedirectUri, scopeString } from './authorization-checks.js';
import { checkString } from './callback.js';
import { createAuthorizationRequest } from './authorization.js';
import { requestCodeExchange, requestRefresh } from './authorization-code.js';
import { requestClientCredentials } from './client-credentials.js';
import { DEVICE_POLL_INTERVAL, MIN_DEVICE_POLL_INTERVAL, type DeviceAuthorization, pollDeviceAuthorization, requestDeviceAuthorization } from './device-code.js';
import type { TokenSet } from './token-store.js';

// The bodies of `ob.auth`'s methods: every argument checked before anything is sent, then the
// grant. Loaded with the first of them (see `Auth`).

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
  checkString(issues, 'code', p.code);
  checkCodeVerifier(issues, 'codeVerifier', p.codeVerifier);
  const redirectUri = p.redirectUri ?? ctx.redirectUri;
  if (redirectUri === undefined) issues.push({ path: 'redirectUri', message: 'is required (pass it here or set the redirectUri option of the client)', code: 'missing' });
  else checkRedirectUri(issues, 'redirectUri', redirectUri);
  const signal = checkSignal(issues, options);
  throwIfAny('Invalid code exchange', issues);
  rememberToken(p.code);
  rememberSecret(p.codeVerifier);
  return requestCodeExchange(ctx.grant, ctx.endpoints.token, { code: p.code, codeVerifier: p.codeVerifier, redirectUri: redirectUri! }, signal);
}

/** `ob.auth.refresh`: the refresh token checked, then the refresh grant. */
export async function refresh(ctx: AuthContext, refreshToken: string | undefined, options?: GrantOptions): Promise<TokenSet> {
  const issues: ValidationIssue[] = [];
  checkString(issues, 'refreshToken', refreshToken);
  const signal = checkSignal(issues, options);
  throwIfAny('Invalid refresh', issues);
  rememberToken(refreshToken);
  return requestRefresh(ctx.grant, ctx.endpoints.token, refreshToken as string, signal);
}

/** `ob.auth.clientCredentials`: the scopes checked, then one client-credentials grant. */
export async function clientCredentials(ctx: AuthContext, scopes: ScopeInput, options?: GrantOptions): Promise<TokenSet> {
  const issues: ValidationIssue[] = [];
  const scope = scopeString(issues, 'scopes', scopes, false);
  const signal = checkSignal(issues, options);
  throwIfAny('Invalid client credentials request', issues);
  return requestClientCredentials(ctx.grant, ctx.endpoints.clientCredentials, scope.split(' ').filter(Boolean), signal);
}

/** `ob.auth.deviceCode`: the scopes checked, then the device authorization request. */
export async function deviceCode(ctx: AuthContext, scopes: ScopeInput, options?: DeviceCodeOptions): Promise<DeviceAuthorization> {
  const issues: ValidationIssue[] = [];
  const scope = scopeString(issues, 'scopes', scopes, true);
  const signal = checkSignal(issues, options);
  const target = options?.targetConnectionId;
  if (target !== undefined) checkString(issues, 'targetConnectionId', target);
  throwIfAny('Invalid device code request', issues);
  return requestDeviceAuthorization(ctx.grant, ctx.endpoints.deviceCode, scope, target, signal);
}

/** `ob.auth.pollDeviceToken`: the device code and interval checked, then polling until a token. */
export async function pollDeviceToken(ctx: AuthContext, deviceCodeOrResponse: string | DeviceAuthorization, options?: PollDeviceTokenOptions): Promise<TokenSet> {
  const issues: ValidationIssue[] = [];
  const response = typeof deviceCodeOrResponse === 'object' && deviceCodeOrResponse !== null ? deviceCodeOrResponse : undefined;
  const deviceCode = response ? response.device_code : deviceCodeOrResponse;
  checkString(issues, response ? 'device_code' : 'deviceCode', deviceCode);
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
