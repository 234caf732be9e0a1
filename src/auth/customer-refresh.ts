import { ConsentEndedError } from '../errors/index.js';
import { OAuthError } from '../errors/index.js';
import { grantedScopes } from './consent.js';
import { endedElsewhere, endedHere, endsTokens, notifyEnded } from './consent-ending.js';
import type { CustomerTokenState } from './customer-state.js';
import { isFresh, type TokenSet } from './token-store.js';

// A customer session's refresh, loaded (customer-tokens.ts) when a session's token first
// needs more than a look: it has expired or is about to, the API refused it, the caller asked for
// a refresh, or the session is in a failed state. The rules: refresh ahead of expiry, one refresh
// for any number of concurrent calls, never a replayed refresh grant.

/** Each waiting call gets its own error object (the pipeline stamps the call's idempotency key on it). */
function perCall(error: unknown): unknown {
  if (error instanceof ConsentEndedError) return new ConsentEndedError(error.errorDescription, error.scopes, { ...(error.status !== undefined ? { status: error.status } : {}), cause: error });
  if (error instanceof OAuthError) {
    return new OAuthError(error.error, error.errorDescription, { ...(error.status !== undefined ? { status: error.status } : {}), cause: error });
  }
  return error;
}

function assertUsable(s: CustomerTokenState): void {
  if (s.invalid) throw s.invalid;
  if (s.failure) throw s.failure;
}

/** A usable access token: the current one while fresh, else a refreshed one. */
export function customerAccessToken(s: CustomerTokenState): Promise<string> {
  return accessToken(s).catch((error: unknown) => Promise.reject(perCall(error)));
}

/** A token to use after the API refused `rejected`: another call's replacement, or a refreshed one. */
export function customerRenew(s: CustomerTokenState, rejected: string): Promise<string> {
  const renew = async () => {
    assertUsable(s);
    // Another call already replaced the refused token: use the new one.
    if (s.flight === undefined && s.tokens.access_token !== rejected) return accessToken(s);
    return (await refresh(s)).access_token;
  };
  return renew().catch((error: unknown) => Promise.reject(perCall(error)));
}

/** Before a call the session sends with client credentials: rejects when the tokens given were bad or the consent has ended. */
export async function customerConsentGate(s: CustomerTokenState): Promise<void> {
  try {
    if (s.invalid) throw s.invalid;
    if (s.failure instanceof ConsentEndedError) throw s.failure;
    await checkEndedElsewhere(s);
  } catch (error) {
    throw perCall(error);
  }
}

/** `session.refresh()`: refreshes now, sharing a refresh in flight; resolves to a copy of the new set. */
export async function customerRefreshNow(s: CustomerTokenState): Promise<TokenSet> {
  assertUsable(s);
  return { ...(await refresh(s)) };
}

async function accessToken(s: CustomerTokenState): Promise<string> {
  assertUsable(s);
  await checkEndedElsewhere(s);
  const tokens = s.tokens;
  const now = s.ctx.now();
  if (isFresh(tokens, now)) return tokens.access_token;
  if (s.flight === undefined && tokens.refresh_token === undefined && tokens.expires_at > now / 1000) {
    return tokens.access_token; // inside the margin but still valid, and nothing to refresh with
  }
  return (await refresh(s)).access_token;
}

function refresh(s: CustomerTokenState): Promise<TokenSet> {
  if (s.flight) return s.flight;
  const refreshToken = s.tokens.refresh_token;
  if (refreshToken === undefined) {
    return Promise.reject(
      new OAuthError('no_refresh_token', 'the customer access token has expired or was refused, and the session has no refresh token: run the authorization again'),
    );
  }
  const generation = s.generation;
  const before = s.tokens;
  const flight = (async () => {
    let fresh: TokenSet;
    let refreshed = true;
    try {
      const shared = s.ctx.shared;
      if (shared) ({ tokens: fresh, refreshed } = await shared(before, (token) => s.ctx.refresh(token)));
      else fresh = await s.ctx.refresh(refreshToken);
    } catch (error) {
      // The identity host refused the grant: never replay it (a rotated refresh token would
      // only turn into invalid_grant). Network failures are not sticky.
      if (generation === s.generation && error instanceof OAuthError) {
        s.failure = error.error === 'invalid_grant' ? ended(s, endedHere(error, s.tokens)) : error;
        throw s.failure;
      }
      throw error;
    }
    // The caller replaced the tokens meanwhile: the rotated set still wins unless the caller's is
    // newer (it expires no sooner and does not carry the refresh token just spent), or the spent
    // refresh token would be sent again next time.
    const c = s.tokens;
    if (generation !== s.generation && s.invalid === undefined && c.refresh_token !== refreshToken && c.expires_at >= fresh.expires_at) return c;
    // An answer without `scope` grants what was granted before (RFC 6749 §5.1).
    if (fresh.scope === undefined && before.scope !== undefined) fresh = { ...fresh, scope: before.scope };
    Object.assign(s, { tokens: fresh, invalid: undefined, failure: undefined });
    if (s.onTokens && refreshed) await s.onTokens({ ...fresh });
    return fresh;
  })().finally(() => {
    if (s.flight === flight) s.flight = undefined;
  });
  s.flight = flight;
  return flight;
}

/** Ends the session's consent (once: the first ending wins) and tells the app. */
function ended(s: CustomerTokenState, error: ConsentEndedError): ConsentEndedError {
  if (s.failure instanceof ConsentEndedError) return s.failure;
  s.failure = error;
  notifyEnded(s.onConsentEnded, error);
  return error;
}

/** With a fleet: ends the session when another process stored the ending of the consent it holds. */
async function checkEndedElsewhere(s: CustomerTokenState): Promise<void> {
  const read = s.ctx.endedElsewhere;
  if (!read) return;
  const { generation, tokens } = s;
  const ending = await read();
  if (ending === undefined || s.invalid || !(await endsTokens(ending, tokens, s.since))) return;
  if (generation !== s.generation) return; // new tokens arrived meanwhile
  throw ended(s, endedElsewhere(grantedScopes(tokens) ?? ending.scopes));
}
