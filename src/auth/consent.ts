import type { TokenSet } from './token-store.js';

// A customer's consent beside its token state: `active` until a refresh is answered
// `invalid_grant`, then `ended` until the caller gives the session new tokens. With a fleet, an
// ending is written to the store under the session's `id` (`ConsentEnding`), so the sessions with
// that `id` in other processes end too, without a refresh request of their own (`consent-ending.ts`,
// loaded with the refresh: a call with a fresh token needs none of it).

/**
 * `session.consent`: where the customer's consent stands, as this session knows it.
 * @group OAuth
 */
export interface CustomerConsent {
  /** `'active'` until a refresh is answered `invalid_grant` (here or, with a fleet, in another process); then `'ended'` until `setTokens`. */
  state: 'active' | 'ended';
  /** The scopes the token set carries (its `scope`), or undefined when the provider sent none. */
  scopes: string[] | undefined;
  /** When the current access token expires (Unix seconds). */
  accessExpiresAt: number;
}

/** The scopes `tokens` carries, in the order given, or undefined when it has no `scope`. */
export function grantedScopes(tokens: TokenSet | undefined): string[] | undefined {
  const scope = tokens?.scope;
  return typeof scope === 'string' ? [...new Set(scope.split(/\s+/).filter((s) => s.length > 0))] : undefined;
}
