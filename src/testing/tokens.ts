import type { Random } from './random.js';

/** An access token the sandbox issued. */
export interface AccessTokenRecord {
  clientId: string;
  scopes: readonly string[];
  /** Expiry on the sandbox clock (ms). */
  expiresAt: number;
  /** `client` for client credentials; `customer` for tokens a customer consented to. */
  kind: 'client' | 'customer';
  /** Tokens from one authorization code or device code share a grant, revoked together. */
  grantId: string | undefined;
}

interface RefreshTokenRecord {
  clientId: string;
  scopes: readonly string[];
  grantId: string;
}

/** An authorization code waiting to be exchanged. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string;
  expiresAt: number;
  used: boolean;
  grantId: string;
}

/** A consent page shown and not yet answered. */
export interface ConsentRecord {
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string | undefined;
  codeChallenge: string;
  expiresAt: number;
}

/** A device authorization waiting for the customer. */
export interface DeviceRecord {
  deviceCode: string;
  userCode: string;
  clientId: string;
  scopes: readonly string[];
  targetConnectionId: string | undefined;
  expiresAt: number;
  /** Current polling interval in seconds; `slow_down` widens it by 5. */
  interval: number;
  lastPoll: number | undefined;
  status: 'pending' | 'approved' | 'denied' | 'used';
}

/** What a token endpoint hands out. */
export interface IssuedTokens {
  access_token: string;
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

const CONSENT_LIFETIME_MS = 10 * 60_000;
/** How many ended refresh tokens the sandbox remembers the end of (the oldest are forgotten first). */
const ENDED_REFRESH_MEMORY = 10_000;

/** Why a refresh token no longer works: redeemed once already, revoked with its consent, or expired. */
export type RefreshEnd = 'rotated' | 'revoked' | 'expired';

/** Issues, checks, rotates and revokes every credential the identity host deals in. */
export class TokenAuthority {
  readonly #access = new Map<string, AccessTokenRecord>();
  readonly #refresh = new Map<string, RefreshTokenRecord>();
  /** refresh token → why it ended, so a refusal says what happened to it */
  readonly #ended = new Map<string, RefreshEnd>();
  readonly #codes = new Map<string, CodeRecord>();
  readonly #consents = new Map<string, ConsentRecord>();
  readonly #devices = new Map<string, DeviceRecord>();
  /** user code → device code */
  readonly #userCodes = new Map<string, string>();
  #issued = 0;

  constructor(
    private readonly random: Random,
    private readonly now: () => number,
    private readonly lifetimes: { token: number; code: number; deviceCode: number; deviceInterval: number },
  ) {}

  reset(): void {
    for (const map of [this.#access, this.#refresh, this.#ended, this.#codes, this.#consents, this.#devices, this.#userCodes]) map.clear();
  }

  /** Ends a live refresh token for `why`; false when it is not live. */
  #endRefresh(refreshToken: string, why: RefreshEnd): boolean {
    if (!this.#refresh.delete(refreshToken)) return false;
    this.#ended.set(refreshToken, why);
    if (this.#ended.size > ENDED_REFRESH_MEMORY) this.#ended.delete(this.#ended.keys().next().value as string);
    return true;
  }

  /** Issues an access token, and a refresh token for customer grants. */
  issue(input: { clientId: string; scopes: readonly string[]; kind: 'client' | 'customer'; grantId?: string; expiresIn?: number }): IssuedTokens {
    if (++this.#issued % 1000 === 0) this.#sweep();
    const expiresIn = input.expiresIn ?? this.lifetimes.token;
    const accessToken = this.random.id('sbx_at_', 32);
    this.#access.set(accessToken, {
      clientId: input.clientId,
      scopes: [...input.scopes],
      expiresAt: this.now() + expiresIn * 1000,
      kind: input.kind,
      grantId: input.grantId,
    });
    const out: IssuedTokens = { access_token: accessToken, expires_in: expiresIn, scope: input.scopes.join(' ') };
    if (input.kind === 'customer') {
      const grantId = input.grantId ?? this.random.id('grant_', 16);
      const refreshToken = this.random.id('sbx_rt_', 40);
      this.#refresh.set(refreshToken, { clientId: input.clientId, scopes: [...input.scopes], grantId });
      out.refresh_token = refreshToken;
      this.#access.get(accessToken)!.grantId = grantId;
    }
    return out;
  }

  /** The record of a live access token, or why it is refused. */
  access(token: string): AccessTokenRecord | 'unknown' | 'expired' {
    const record = this.#access.get(token);
    if (!record) return 'unknown';
    if (record.expiresAt <= this.now()) return 'expired';
    return record;
  }

  /**
   * Redeems a refresh token: it stops working at once (rotation) and a new pair is issued with
   * the same or fewer scopes.
   */
  rotate(refreshToken: string, clientId: string, scopes: readonly string[] | undefined): IssuedTokens | RefreshEnd | 'invalid' | 'wrong_client' | 'scope_widened' {
    const record = this.#refresh.get(refreshToken);
    if (!record) return this.#ended.get(refreshToken) ?? 'invalid';
    if (record.clientId !== clientId) return 'wrong_client';
    if (scopes && scopes.some((s) => !record.scopes.includes(s))) return 'scope_widened';
    this.#endRefresh(refreshToken, 'rotated');
    return this.issue({ clientId, scopes: scopes ?? record.scopes, kind: 'customer', grantId: record.grantId });
  }

  /** Revokes every token issued under a grant (after an authorization code was replayed). */
  revokeGrant(grantId: string): void {
    for (const [token, record] of this.#access) if (record.grantId === grantId) this.#access.delete(token);
    for (const [token, record] of this.#refresh) if (record.grantId === grantId) this.#endRefresh(token, 'revoked');
  }

  /** The grant (the customer's consent) an access or refresh token belongs to, or undefined. */
  grantOf(token: string): string | undefined {
    return this.#access.get(token)?.grantId ?? this.#refresh.get(token)?.grantId;
  }

  /** Makes a refresh token stop working (as an expired one would); false when it is unknown. */
  expireRefresh(refreshToken: string): boolean {
    return this.#endRefresh(refreshToken, 'expired');
  }

  /** Remembers a consent page's request until the customer answers it. */
  openConsent(input: Omit<ConsentRecord, 'expiresAt'>): string {
    const id = this.random.id('consent_', 24);
    this.#consents.set(id, { ...input, expiresAt: this.now() + CONSENT_LIFETIME_MS });
    return id;
  }

  /** Takes a consent out (each consent page is answered once). */
  closeConsent(id: string): ConsentRecord | undefined {
    const record = this.#consents.get(id);
    this.#consents.delete(id);
    if (!record || record.expiresAt <= this.now()) return undefined;
    return record;
  }

  /** A single-use authorization code for an approved consent. */
  mintCode(consent: ConsentRecord): string {
    const code = this.random.id('sbx_code_', 32);
    this.#codes.set(code, {
      clientId: consent.clientId,
      redirectUri: consent.redirectUri,
      scopes: consent.scopes,
      codeChallenge: consent.codeChallenge,
      expiresAt: this.now() + this.lifetimes.code * 1000,
      used: false,
      grantId: this.random.id('grant_', 16),
    });
    return code;
  }

  code(code: string): CodeRecord | undefined {
    return this.#codes.get(code);
  }

  /** Starts a device authorization. */
  openDevice(input: { clientId: string; scopes: readonly string[]; targetConnectionId: string | undefined }): DeviceRecord {
    let userCode = this.random.userCode(5);
    while (this.#userCodes.has(userCode)) userCode = this.random.userCode(5);
    const record: DeviceRecord = {
      deviceCode: this.random.id('req_id_', 24),
      userCode,
      clientId: input.clientId,
      scopes: [...input.scopes],
      targetConnectionId: input.targetConnectionId,
      expiresAt: this.now() + this.lifetimes.deviceCode * 1000,
      interval: this.lifetimes.deviceInterval,
      lastPoll: undefined,
      status: 'pending',
    };
    this.#devices.set(record.deviceCode, record);
    this.#userCodes.set(userCode, record.deviceCode);
    return record;
  }

  /** A device authorization by its device code or its user code (any case, dashes ignored). */
  device(code: string): DeviceRecord | undefined {
    const direct = this.#devices.get(code);
    if (direct) return direct;
    const deviceCode = this.#userCodes.get(code.toUpperCase().replace(/[\s-]/g, ''));
    return deviceCode ? this.#devices.get(deviceCode) : undefined;
  }

  #sweep(): void {
    const now = this.now();
    for (const [token, record] of this.#access) if (record.expiresAt <= now) this.#access.delete(token);
    for (const [code, record] of this.#codes) if (record.expiresAt <= now) this.#codes.delete(code);
    for (const [id, record] of this.#consents) if (record.expiresAt <= now) this.#consents.delete(id);
  }
}
