import type { SandboxContext } from './context.js';
import type { TransferSettlement } from './payments.js';

/**
 * The sandbox's controls for consent and money movement: end a customer's consent the way a bank
 * does, and decide how transfers settle.
 * @group Sandbox
 */
export interface SandboxConsentControls {
  /**
   * The customer revokes the consent `token` belongs to (an access or refresh token of it): every
   * access and refresh token of that consent stops working at once. API calls with its access
   * tokens answer 401, a refresh with its refresh token `invalid_grant`. Throws when the token is
   * unknown.
   *
   * @example
   * ```ts
   * const tokens = sandbox.issueTokens({ clientId: 'app', scope: 'accounts.list.readonly' });
   * sandbox.revokeConsent(tokens.refresh_token!);
   * ```
   */
  revokeConsent(token: string): void;
  /**
   * The refresh token expires: redeeming it answers `invalid_grant` (the access tokens already
   * issued keep working until they expire). Throws when the token is unknown.
   */
  expireRefreshToken(refreshToken: string): void;
  /**
   * How transfers settle: how many status reads (`pendingReads`, default 1) and how much sandbox
   * time (`pendingMs`, default 0) a transfer answers `PENDING`, and whether it then ends
   * `SUCCESSFUL` (default) or `FAILED`. With `batchReference`, for that transfer only; otherwise
   * for every transfer made from now on. `reset()` restores the defaults.
   *
   * @example
   * ```ts
   * sandbox.settleTransfers({ pendingReads: 3, result: 'FAILED' });
   * ```
   */
  settleTransfers(rule: TransferSettlement, batchReference?: string): void;
}

/** The controls of {@link SandboxConsentControls} over a sandbox's state. */
export function consentControls(ctx: SandboxContext): SandboxConsentControls {
  return {
    revokeConsent(token) {
      const grant = typeof token === 'string' ? ctx.tokens.grantOf(token) : undefined;
      if (grant === undefined) throw new Error('revokeConsent: no customer consent has that access or refresh token');
      ctx.tokens.revokeGrant(grant);
    },
    expireRefreshToken(refreshToken) {
      if (typeof refreshToken !== 'string' || !ctx.tokens.expireRefresh(refreshToken)) throw new Error('expireRefreshToken: no live refresh token matches');
    },
    settleTransfers(rule, batchReference) {
      if (typeof rule !== 'object' || rule === null) throw new TypeError('settleTransfers: rule must be an object { pendingReads?, pendingMs?, result? }');
      if (!ctx.payments.settle(rule, batchReference)) throw new Error(`settleTransfers: no transfer with batch reference ${batchReference}`);
    },
  };
}
