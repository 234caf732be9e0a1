import * as oauth from 'oauth4webapi';
import type { OpenBankingError } from '../errors/base.js';
import { ConnectionError } from '../errors/local.js';
import { OAuthError } from '../errors/oauth.js';
import { type Exchange, send } from '../core/http.js';
import { isLoopbackHost } from '../core/loopback.js';
import { redirectMessage, scrubCause } from '../core/response.js';
import { type GrantContext, maskText, runGrant as runAnyGrant, unexpectedAnswer, unsupportedAnswer } from './grant-context.js';

// oauth4webapi's adapter: its requests go through the SDK's ky instance, its errors become SDK errors.

/** The authorization-server description oauth4webapi works from, for one endpoint. */
export function authorizationServer(ctx: GrantContext, endpoint: Partial<oauth.AuthorizationServer>): oauth.AuthorizationServer {
  return { issuer: ctx.authUrl, ...endpoint };
}

/** Request options for oauth4webapi: ky as its fetch, and plain HTTP only on loopback. */
export function requestOptions(ctx: GrantContext, url: string, signal?: AbortSignal): oauth.TokenEndpointRequestOptions {
  return {
    [oauth.customFetch]: (input, init) => identityFetch(ctx, String(input), init),
    [oauth.allowInsecureRequests]: isLoopbackHost(new URL(url).hostname),
    ...(signal ? { signal } : {}),
  };
}

/**
 * One request to the identity host through ky: one attempt (a grant is never re-sent blindly: a
 * rotating refresh token would be spent), the body read whole up to `maxResponseBytes`, a 3xx
 * refused with `OAuthError` (nothing goes to the `Location`).
 */
async function identityFetch(ctx: GrantContext, url: string, init: RequestInit): Promise<Response> {
  const ex: Exchange = {
    method: (init.method ?? 'GET') as Exchange['method'],
    path: url,
    signal: init.signal ?? undefined,
    timeout: ctx.timeout,
    maxRetries: 0,
    maxResponseBytes: ctx.maxResponseBytes,
    fetch: ctx.fetch,
    now: ctx.now,
    refuseRedirect: (response) => new OAuthError('unexpected_redirect', redirectMessage(response, 'The identity host'), { ...(response.status ? { status: response.status } : {}) }),
  };
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  const { response, text } = await send(url, ex, { headers, body: init.body ?? undefined, throwHttpErrors: false });
  // oauth4webapi reads the answer itself: the body read (and capped) by the SDK, handed back.
  const empty = text === '' && [204, 205, 304].includes(response.status);
  return new Response(empty ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Runs one oauth4webapi grant and maps every failure to an SDK error (see {@link oauthFailure});
 * with `ctx`, and somebody watching the client, it is a `token` event (`scope`: what was asked for).
 */
export function runGrant<T>(what: string, step: () => Promise<T>, signal?: AbortSignal, ctx?: GrantContext, scope?: string): Promise<T> {
  const run = () => runAnyGrant(what, step, signal, oauthFailure);
  const hub = ctx?.events;
  // The events' code loads with the first grant somebody watches.
  return hub?.active ? hub.load().then((parts) => parts.observeGrant(hub, what, scope, run)) : run();
}

/** oauth4webapi's errors as SDK errors: OAuth error bodies and challenges to {@link OAuthError}. */
function oauthFailure(what: string, error: unknown): OpenBankingError | undefined {
  if (error instanceof oauth.ResponseBodyError) {
    return new OAuthError(error.error, maskText(error.error_description), { status: error.status });
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const code = challenge?.parameters.error ?? 'invalid_client';
    return new OAuthError(code, maskText(challenge?.parameters.error_description), { status: error.status });
  }
  // The body stopped half-way (the connection closed after the status line): a network failure
  // like any other, not an answer from the identity host.
  if (error instanceof oauth.OperationProcessingError && error.cause instanceof TypeError) {
    return new ConnectionError(`${what}: the connection closed before the whole answer arrived`, { cause: scrubCause(error.cause) });
  }
  if (error instanceof oauth.OperationProcessingError) {
    const status = error.cause instanceof Response ? error.cause.status : undefined;
    return status !== undefined ? unexpectedAnswer(what, `HTTP ${status}`, status) : unexpectedAnswer(what, error.message);
  }
  if (error instanceof oauth.UnsupportedOperationError) {
    return unsupportedAnswer(what, error.message);
  }
  return undefined;
}
