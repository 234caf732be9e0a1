import * as oauth from 'oauth4webapi';
import { OpenBankingError } from '../errors/base.js';
import { AbortError, ConnectionError, neverWritten, ValidationError } from '../errors/base.js';
import { OAuthError } from '../errors/base.js';
import type { EventHub } from '../core/events.js';
import { type AttemptObserver, exchange, type Exchange, noAnswer, send } from '../core/http.js';
import type { Endpoints } from '../core/config.js';
import type { TokenGrant } from '../core/event-types.js';
import { maskText } from '../errors/redact.js';
import type { SecretMemory } from '../errors/secret-memory.js';
import { describeNetworkFailure, scrubCause } from '../errors/base.js';
import { observeGrant } from '../core/events.js';
import type { TokenSet } from './token-cache.js';

// The requests to the identity host that oauth4webapi makes with the SDK's ky as its fetch: the
// grants at the token endpoints (one function, the kind as a value) and the device authorization
// request; a grant's answer as a token set, its failures as SDK errors, and whether it redeemed.

/** What a grant needs to reach the identity host. */
export interface GrantContext {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  fetch: typeof fetch | undefined;
  timeout: number;
  /** Largest answer read (bytes). */
  maxResponseBytes: number;
  /** The client's clock in milliseconds (the `now` option): token expiry is judged by it. */
  now: () => number;
  /** The client's listeners and instrumentations: each grant request is a `token` event. */
  events?: EventHub | undefined;
  /** What the client remembers to mask: the tokens its grants bring. */
  secrets?: SecretMemory | undefined;
  /** The identity host's paths. */
  endpoints: Endpoints;
  /** The identity host is a loopback host: plain `http://` is allowed there. */
  loopback: boolean;
}

/** An answer no grant can use: `OAuthError('server_error')`, with the status when it is the reason. */
export function unexpectedAnswer(what: string, detail: string, status?: number): OAuthError {
  return new OAuthError('server_error', `${what}: unexpected answer from the identity host (${detail})`, status === undefined ? {} : { status });
}

/** A well-formed answer the SDK does not support (e.g. another `token_type`): `OAuthError('server_error')`. */
export function unsupportedAnswer(what: string, detail: string): OAuthError {
  return new OAuthError('server_error', `${what}: unsupported answer from the identity host (${detail})`);
}


/** A token endpoint's answer, already checked (RFC 6749 §5.1): what {@link toTokenSet} reads. */
export interface TokenEndpointAnswer {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

/** Converts a checked token response into a {@link TokenSet} with `expires_at`; its tokens are remembered in `memory`, to be masked. */
export function toTokenSet(response: TokenEndpointAnswer, nowMs: number = Date.now(), memory?: SecretMemory): TokenSet {
  const expiresIn = typeof response.expires_in === 'number' ? response.expires_in : 3600;
  const set: TokenSet = {
    access_token: response.access_token,
    // Token types compare case-insensitively (RFC 6749 §5.1); the spec writes it `Bearer`.
    token_type: response.token_type.toLowerCase() === 'bearer' ? 'Bearer' : response.token_type,
    expires_in: expiresIn,
    expires_at: Math.floor(nowMs / 1000) + expiresIn,
  };
  if (typeof response.refresh_token === 'string') set.refresh_token = response.refresh_token;
  memory?.remember('token', set.access_token);
  memory?.remember('token', set.refresh_token);
  if (typeof response.scope === 'string') set.scope = response.scope;
  return set;
}

/** Runs one grant: the identity host's failures arrive as SDK errors, oauth4webapi's go through {@link oauthFailure}. */
async function runMapped<T>(what: string, step: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof OpenBankingError) throw error;
    if (signal?.aborted) throw new AbortError(`The ${what} was aborted`, { cause: scrubCause(signal.reason) });
    throw oauthFailure(what, error) ?? new ConnectionError(`${what} failed: ${describeNetworkFailure(error)}`, { cause: scrubCause(error) });
  }
}

/** The authorization-server description oauth4webapi works from, for one endpoint. */
export function authorizationServer(ctx: GrantContext, endpoint: Partial<oauth.AuthorizationServer>): oauth.AuthorizationServer {
  return { issuer: ctx.authUrl, ...endpoint };
}

/** Request options for oauth4webapi: ky as its fetch, and plain HTTP only on loopback. */
function requestOptions(ctx: GrantContext, what: string, signal: AbortSignal | undefined, observe: AttemptObserver | undefined): oauth.TokenEndpointRequestOptions {
  return {
    [oauth.customFetch]: (input, init) => identityFetch(ctx, what, String(input), init, observe),
    [oauth.allowInsecureRequests]: ctx.loopback,
    ...(signal ? { signal } : {}),
  };
}

/** Why a failed request to the identity host was not tried again, for its `ConnectionError`. */
const NOT_RETRIED = ' (requests to the identity host are sent once, never retried: a grant that reached it may have spent a refresh token or an authorization code)';

/** One request to the identity host through ky, one attempt: a re-sent grant could spend a rotating refresh token. */
async function identityFetch(ctx: GrantContext, what: string, url: string, init: RequestInit, observe: AttemptObserver | undefined): Promise<Response> {
  // Debug lines for the identity host too (headers redacted; the form, which holds secrets, never logged).
  const settings = { timeout: ctx.timeout, maxResponseBytes: ctx.maxResponseBytes, fetch: ctx.fetch, now: ctx.now, logger: ctx.events?.logger };
  const ex = exchange('the identity host', settings, { method: (init.method ?? 'GET') as Exchange['method'], path: url, what: `The ${what}`, signal: init.signal ?? undefined, observe });
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  let answer: { response: Response; text: string };
  try {
    answer = await send(url, ex, { headers, body: init.body ?? undefined, throwHttpErrors: false });
  } catch (failure) {
    const error = noAnswer(failure, ex);
    if (error instanceof ConnectionError) error.message += NOT_RETRIED;
    throw error;
  }
  const { response, text } = answer;
  // oauth4webapi reads the answer itself: the body read (and capped) by the SDK, handed back.
  const empty = text === '' && [204, 205, 304].includes(response.status);
  return new Response(empty ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Where a grant goes. */
export interface GrantRequest {
  ctx: GrantContext;
  /** The endpoint's URL. */
  url: string;
  signal?: AbortSignal | undefined;
  /** The scopes asked for, for the `token` event. */
  scope?: string | undefined;
}

/** What the identity host is asked through oauth4webapi: a grant, by its kind, or the device authorization request (no grant). */
export type IdentityRequest = TokenGrant | 'device_authorization';

/** How messages name a request: `'refresh token grant'`, `'device authorization request'`. */
function describeRequest(kind: IdentityRequest): string {
  return kind === 'device_authorization' ? 'device authorization request' : `${kind.replace(/_/g, ' ')} grant`;
}

/**
 * Runs one oauth4webapi request with the SDK's request options and maps every failure to an SDK
 * error (see {@link oauthFailure}); a grant, with somebody watching the client, is a `token` event
 * of its kind and its HTTP request a span of the instrumentations.
 */
export function runGrant<T>(kind: IdentityRequest, request: GrantRequest, step: (options: oauth.TokenEndpointRequestOptions) => Promise<T>): Promise<T> {
  const { ctx, url, signal } = request;
  const what = describeRequest(kind);
  const run = (observe?: AttemptObserver) => runMapped(what, () => step(requestOptions(ctx, what, signal, observe)), signal);
  const hub = kind === 'device_authorization' ? undefined : ctx.events;
  // Read as values, as a call does: an unwatched grant runs no code of the events module.
  return hub && (hub.listening > 0 || hub.channel?.hasSubscribers === true) ? observeGrant(hub, kind as TokenGrant, request.scope, run) : run();
}

/** The identity host's refusals of a grant: a well-formed OAuth error (4xx with `error`), a challenge, a 429. */
const refusals = new WeakSet<OAuthError>();
const refusal = (error: OAuthError): OAuthError => (refusals.add(error), error);

/**
 * Whether a failed grant provably did not redeem what it carried (DESIGN "customer refresh"): the
 * SDK's own checks refused it, the connection was refused or the name did not resolve before the
 * request was written, or the identity host answered 429 or a well-formed OAuth error other than
 * `invalid_grant`. A timeout, a reset, an answer lost or cut, a 5xx or an unreadable 200 may have.
 */
export function grantNotRedeemed(error: unknown): boolean {
  if (error instanceof ValidationError) return true;
  if (error instanceof OAuthError) return refusals.has(error) && error.error !== 'invalid_grant';
  return neverWritten(error);
}

/** oauth4webapi's errors as SDK errors: OAuth error bodies and challenges to {@link OAuthError}. */
function oauthFailure(what: string, error: unknown): OpenBankingError | undefined {
  if (error instanceof oauth.ResponseBodyError) {
    return refusal(new OAuthError(error.error, error.error_description && maskText(error.error_description), { status: error.status }));
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const code = challenge?.parameters.error ?? 'invalid_client';
    const description = challenge?.parameters.error_description;
    const refused = new OAuthError(code, description && maskText(description), { status: error.status });
    return error.status >= 400 && error.status < 500 ? refusal(refused) : refused; // a 5xx's challenge refuses nothing for sure
  }
  // The body stopped half-way (the connection closed after the status line): a network failure
  // like any other, not an answer from the identity host.
  if (error instanceof oauth.OperationProcessingError && error.cause instanceof TypeError) {
    return new ConnectionError(`${what}: the connection closed before the whole answer arrived`, { cause: scrubCause(error.cause) });
  }
  if (error instanceof oauth.OperationProcessingError) {
    const status = error.cause instanceof Response ? error.cause.status : undefined;
    if (status === 429) return refusal(unexpectedAnswer(what, 'HTTP 429', status));
    return status !== undefined ? unexpectedAnswer(what, `HTTP ${status}`, status) : unexpectedAnswer(what, error.message);
  }
  if (error instanceof oauth.UnsupportedOperationError) {
    return unsupportedAnswer(what, error.message);
  }
  return undefined;
}

/** A grant at the identity host's token endpoints, by its `grant_type`: the kind names its event, span and messages. */
export type Grant =
  | { kind: 'client_credentials'; scope: string }
  | { kind: 'authorization_code'; code: string; codeVerifier: string; redirectUri: string }
  | { kind: 'refresh_token'; refreshToken: string }
  | { kind: 'device_code'; deviceCode: string };

/**
 * Makes one grant, `client_secret_post`: client credentials at `endpoints.clientCredentials`
 * (`scope` when there is one), an authorization code (with `redirect_uri` and `code_verifier`) or a
 * refresh token at `endpoints.token`, a device code at `endpoints.clientCredentials`. A refresh
 * that is not rotated carries the refresh token given over into the new set.
 */
export async function requestGrant(ctx: GrantContext, grant: Grant, signal?: AbortSignal): Promise<TokenSet> {
  const tokenPath = grant.kind === 'authorization_code' || grant.kind === 'refresh_token' ? ctx.endpoints.token : ctx.endpoints.clientCredentials;
  const url = ctx.authUrl + tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  const auth = oauth.ClientSecretPost(ctx.clientSecret);
  const scope = grant.kind === 'client_credentials' ? grant.scope : undefined;
  if (grant.kind === 'refresh_token') {
    // A blank refresh token is refused as `ob.auth.refresh` refuses it, whoever asks: nothing is sent.
    if (grant.refreshToken.trim() === '') throw new ValidationError('Invalid refresh', [{ path: 'refreshToken', message: 'must be a non-empty string', code: 'invalid_type' }]);
    ctx.secrets?.remember('token', grant.refreshToken);
  }
  return runGrant(grant.kind, { ctx, url, signal, scope }, async (options) => {
    const answer = await grantAnswer(as, client, auth, grant, options);
    const set = toTokenSet(answer, ctx.now(), ctx.secrets);
    if (grant.kind === 'refresh_token') set.refresh_token ??= grant.refreshToken;
    return set;
  });
}

/** oauth4webapi's request and check for one kind of grant. */
async function grantAnswer(as: oauth.AuthorizationServer, client: oauth.Client, auth: oauth.ClientAuth, grant: Grant, options: oauth.TokenEndpointRequestOptions): Promise<TokenEndpointAnswer> {
  switch (grant.kind) {
    case 'client_credentials': {
      const params = new URLSearchParams();
      if (grant.scope) params.set('scope', grant.scope);
      return oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, auth, params, options));
    }
    case 'authorization_code': {
      // oauth4webapi takes the validated callback parameters; the backend only received the code
      // (the browser already checked the state), so the parameters are rebuilt from it.
      const callback = oauth.validateAuthResponse(as, client, new URLSearchParams({ code: grant.code }), oauth.skipStateCheck);
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, callback, grant.redirectUri, grant.codeVerifier, options);
      return oauth.processAuthorizationCodeResponse(as, client, response);
    }
    case 'refresh_token':
      return oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, grant.refreshToken, options));
    case 'device_code':
      return oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, auth, grant.deviceCode, options));
  }
}
