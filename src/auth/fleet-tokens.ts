import type { FleetParts } from '../fleet/handle.js';
import { ConnectionError, OAuthError } from '../errors/index.js';
import { grantedScopes } from './consent.js';
import { type ConsentEnding, endedElsewhere, endingOf, endsTokens, parseEnding } from './consent-ending.js';
import { exclusive, FleetLink, type FleetLog, FleetUnavailable, pause } from '../fleet/link.js';
import { type FleetStore, keyPart } from '../fleet/store.js';
import { isFresh, type TokenSet, type TokenStore } from './token-store.js';

/**
 * How long a fleet keeps a customer's latest token set (it carries the rotated refresh token the
 * next refresh must use): 30 days after its last refresh.
 */
export const SHARED_CUSTOMER_TTL_MS = 30 * 24 * 60 * 60 * 1000;

function parse(raw: string | undefined): TokenSet | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as TokenSet;
    return typeof value?.access_token === 'string' && typeof value.expires_at === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** How long a process reuses a token it read from the fleet's store before reading the store again. */
export const FLEET_TOKEN_READ_CACHE_MS = 1_000;

/**
 * Client-credentials tokens kept in the fleet's store: every process reuses one token per scope
 * set. A token read from the store is reused in this process for up to
 * {@link FLEET_TOKEN_READ_CACHE_MS} while it is fresh (one store round trip a second instead of one
 * per call); a token due for renewal is always looked up in the store, so a token another process
 * just fetched is found, not fetched again.
 */
export class FleetTokenStore implements TokenStore {
  readonly #link: FleetLink;
  readonly #now: () => number;
  readonly #read = new Map<string, { raw: string; value: TokenSet; until: number }>();

  constructor(link: FleetLink, now: () => number) {
    this.#link = link;
    this.#now = now;
  }

  async get(key: string): Promise<TokenSet | undefined> {
    const cached = this.#read.get(key);
    if (cached && Date.now() < cached.until && isFresh(cached.value, this.#now())) return cached.value;
    const raw = await this.#link.get(key);
    const value = parse(await this.#link.open(key, raw));
    if (raw !== undefined && value !== undefined) this.#read.set(key, { raw, value, until: Date.now() + FLEET_TOKEN_READ_CACHE_MS });
    else this.#read.delete(key);
    return value;
  }

  async set(key: string, value: TokenSet, ttlSeconds: number): Promise<void> {
    const raw = await this.#link.seal(key, JSON.stringify(value));
    this.#read.set(key, { raw, value, until: Date.now() + FLEET_TOKEN_READ_CACHE_MS });
    await this.#link.set(key, raw, Math.max(1, ttlSeconds) * 1000);
  }

  /** Deletes the token this process last saw, and only that one: a newer token another process stored stays. */
  async delete(key: string): Promise<void> {
    const seen = this.#read.get(key)?.raw;
    this.#read.delete(key);
    const raw = seen ?? (await this.#link.get(key));
    if (raw !== undefined) await this.#link.compareAndDelete(key, raw);
  }

  /** A view for logs: never a token. */
  toJSON(): Record<string, unknown> {
    return { type: 'FleetTokenStore' };
  }
}

/** One client-credentials grant per key across the fleet: the lock holder asks, the others read its token. */
export function fleetGrantGuard(link: FleetLink, lockTtlMs: number) {
  return <T>(key: string, read: () => Promise<T | undefined>, produce: () => Promise<T>): Promise<T> =>
    exclusive(link, `${key}:lock`, lockTtlMs, read, produce);
}

/** What a customer refresh across the fleet resolved to: the new set, and whether this process redeemed the refresh token. */
export interface SharedRefreshOutcome {
  tokens: TokenSet;
  refreshed: boolean;
}

/**
 * A customer's refresh across the fleet, for the sessions that share an `id`: a newer set another
 * process stored is adopted as is; otherwise one process at a time, under a lock that expires,
 * redeems the newest refresh token known and stores the new set (sealed) for the others.
 *
 * Never fails open: a refresh token is redeemed only under a lock the shared store granted, after
 * reading the shared set from it. While the store cannot grant or confirm (down, slow, unreadable)
 * it waits up to the lock's lifetime, then rejects with `ConnectionError`; the session keeps its tokens.
 */
export function sharedCustomerRefresh(link: FleetLink, id: string, lockTtlMs: number, now: () => number) {
  const key = link.key('customer', keyPart(id));
  const lockKey = `${key}:lock`;
  const ending = sharedConsentEnding(link, id);
  const readShared = async () => parse(await link.open(key, await link.strictGet(key)));
  return async (current: TokenSet, grant: (refreshToken: string) => Promise<TokenSet>): Promise<SharedRefreshOutcome> => {
    // A fresh set another process stored, to adopt without a request; never one whose refresh token
    // the fleet saw refused: that consent has ended, and a session given new tokens since must not
    // swap them for it (it would end again on the old consent's ending).
    const newer = async (shared: TokenSet | undefined, ended: ConsentEnding | undefined) => {
      if (!shared || shared.access_token === current.access_token || !isFresh(shared, now())) return undefined;
      return ended && (await endsTokens(ended, shared)) ? undefined : shared;
    };
    const started = Date.now();
    let unconfirmed: unknown;
    for (let round = 0; ; round++) {
      try {
        const owner = await link.strictLock(lockKey, lockTtlMs);
        if (owner !== undefined) {
          try {
            const shared = await readShared();
            const ended = await ending.read();
            const ready = await newer(shared, ended);
            if (ready) return { tokens: ready, refreshed: false };
            // The stored set holds the latest rotation when another process refreshed after this one did.
            const latest = shared && shared.refresh_token !== undefined && shared.expires_at >= current.expires_at ? shared : current;
            // Another process saw this consent end: no refresh request of this one's.
            if (ended && (await endsTokens(ended, latest))) throw endedElsewhere(grantedScopes(current) ?? ended.scopes);
            const fresh = await grant(latest.refresh_token ?? current.refresh_token!).catch(async (error: unknown) => {
              // Told to the other processes before the lock frees, so none redeems the refused token again.
              if (error instanceof OAuthError && error.error === 'invalid_grant') await ending.write(await endingOf(latest, now()));
              throw error;
            });
            const kept = { ...fresh, refresh_token: fresh.refresh_token ?? latest.refresh_token };
            await storeShared(link, key, kept);
            return { tokens: kept, refreshed: true };
          } finally {
            void link.unlock(lockKey, owner).catch(() => undefined);
          }
        }
        unconfirmed = undefined;
        // Another process holds the lock: its new set appears in the store, or the lock frees (it expires).
        await pause(Math.min(100, 10 * (round + 1)));
        const stored = await readShared();
        const ready = stored && (await newer(stored, await ending.read()));
        if (ready) return { tokens: ready, refreshed: false };
      } catch (error) {
        if (!(error instanceof FleetUnavailable)) throw error;
        unconfirmed = error;
        await pause(Math.min(100, 10 * (round + 1)));
      }
      // The store failing: up to the lock's lifetime. A live holder: up to twice that (its lock expires).
      if (Date.now() - started > (unconfirmed ? lockTtlMs : 2 * lockTtlMs + 1_000)) {
        throw new ConnectionError(
          `The customer session's refresh needs the fleet's shared store to take its lock, and the store ${unconfirmed ? 'did not confirm it' : 'kept it held'} for ${Date.now() - started} ms; the session keeps its tokens and a later call tries again`,
          unconfirmed ? { cause: unconfirmed } : undefined,
        );
      }
    }
  };
}

/** How long a fleet remembers that a customer's consent ended: as long as it keeps the customer's tokens. */
const ENDING_TTL_MS = SHARED_CUSTOMER_TTL_MS;

/**
 * The ended consent of the customer session `id` in the fleet's store (sealed, under
 * `…:customer:<id>:ended`): written by the process whose refresh was answered `invalid_grant`,
 * read by the others before their calls. A store that fails reads as no ending (the refresh
 * itself stays behind the lock).
 */
export function sharedConsentEnding(link: FleetLink, id: string) {
  const key = `${link.key('customer', keyPart(id))}:ended`;
  return {
    read: async (): Promise<ConsentEnding | undefined> => parseEnding(await link.open(key, await link.get(key))),
    write: async (value: ConsentEnding): Promise<void> => link.set(key, await link.seal(key, JSON.stringify(value)), ENDING_TTL_MS).catch(() => undefined),
  };
}

/** Stores the refreshed set for the other processes: a few tries, since they would redeem a spent refresh token without it. */
async function storeShared(link: FleetLink, key: string, tokens: TokenSet): Promise<void> {
  const sealed = await link.seal(key, JSON.stringify(tokens));
  for (let attempt = 1; ; attempt++) {
    try {
      return await link.strictSet(key, sealed, SHARED_CUSTOMER_TTL_MS);
    } catch (error) {
      if (!(error instanceof FleetUnavailable) || attempt >= 3) return; // this process still holds the new set, and onTokens sees it
      await pause(100);
    }
  }
}

/**
 * The coordination code of the `fleet` option over the user's store: the link (250 ms limit,
 * in-process fallback, sealed values), shared tokens, locks and shared customer refreshes. Loaded
 * with the fleet's first use (`FleetHandle`).
 */
export function connectFleet(store: FleetStore, options: { clientId: string; clientSecret: string; log: FleetLog; now: () => number }): FleetParts {
  const link = new FleetLink(store, options);
  return {
    link,
    tokens: new FleetTokenStore(link, options.now),
    grantGuard: (lockTtlMs) => fleetGrantGuard(link, lockTtlMs),
    customerRefresh: (id, lockTtlMs) => sharedCustomerRefresh(link, id, lockTtlMs, options.now),
    customerConsentEnding: (id) => sharedConsentEnding(link, id).read(),
  };
}
