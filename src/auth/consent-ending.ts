import { ConsentEndedError } from '../errors/index.js';
import type { OAuthError } from '../errors/index.js';
import { toHex } from '../core/signature.js';
import { grantedScopes } from './consent.js';
import type { TokenSet } from './token-store.js';

// How a consent ends: the error each call gets, the app's handler called once, and (with a fleet)
// the ending as the shared store keeps it. Loaded with a session's refresh.

/**
 * An ended consent as the fleet's store keeps it (sealed): enough for another process to tell
 * whether its session holds the same consent, never a token.
 */
export interface ConsentEnding {
  /** When it ended (ms, the client's clock): a session given its tokens before then held this consent. */
  endedAt: number;
  /** SHA-256 (hex) of the refused refresh token. */
  refresh: string | undefined;
  /** The ended set's scopes. */
  scopes: string[] | undefined;
}

/** SHA-256 of a token, hex: how an ending names the refresh token it refused. */
async function digest(token: string): Promise<string> {
  return toHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))));
}

/** The ending of the consent `tokens` belongs to, at `endedAt`, for the store. */
export async function endingOf(tokens: TokenSet, endedAt: number): Promise<ConsentEnding> {
  return { endedAt, refresh: tokens.refresh_token === undefined ? undefined : await digest(tokens.refresh_token), scopes: grantedScopes(tokens) };
}

/**
 * Whether `ending` ends the consent `tokens` belongs to: they carry the refused refresh token, or
 * (with `since`, when the session was given its tokens) the session held them before it ended.
 */
export async function endsTokens(ending: ConsentEnding, tokens: TokenSet, since = Infinity): Promise<boolean> {
  if (since <= ending.endedAt) return true;
  return ending.refresh !== undefined && tokens.refresh_token !== undefined && (await digest(tokens.refresh_token)) === ending.refresh;
}

/** An ending read back from the store, or undefined when it is not one. */
export function parseEnding(text: string | undefined): ConsentEnding | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as ConsentEnding;
    if (typeof value?.endedAt !== 'number') return undefined;
    const scopes = Array.isArray(value.scopes) ? value.scopes.filter((s): s is string => typeof s === 'string') : undefined;
    return { endedAt: value.endedAt, refresh: typeof value.refresh === 'string' ? value.refresh : undefined, scopes };
  } catch {
    return undefined;
  }
}

/** The error of an ending another process of the fleet saw; `scopes` are this session's. */
export function endedElsewhere(scopes: string[] | undefined): ConsentEndedError {
  return new ConsentEndedError('the consent ended in another process of the fleet (its refresh was answered invalid_grant)', scopes);
}

/** The error of an `invalid_grant` answer to this session's refresh. */
export function endedHere(error: OAuthError, tokens: TokenSet): ConsentEndedError {
  if (error instanceof ConsentEndedError) return error;
  return new ConsentEndedError(error.errorDescription, grantedScopes(tokens), { ...(error.status !== undefined ? { status: error.status } : {}), cause: error });
}

/** Calls the app's `onConsentEnded`; a handler that throws or rejects never changes the calls. */
export function notifyEnded(handler: ((error: ConsentEndedError) => unknown) | undefined, error: ConsentEndedError): void {
  if (!handler) return;
  try {
    void Promise.resolve(handler(error)).catch(() => undefined);
  } catch {
    // the app's handler failed: the session is ended all the same
  }
}
