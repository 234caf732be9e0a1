import { OpenBankingError } from '../errors/base.js';
import { AbortError, ConnectionError, TimeoutError } from '../errors/local.js';
import { OAuthError } from '../errors/oauth.js';
import { scrubCause } from '../core/response.js';
import { redactText, rememberToken } from '../core/redact.js';
import type { TokenSet } from './token-store.js';
import type { EventHub } from '../core/events.js';

// What every grant shares: the settings it runs with, its answer as a token set, its failures as SDK errors.

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
}

/** An answer no grant can use: `OAuthError('server_error')`, with the status when it is the reason. */
export function unexpectedAnswer(what: string, detail: string, status?: number): OAuthError {
  return new OAuthError('server_error', `${what}: unexpected answer from the identity host (${detail})`, status === undefined ? {} : { status });
}

/** A well-formed answer the SDK does not support (e.g. another `token_type`): `OAuthError('server_error')`. */
export function unsupportedAnswer(what: string, detail: string): OAuthError {
  return new OAuthError('server_error', `${what}: unsupported answer from the identity host (${detail})`);
}

/** The server's text, masked like any body before it reaches a log line through an error. */
export const maskText = (text: string | undefined): string | undefined => (text === undefined ? undefined : redactText(text));

/** A token endpoint's answer, already checked (RFC 6749 §5.1): what {@link toTokenSet} reads. */
export interface TokenEndpointAnswer {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

/** Converts a checked token response into a {@link TokenSet} with `expires_at`. */
export function toTokenSet(response: TokenEndpointAnswer, nowMs: number = Date.now()): TokenSet {
  const expiresIn = typeof response.expires_in === 'number' ? response.expires_in : 3600;
  const set: TokenSet = {
    access_token: response.access_token,
    // Token types compare case-insensitively (RFC 6749 §5.1); the spec writes it `Bearer`.
    token_type: response.token_type.toLowerCase() === 'bearer' ? 'Bearer' : response.token_type,
    expires_in: expiresIn,
    expires_at: Math.floor(nowMs / 1000) + expiresIn,
  };
  if (typeof response.refresh_token === 'string') set.refresh_token = response.refresh_token;
  rememberToken(set.access_token);
  rememberToken(set.refresh_token);
  if (typeof response.scope === 'string') set.scope = response.scope;
  return set;
}

/** Maps a failure the grant did not classify itself to an SDK error. */
export type GrantErrorMap = (what: string, error: unknown, signal: AbortSignal | undefined) => OpenBankingError | undefined;

/**
 * Runs one grant (request + process) and maps every failure to an SDK error: `map` first (the
 * OAuth library's errors), then network failures to {@link ConnectionError} / {@link TimeoutError}.
 */
export async function runGrant<T>(what: string, step: () => Promise<T>, signal?: AbortSignal, map?: GrantErrorMap): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof OpenBankingError) throw error;
    if (signal?.aborted) throw new AbortError(`${what}: aborted`);
    throw map?.(what, error, signal) ?? networkFailure(what, error);
  }
}

function networkFailure(what: string, error: unknown): OpenBankingError {
  const name = (error as { name?: string } | null)?.name;
  // A custom fetch's error may carry the request (the form body holds client_secret): keep its
  // class, message start and code only, as the API path does.
  if (name === 'TimeoutError') return new TimeoutError(`${what}: the identity host did not answer in time`, { cause: scrubCause(error) });
  if (name === 'AbortError') return new AbortError(`${what}: aborted`);
  return new ConnectionError(`${what}: could not reach the identity host`, { cause: scrubCause(error) });
}
