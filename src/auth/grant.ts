import * as oauth from 'oauth4webapi';
import { AbortError, ConnectionError, OAuthError, OpenBankingError, TimeoutError } from '../errors.js';
import { isLoopbackHost } from '../core/loopback.js';
import { isRedirect, readText, redirectMessage, scrubCause } from '../core/http.js';
import { redactText } from '../core/redact.js';
import type { TokenSet } from './token-store.js';

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
}

export { isLoopbackHost };

/** The authorization-server description oauth4webapi works from, for one endpoint. */
export function authorizationServer(ctx: GrantContext, endpoint: Partial<oauth.AuthorizationServer>): oauth.AuthorizationServer {
  return { issuer: ctx.authUrl, ...endpoint };
}

/**
 * Request options for oauth4webapi: the client's fetch (never following a redirect, reading at
 * most `maxResponseBytes`), a timeout, and plain HTTP only on loopback.
 */
export function requestOptions(ctx: GrantContext, url: string, signal?: AbortSignal): oauth.TokenEndpointRequestOptions {
  const timeout = AbortSignal.timeout(ctx.timeout);
  return {
    [oauth.customFetch]: (input, init) => guardedFetch(ctx, input, init),
    [oauth.allowInsecureRequests]: isLoopbackHost(new URL(url).hostname),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  };
}

/**
 * One request to the identity host: a 3xx rejects with `OAuthError` carrying its status (nothing
 * goes to the `Location`), and the body is read up to `maxResponseBytes` before oauth4webapi
 * parses it.
 */
async function guardedFetch(ctx: GrantContext, input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
  const response = await (ctx.fetch ?? globalThis.fetch)(input, { ...init, redirect: 'manual' });
  if (isRedirect(response)) {
    await response.body?.cancel().catch(() => undefined);
    throw new OAuthError('unexpected_redirect', redirectMessage(response, 'The identity host'), { ...(response.status ? { status: response.status } : {}) });
  }
  let text: string;
  try {
    text = await readText(response, ctx.maxResponseBytes);
  } catch (error) {
    // The body stopped half-way (the connection closed after the status line): a network failure.
    if (error instanceof TypeError) throw new ConnectionError('the connection closed before the whole answer arrived', { cause: scrubCause(error) });
    throw error;
  }
  return new Response(response.status === 204 || response.status === 205 ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const maskText = (text: string | undefined): string | undefined => (text === undefined ? undefined : redactText(text));

/** Converts oauth4webapi's token response into a {@link TokenSet} with `expires_at`. */
export function toTokenSet(response: oauth.TokenEndpointResponse, nowMs: number = Date.now()): TokenSet {
  const expiresIn = typeof response.expires_in === 'number' ? response.expires_in : 3600;
  const set: TokenSet = {
    access_token: response.access_token,
    // oauth4webapi lowercases the type; the spec writes it `Bearer`.
    token_type: response.token_type === 'bearer' ? 'Bearer' : response.token_type,
    expires_in: expiresIn,
    expires_at: Math.floor(nowMs / 1000) + expiresIn,
  };
  if (typeof response.refresh_token === 'string') set.refresh_token = response.refresh_token;
  if (typeof response.scope === 'string') set.scope = response.scope;
  return set;
}

/**
 * Runs one grant (request + process) and maps every failure to an SDK error: OAuth error bodies
 * to {@link OAuthError}, network failures to {@link ConnectionError} / {@link TimeoutError}.
 */
export async function runGrant<T>(what: string, step: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw toGrantError(what, error, signal);
  }
}

function toGrantError(what: string, error: unknown, signal: AbortSignal | undefined): OpenBankingError {
  if (error instanceof OpenBankingError) return error;
  if (signal?.aborted) return new AbortError(`${what}: aborted`);
  if (error instanceof oauth.ResponseBodyError) {
    // The server's text is masked like any body before it reaches a log line through the error.
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
  const name = (error as { name?: string } | null)?.name;
  // A custom fetch's error may carry the request (the form body holds client_secret): keep its
  // class, message start and code only, as the API path does.
  if (name === 'TimeoutError') return new TimeoutError(`${what}: the identity host did not answer in time`, { cause: scrubCause(error) });
  if (name === 'AbortError') return new AbortError(`${what}: aborted`);
  return new ConnectionError(`${what}: could not reach the identity host`, { cause: scrubCause(error) });
}
