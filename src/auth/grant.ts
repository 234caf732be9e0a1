import * as oauth from 'oauth4webapi';
import { OpenBankingError } from '../errors/base.js';
import { AbortError, ConnectionError, neverWritten, TimeoutError, ValidationError } from '../errors/base.js';
import { OAuthError } from '../errors/base.js';
import type { EventHub } from '../core/events.js';
import { type AttemptObserver, exchange, type Exchange, noAnswer, send } from '../core/http.js';
import { isLoopbackHost } from '../core/config.js';
import { maskText } from '../errors/redact.js';
import type { SecretMemory } from '../errors/secret-memory.js';
import { describeNetworkFailure, scrubCause } from '../errors/base.js';
import { observeGrant } from '../core/events.js';

// The grants at the identity host's token endpoints (client credentials, authorization code,
// refresh), made by oauth4webapi with the SDK's ky as its fetch: what a grant runs with, its
// answer as a token set, its failures as SDK errors. The device-code grant (a polling loop) is flows.ts's.

/**
 * An OAuth 2.0 token set. `expires_at` is in Unix seconds and is computed by the SDK from
 * `expires_in` when the token is received.
 * @group OAuth
 */
export interface TokenSet {
  /** The bearer token. */
  access_token: string;
  /** `Bearer`. */
  token_type: string;
  /** Lifetime in seconds as the server gave it. */
  expires_in: number;
  /** Expiry as Unix seconds. */
  expires_at: number;
  /** For the authorization-code flow: exchanges for a new set; rotates on every use. */
  refresh_token?: string;
  /** Granted scopes, space-separated. */
  scope?: string;
}

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
  /** The identity host is on this machine (plain HTTP allowed), judged once for the client. */
  loopback?: boolean | undefined;
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
function requestOptions(ctx: GrantContext, what: string, url: string, signal: AbortSignal | undefined, observe: AttemptObserver | undefined): oauth.TokenEndpointRequestOptions {
  return {
    [oauth.customFetch]: (input, init) => identityFetch(ctx, what, String(input), init, observe),
    [oauth.allowInsecureRequests]: ctx.loopback ?? isLoopbackHost(new URL(url).hostname),
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

/** Where a grant goes and how it is watched. */
export interface GrantRequest {
  ctx: GrantContext;
  /** The endpoint's URL. */
  url: string;
  signal?: AbortSignal | undefined;
  /** The scopes asked for, for the `token` event. */
  scope?: string | undefined;
  /** A `token` event and a span (false for the device authorization request, which is not a grant). */
  observed?: boolean;
}

/**
 * Runs one oauth4webapi grant with the SDK's request options and maps every failure to an SDK
 * error (see {@link oauthFailure}); with somebody watching the client, it is a `token` event and
 * its HTTP request a span of the instrumentations.
 */
export function runGrant<T>(what: string, request: GrantRequest, step: (options: oauth.TokenEndpointRequestOptions) => Promise<T>): Promise<T> {
  const { ctx, url, signal } = request;
  const run = (observe?: AttemptObserver) => runMapped(what, () => step(requestOptions(ctx, what, url, signal, observe)), signal);
  const hub = request.observed === false ? undefined : ctx.events;
  // Read as values, as a call does: an unwatched grant runs no code of the events module.
  return hub && (hub.listening > 0 || hub.channel?.hasSubscribers === true) ? observeGrant(hub, what, request.scope, run) : run();
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

/**
 * Requests one client-credentials token set (POST `{auth_url}/oauth2/token`, `client_secret_post`,
 * `scope` when there is one).
 */
export async function requestClientCredentials(ctx: GrantContext, tokenPath: string, scope: string, signal?: AbortSignal): Promise<TokenSet> {
  const url = ctx.authUrl + tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  const params = new URLSearchParams();
  if (scope) params.set('scope', scope);
  return runGrant('client credentials grant', { ctx, url, signal, scope }, async (options) => {
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(ctx.clientSecret), params, options);
    return toTokenSet(await oauth.processClientCredentialsResponse(as, client, response), ctx.now(), ctx.secrets);
  });
}

/**
 * Exchanges an authorization code (POST `{auth_url}/oauth/token`, `grant_type=authorization_code`
 * with `client_id`, `client_secret`, `code`, `redirect_uri` and `code_verifier`).
 */
export async function requestCodeExchange(
  ctx: GrantContext,
  tokenPath: string,
  params: { code: string; codeVerifier: string; redirectUri: string },
  signal?: AbortSignal,
): Promise<TokenSet> {
  const url = ctx.authUrl + tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  return runGrant('authorization code grant', { ctx, url, signal }, async (options) => {
    // oauth4webapi takes the validated callback parameters; the backend only received the code
    // (the browser already checked the state), so the parameters are rebuilt from it.
    const callback = oauth.validateAuthResponse(as, client, new URLSearchParams({ code: params.code }), oauth.skipStateCheck);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretPost(ctx.clientSecret), callback, params.redirectUri, params.codeVerifier, options);
    return toTokenSet(await oauth.processAuthorizationCodeResponse(as, client, response), ctx.now(), ctx.secrets);
  });
}

/**
 * Refreshes a token set (POST `{auth_url}/oauth/token`, `grant_type=refresh_token` with
 * `client_id`, `client_secret` and `refresh_token`). When the server does not rotate the refresh
 * token, the one given is carried over so the new set can be refreshed again.
 */
export async function requestRefresh(ctx: GrantContext, tokenPath: string, refreshToken: string, signal?: AbortSignal): Promise<TokenSet> {
  const url = ctx.authUrl + tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  return runGrant('refresh token grant', { ctx, url, signal }, async (options) => {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretPost(ctx.clientSecret), refreshToken, options);
    const set = toTokenSet(await oauth.processRefreshTokenResponse(as, client, response), ctx.now(), ctx.secrets);
    set.refresh_token ??= refreshToken;
    return set;
  });
}
