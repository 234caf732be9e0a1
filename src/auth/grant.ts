import * as oauth from 'oauth4webapi';
import { ConnectionError, OAuthError, type OpenBankingError } from '../errors.js';
import { isLoopbackHost } from '../core/loopback.js';
import { scrubCause } from '../core/http.js';
import { type GrantContext, grantSignal, guardedFetch, maskText, runGrant as runAnyGrant } from './grant-context.js';

// The customer-facing grants (code exchange, refresh, device code) run through oauth4webapi; this
// module and they load with the first of them, never on the API call path.

export { type GrantContext, toTokenSet } from './grant-context.js';

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
    const detail = status !== undefined ? `HTTP ${status}` : error.message;
    return new OAuthError('server_error', `${what}: unexpected answer from the identity host (${detail})`, {
      ...(status !== undefined ? { status } : {}),
    });
  }
  if (error instanceof oauth.UnsupportedOperationError) {
    return new OAuthError('server_error', `${what}: unsupported answer from the identity host (${error.message})`);
  }
  return undefined;
}
