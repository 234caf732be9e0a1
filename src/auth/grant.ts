import * as oauth from 'oauth4webapi';
import { ConnectionError, OAuthError, type OpenBankingError } from '../errors.js';
import { isLoopbackHost } from '../core/loopback.js';
import { scrubCause } from '../core/http.js';
import { type GrantContext, grantSignal, maskText, readAnswer, runGrant as runAnyGrant, unexpectedAnswer, unsupportedAnswer } from './grant-context.js';

// The customer-facing grants (code exchange, refresh, device code) run through oauth4webapi; this
// module and they load with the first of them, never on the API call path.

/** The authorization-server description oauth4webapi works from, for one endpoint. */
export function authorizationServer(ctx: GrantContext, endpoint: Partial<oauth.AuthorizationServer>): oauth.AuthorizationServer {
  return { issuer: ctx.authUrl, ...endpoint };
}

/**
 * Request options for oauth4webapi: the client's fetch (never following a redirect, reading at
 * most `maxResponseBytes`), a timeout, and plain HTTP only on loopback.
 */
export function requestOptions(ctx: GrantContext, url: string, signal?: AbortSignal): oauth.TokenEndpointRequestOptions {
  return {
    [oauth.customFetch]: (input, init) => guardedFetch(ctx, input, init),
    [oauth.allowInsecureRequests]: isLoopbackHost(new URL(url).hostname),
    signal: grantSignal(ctx, signal),
  };
}

/** `readAnswer` as oauth4webapi's fetch: the body already read (and capped), handed over as a `Response`. */
async function guardedFetch(ctx: GrantContext, input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
  const { response, text } = await readAnswer(ctx, input, init);
  return new Response(response.status === 204 || response.status === 205 ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Runs one oauth4webapi grant and maps every failure to an SDK error (see {@link oauthFailure}). */
export function runGrant<T>(what: string, step: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return runAnyGrant(what, step, signal, oauthFailure);
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
