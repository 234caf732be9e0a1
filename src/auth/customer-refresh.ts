import { ConnectionError, ConsentEndedError, type ConsentEndedReason, OAuthError, OpenBankingError } from '../errors/base.js';
import { sha256 } from '../crypto/bytes.js';
import { type FleetAccess, keyPart, StoreFailure } from '../core/store.js';
import { grantNotRedeemed } from './grants.js';
import { grantedScopes, parseTokenSet, type TokenSet, waitTurns } from './token-cache.js';

// The customer refresh protocol, in the words of docs/scaling.md ("One refresh per customer"):
// a refresh token is redeemed at most once across the fleet, under any store fault, stall or
// crash. Before it sends a refresh grant, a client *claims* the refresh token in the store; only
// the claimer sends; it records the outcome after the answer; the others *wait* for it and *take
// up* the customer's set. The same steps run over a client's own in-memory store without a fleet.
//
// Records (under `openbanking-ng:<clientId>:`, sealed in a fleet):
//   customer:<id>         the customer's set: the latest token set of the sessions with that id
//   claim:<sha256(rt)>    the claim on a refresh token: { by: client instance, outcome? }
//   customer:<id>:ended   the ending: { refresh: sha256 of the refused or unconfirmed refresh token, scopes, reason? }
//   customer:<id>:lock    the lock: helps the sessions of one id wait their turn, decides nothing

/** How long the store keeps a customer's set, a claim and an ending: 30 days. */
export const RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a client's own store (no fleet) keeps a claim: only its own sessions read it. */
export const LOCAL_CLAIM_TTL_MS = 60 * 60 * 1000;
/** A claim seen with no outcome for this many lock TTLs means its claimer is gone. */
export const UNCONFIRMED_AFTER_LOCK_TTLS = 10;
/** How many of its own claims' outcomes (and of others' claims seen waiting) a client remembers: none of its sessions sends a spent token. */
const REMEMBERED = 1_000;

/** How a claim ended, as its claimer records it after the grant's answer. */
export type ClaimOutcome = 'redeemed' | 'refused' | 'unconfirmed';

/** The claim on a refresh token: the client instance that sends its grant, and how that ended. */
export interface Claim {
  by: string;
  outcome?: ClaimOutcome;
}

/** An ended consent as the store keeps it: the refused (or unconfirmed) refresh token's digest, never a token. */
export interface Ending {
  /** SHA-256 (hex) of the refused or unconfirmed refresh token: only sessions holding that token end. */
  refresh: string;
  /** The ended set's scopes. */
  scopes: string[] | undefined;
  /** Why it ended; absent (an earlier version's record) is `'invalid_grant'`. */
  reason?: ConsentEndedReason;
  /** When it ended, by the writer's clock: for people reading the store, never compared. */
  endedAt?: number;
}

/** What a refresh gives the session: the set to use, and whether this client redeemed it (`onTokens` fires). */
export interface Refreshed {
  tokens: TokenSet;
  redeemed: boolean;
}

/** What the protocol needs from its client. */
export interface RefreshContext {
  /** This client instance: what its claims are named by. */
  instance: string;
  /** The fleet's store, or the client's own. */
  store: FleetAccess;
  /** The lock's TTL (the client's `timeout` + 1 s): how long a refresh waits for the store or another claimer. */
  lockTtlMs: number;
  /** The client's clock (ms): how long a claim has been seen without an outcome. */
  now(): number;
  /** The refresh grant. */
  grant(refreshToken: string): Promise<TokenSet>;
}

/** SHA-256 of a token, hex: how a claim and an ending name a refresh token. */
export async function tokenDigest(token: string): Promise<string> {
  return sha256(token);
}

const WAIT = Symbol('wait');
type Step = Refreshed | typeof WAIT;

/**
 * The protocol's replaceable steps. The SDK never replaces them; the schedule tests do, one at a
 * time, with a deliberately broken step, to show that a property of the protocol catches it.
 * @internal
 */
export const steps = {
  /** Reads a customer record: absent is undefined; present but not opening is a failure of the store. */
  open: (store: FleetAccess, key: string, raw: string | undefined): Promise<string | undefined> => store.openStrict(key, raw),
  /** Whether the claim decides who sends (it always does). */
  claims: true,
  /** Whether `ending` ends a session holding a refresh token whose digest is `held`. */
  ends: (ending: Ending, held: string, _tokens: TokenSet): boolean => ending.refresh === held,
  /** A claimer whose records could not be stored: keeps the new set and keeps trying. */
  storeFailed: (retry: () => void, _release: () => void): void => retry(),
  /** Whether a grant that failed (other than `invalid_grant`) provably left its refresh token unspent: only then is the claim given up. */
  release: (error: unknown): boolean => grantNotRedeemed(error),
};

/**
 * A client's side of the protocol: the outcomes of its own claims and the claims of others it has
 * seen without an outcome. Its sessions run it once per refresh token at a time (their token caches
 * share the runs in flight): a second run beside the first would find this client's own claim
 * without an outcome and send the token again, so it is refused.
 */
export class CustomerRefresh {
  readonly #ctx: RefreshContext;
  /** Refresh tokens this client runs the protocol for now. */
  readonly #running = new Set<string>();
  /** This client's claims that ended, by digest: never sent again by any of its sessions. */
  readonly #outcomes = new Map<string, { outcome: ClaimOutcome; tokens?: TokenSet; error?: ConsentEndedError }>();
  /** Claims of other clients seen without an outcome, by digest: since when (the client's clock). */
  readonly #seen = new Map<string, number>();

  constructor(ctx: RefreshContext) {
    this.#ctx = ctx;
  }

  /** The ending stored for `id`, read before each call of a session with that id. A store that fails reads as none: nothing is redeemed on it. */
  async ending(id: string): Promise<Ending | undefined> {
    const key = this.#endingKey(id);
    try {
      return parseEnding(await this.#ctx.store.open(key, await this.#ctx.store.get(key)));
    } catch {
      return undefined;
    }
  }

  /** Whether `ending` ends a session holding `tokens`: it names their refresh token. */
  async ends(ending: Ending, tokens: TokenSet): Promise<boolean> {
    return tokens.refresh_token !== undefined && steps.ends(ending, await tokenDigest(tokens.refresh_token), tokens);
  }

  /**
   * The set that follows `current` (due for refresh; it carries a refresh token) for a session
   * with `id`: redeemed by this client, or taken up from the claimer. Rejects with
   * `ConsentEndedError` when the consent ended, `OAuthError` when the identity host refused
   * otherwise, `ConnectionError` when the store or the claimer kept it waiting past the lock's TTL.
   * Refused, before anything is read or sent, while this client runs it for the same refresh token.
   */
  async next(current: TokenSet, id: string | undefined): Promise<Refreshed> {
    const rt = current.refresh_token!;
    if (this.#running.has(rt)) throw new OpenBankingError('A customer refresh ran twice at once for one refresh token in one client; nothing was sent');
    this.#running.add(rt);
    try {
      return await this.#next(current, rt, id);
    } finally {
      this.#running.delete(rt);
    }
  }

  async #next(current: TokenSet, rt: string, id: string | undefined): Promise<Refreshed> {
    const digest = await tokenDigest(rt);
    const known = this.#outcomes.get(digest);
    if (known?.tokens) return { tokens: known.tokens, redeemed: true };
    if (known?.error) throw known.error;
    let failure: StoreFailure | undefined;
    let unopened = false;
    const look = async (): Promise<Refreshed | undefined> => {
      try {
        const step = await this.#look(current, rt, digest, id);
        return step === WAIT ? undefined : step;
      } catch (error) {
        if (!(error instanceof StoreFailure)) throw error;
        failure = error;
        unopened ||= error.unopened;
        return undefined;
      }
    };
    return waitTurns(look, this.#ctx.lockTtlMs, (waited) => Promise.reject(waitedOut(waited, failure, unopened)));
  }

  /** 1. Look: take the customer's lock (while another holds it, follow the claim), read the claim on the refresh token. */
  async #look(current: TokenSet, rt: string, digest: string, id: string | undefined): Promise<Step> {
    const { store, lockTtlMs } = this.#ctx;
    const lock = id === undefined ? undefined : `${this.#customerKey(id)}:lock`;
    const owner = lock === undefined ? undefined : await store.strictLock(lock, lockTtlMs);
    if (lock !== undefined && owner === undefined) return this.#takeUp(current, digest, id, (await this.#readClaim(digest)).claim);
    try {
      const { claim, raw } = await this.#claim(digest);
      if (claim === undefined) return steps.claims ? WAIT : await this.#redeem(current, rt, digest, id, raw);
      if (claim.by === this.#ctx.instance && claim.outcome === undefined) return await this.#redeem(current, rt, digest, id, raw);
      return await this.#takeUp(current, digest, id, claim);
    } finally {
      if (lock !== undefined && owner !== undefined) void store.unlock(lock, owner).catch(() => undefined);
    }
  }

  /** 2. Claim: the claim on the refresh token, created (create-if-absent) when there is none, then read back: the record decides, never the answer to the create. */
  async #claim(digest: string): Promise<{ claim: Claim | undefined; raw: string | undefined }> {
    const found = await this.#readClaim(digest);
    if (found.claim !== undefined || !steps.claims) return found;
    const { store, instance } = this.#ctx;
    const key = this.#claimKey(digest);
    await store.strictCreate(key, await store.seal(key, JSON.stringify({ by: instance })), store.shared ? RECORD_TTL_MS : LOCAL_CLAIM_TTL_MS);
    return this.#readClaim(digest);
  }

  /** 3. Redeem: the claimer sends the grant and records how it ended; the claim stays, so nobody sends that token again. */
  async #redeem(current: TokenSet, rt: string, digest: string, id: string | undefined, raw: string | undefined): Promise<Refreshed> {
    let fresh: TokenSet;
    try {
      fresh = await this.#ctx.grant(rt);
    } catch (error) {
      throw await this.#refused(error, current, digest, id, raw);
    }
    this.#remember(digest, { outcome: 'redeemed', tokens: fresh });
    const writes = [...(id === undefined ? [] : [() => this.#write(this.#customerKey(id), fresh)]), () => this.#writeOutcome(digest, 'redeemed')];
    await this.#record(writes, () => void (raw !== undefined && this.#ctx.store.strictDelete(this.#claimKey(digest), raw).catch(() => undefined)));
    return { tokens: fresh, redeemed: true };
  }

  /**
   * What a grant that did not redeem means for the claim, and the error the session gets. Only a
   * grant that provably did not rotate the token gives the claim up; any other failure may have
   * spent it at the provider: `unconfirmed`, never sent again, the sessions holding it end.
   */
  async #refused(error: unknown, current: TokenSet, digest: string, id: string | undefined, raw: string | undefined): Promise<unknown> {
    const invalid = error instanceof OAuthError && error.error === 'invalid_grant';
    if (!invalid && steps.release(error)) {
      if (raw !== undefined) await this.#ctx.store.strictDelete(this.#claimKey(digest), raw).catch(() => undefined);
      return error;
    }
    // Told to the others before this session's calls reject, so none sends the token again.
    const ended = invalid ? endedHere(error, current) : unconfirmed(grantedScopes(current), `the refresh grant got no answer that says whether it redeemed the token (${failureName(error)})`);
    const outcome: ClaimOutcome = invalid ? 'refused' : 'unconfirmed';
    this.#remember(digest, { outcome, error: ended });
    const ending: Ending = { refresh: digest, scopes: grantedScopes(current), endedAt: this.#ctx.now(), ...(invalid ? {} : { reason: 'refresh_unconfirmed' as const }) };
    await this.#record([...(id === undefined ? [] : [() => this.#write(this.#endingKey(id), ending)]), () => this.#writeOutcome(digest, outcome)], () => undefined);
    return ended;
  }

  /** 4. Wait, then take up: another client's claim; its outcome ends the session or hands over the customer's set, none yet means wait. */
  async #takeUp(current: TokenSet, digest: string, id: string | undefined, claim: Claim | undefined): Promise<Step> {
    if (claim === undefined || (claim.by === this.#ctx.instance && claim.outcome === undefined)) return WAIT;
    if (claim.outcome === undefined) {
      const now = this.#ctx.now();
      const since = this.#seen.get(digest) ?? now;
      this.#seen.set(digest, since);
      if (this.#seen.size > REMEMBERED) this.#seen.delete(this.#seen.keys().next().value!);
      if (now - since < UNCONFIRMED_AFTER_LOCK_TTLS * this.#ctx.lockTtlMs) return WAIT;
      this.#seen.delete(digest);
      throw unconfirmed(grantedScopes(current), `its refresh token was claimed by a client that recorded no outcome for ${Math.round((now - since) / 1000)} s (it stopped, or lost its answer)`);
    }
    this.#seen.delete(digest);
    if (claim.outcome === 'refused') throw endedElsewhere(grantedScopes(current), 'invalid_grant');
    if (claim.outcome === 'unconfirmed') throw unconfirmed(grantedScopes(current), 'the client that sent its refresh token got no answer that says whether it was redeemed');
    // Redeemed: take up the customer's set, unless its consent ended too.
    if (id === undefined) throw unconfirmed(grantedScopes(current), 'its refresh token was redeemed by another client, and a session without an id cannot take up the new set');
    const set = parseTokenSet(await this.#read(this.#customerKey(id)));
    if (set === undefined || set.refresh_token === undefined || set.refresh_token === current.refresh_token) return WAIT;
    const ending = parseEnding(await this.#read(this.#endingKey(id)));
    if (ending && (await this.ends(ending, set))) throw endedElsewhere(grantedScopes(current) ?? ending.scopes, ending.reason);
    return { tokens: set, redeemed: false };
  }

  /**
   * Stores what the claimer learnt, in order (the set before the outcome). A write the store does
   * not confirm leaves the rest for later: the claimer goes on with its new set and keeps trying,
   * every second for ten tries, then less often (up to once a minute).
   */
  async #record(writes: (() => Promise<void>)[], release: () => void, attempt = 0): Promise<void> {
    let next = 0;
    try {
      for (; next < writes.length; next++) await writes[next]!();
    } catch (error) {
      if (!(error instanceof StoreFailure)) throw error;
      const rest = writes.slice(next);
      steps.storeFailed(() => {
        const timer = setTimeout(() => void this.#record(rest, () => undefined, attempt + 1).catch(() => undefined), Math.min(60_000, attempt < 10 ? 1_000 : 1_000 * 2 ** (attempt - 9)));
        (timer as { unref?: () => void }).unref?.(); // a record still owed never keeps the process alive
      }, release);
    }
  }

  async #write(key: string, value: unknown): Promise<void> {
    const { store } = this.#ctx;
    await store.strictSet(key, await store.seal(key, JSON.stringify(value)), RECORD_TTL_MS);
  }

  async #writeOutcome(digest: string, outcome: ClaimOutcome): Promise<void> {
    const { store } = this.#ctx;
    const key = this.#claimKey(digest);
    await store.strictSet(key, await store.seal(key, JSON.stringify({ by: this.#ctx.instance, outcome })), store.shared ? RECORD_TTL_MS : LOCAL_CLAIM_TTL_MS);
  }

  /** A customer record, opened: absent is undefined, anything the store cannot say or that does not open rejects. */
  async #read(key: string): Promise<string | undefined> {
    return steps.open(this.#ctx.store, key, await this.#ctx.store.strictGet(key));
  }

  async #readClaim(digest: string): Promise<{ claim: Claim | undefined; raw: string | undefined }> {
    const key = this.#claimKey(digest);
    const raw = await this.#ctx.store.strictGet(key);
    const text = await steps.open(this.#ctx.store, key, raw);
    if (text === undefined) return { claim: undefined, raw };
    try {
      const claim = JSON.parse(text) as Claim;
      if (typeof claim?.by === 'string') return { claim: { by: claim.by, ...(isOutcome(claim.outcome) ? { outcome: claim.outcome } : {}) }, raw };
    } catch {
      // not a claim: below
    }
    throw new StoreFailure('a claim in the store cannot be read');
  }

  #remember(digest: string, outcome: { outcome: ClaimOutcome; tokens?: TokenSet; error?: ConsentEndedError }): void {
    this.#outcomes.set(digest, outcome);
    if (this.#outcomes.size > REMEMBERED) this.#outcomes.delete(this.#outcomes.keys().next().value!);
  }

  #customerKey(id: string): string {
    return this.#ctx.store.key('customer', keyPart(id));
  }

  #endingKey(id: string): string {
    return `${this.#customerKey(id)}:ended`;
  }

  #claimKey(digest: string): string {
    return this.#ctx.store.key('claim', digest);
  }
}

function isOutcome(value: unknown): value is ClaimOutcome {
  return value === 'redeemed' || value === 'refused' || value === 'unconfirmed';
}

/** An ending read back from the store (an earlier version's too), or undefined when it names no refresh token. */
export function parseEnding(text: string | undefined): Ending | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Ending>;
    if (typeof value?.refresh !== 'string') return undefined;
    const scopes = Array.isArray(value.scopes) ? value.scopes.filter((s): s is string => typeof s === 'string') : undefined;
    return { refresh: value.refresh, scopes, ...(typeof value.endedAt === 'number' ? { endedAt: value.endedAt } : {}), ...(value.reason === 'refresh_unconfirmed' ? { reason: value.reason } : {}) };
  } catch {
    return undefined;
  }
}

/** The error of an `invalid_grant` answer to this client's refresh. */
export function endedHere(error: OAuthError, tokens: TokenSet): ConsentEndedError {
  if (error instanceof ConsentEndedError) return error;
  return new ConsentEndedError(error.errorDescription, grantedScopes(tokens), { ...(error.status !== undefined ? { status: error.status } : {}), cause: error });
}

/** The error of an ending another client of the fleet recorded; `scopes` are this session's. */
export function endedElsewhere(scopes: string[] | undefined, reason: ConsentEndedReason = 'invalid_grant'): ConsentEndedError {
  if (reason === 'invalid_grant') return new ConsentEndedError('the consent ended in another process of the fleet (its refresh was answered invalid_grant)', scopes);
  return unconfirmed(scopes, 'another client sent its refresh token and got no answer that says whether it was redeemed');
}

/** A failure's class, and its status when it has one: what the unconfirmed ending says of it (never its text). */
function failureName(error: unknown): string {
  if (!(error instanceof OpenBankingError)) return 'a failure outside the SDK';
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? `${error.name}, HTTP ${status}` : error.name;
}

/** The error of a refresh never confirmed: the refresh token may be spent, so it is never sent again. */
function unconfirmed(scopes: string[] | undefined, why: string): ConsentEndedError {
  return new ConsentEndedError(`the session's refresh was never confirmed: ${why}; sending its refresh token again could end the consent at the provider`, scopes, {
    reason: 'refresh_unconfirmed',
  });
}

/** The wait that ran out: the store could not say (or holds a record that does not open), or another claimer kept it waiting. */
function waitedOut(waited: number, failure: StoreFailure | undefined, unopened: boolean): ConnectionError {
  if (unopened) {
    return new ConnectionError(
      `The customer session's refresh needs the fleet's store, and a record of this customer there does not open with this client secret (sealed under another secret, or altered): pass the earlier secret in the previousClientSecrets option, or give the session fresh tokens with session.setTokens; nothing was redeemed, the session keeps its tokens`,
      { cause: failure },
    );
  }
  if (failure) {
    return new ConnectionError(
      `The customer session's refresh needs the fleet's shared store, and the store did not confirm it for ${waited} ms; nothing was redeemed, the session keeps its tokens and a later call tries again`,
      { cause: failure },
    );
  }
  return new ConnectionError(`The customer session's refresh waited ${waited} ms for the client that claimed its refresh token; the session keeps its tokens and a later call looks again`);
}
