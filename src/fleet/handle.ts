import { Lazy } from '../core/lazy.js';
import type { GrantGuard } from '../auth/client-credentials.js';
import type { TokenSet, TokenStore } from '../auth/token-store.js';
import type { ConsentEnding } from '../auth/consent-ending.js';
import { type FleetAccess, type FleetBucket, fleetKey, type FleetTake } from './store.js';

/** The refresh of one customer session, shared by every process of the fleet. */
export type SharedCustomerRefresh = (current: TokenSet, grant: (refreshToken: string) => Promise<TokenSet>) => Promise<{ tokens: TokenSet; refreshed: boolean }>;

/** The coordination code of a fleet, loaded with its first use (see `connectFleet`). */
export interface FleetParts {
  /** The store behind the 250 ms limit and the in-process fallback. */
  link: FleetAccess & { toJSON(): Record<string, unknown> };
  /** Client-credentials tokens shared through the store. */
  tokens: TokenStore;
  /** One client-credentials grant per token key across the fleet, under the lock `<key>:lock`. */
  grantGuard(lockTtlMs: number): GrantGuard;
  /** The shared refresh of the customer session `id`. */
  customerRefresh(id: string, lockTtlMs: number): SharedCustomerRefresh;
  /** The ended consent another process stored for the customer session `id`, if any. */
  customerConsentEnding(id: string): Promise<ConsentEnding | undefined>;
}

/**
 * The `fleet` option as the client holds it from construction: the key namespace at once, and the
 * coordination code (the link to the store, shared tokens, locks) loaded with the first call that
 * needs it, so that a client without a fleet never loads it and one with a fleet starts as fast.
 */
export class FleetHandle implements FleetAccess {
  readonly #clientId: string;
  readonly #parts: Lazy<FleetParts>;

  constructor(clientId: string, load: () => Promise<FleetParts>) {
    this.#clientId = clientId;
    this.#parts = new Lazy(load);
  }

  /** The coordination code, loaded once. */
  parts(): Promise<FleetParts> {
    const loaded = this.#parts.value;
    return loaded ? Promise.resolve(loaded) : this.#parts.load();
  }

  key(...parts: string[]): string {
    return fleetKey(this.#clientId, parts);
  }

  get(key: string): Promise<string | undefined> {
    return this.parts().then((p) => p.link.get(key));
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.parts().then((p) => p.link.set(key, value, ttlMs));
  }

  compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean> {
    return this.parts().then((p) => p.link.compareAndSet(key, expected, value, ttlMs));
  }

  compareAndDelete(key: string, expected: string): Promise<boolean> {
    return this.parts().then((p) => p.link.compareAndDelete(key, expected));
  }

  lock(key: string, ttlMs: number): Promise<string | undefined> {
    return this.parts().then((p) => p.link.lock(key, ttlMs));
  }

  unlock(key: string, owner: string): Promise<void> {
    return this.parts().then((p) => p.link.unlock(key, owner));
  }

  take(key: string, bucket: FleetBucket): Promise<FleetTake> {
    return this.parts().then((p) => p.link.take(key, bucket));
  }

  seal(key: string, value: string): Promise<string> {
    return this.parts().then((p) => p.link.seal(key, value));
  }

  open(key: string, raw: string | undefined): Promise<string | undefined> {
    return this.parts().then((p) => p.link.open(key, raw));
  }

  /** The client-credentials token store shared by the fleet. */
  tokenStore(): TokenStore {
    return {
      get: (key) => this.parts().then((p) => p.tokens.get(key)),
      set: (key, value, ttlSeconds) => this.parts().then((p) => p.tokens.set(key, value, ttlSeconds)),
      delete: (key) => this.parts().then((p) => p.tokens.delete(key)),
      toJSON: () => ({ type: 'FleetTokenStore' }),
    } as TokenStore;
  }

  /** A view for logs: whether the shared store is answering. */
  toJSON(): Record<string, unknown> {
    return this.#parts.value?.link.toJSON() ?? { degraded: false, outages: 0 };
  }
}
