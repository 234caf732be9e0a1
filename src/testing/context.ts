import { SCOPES } from '../core/scopes.js';
import type { SandboxBank } from './bank.js';
import type { CardStore } from './card-store.js';
import type { ClientRegistry, SandboxClient } from './clients.js';
import type { IdempotencyStore } from './idempotency.js';
import type { ResolvedSandboxOptions } from './options.js';
import type { SandboxPayments } from './payments.js';
import type { Random } from './random.js';
import type { RateLimiter } from './rate-limit.js';
import type { TokenAuthority } from './tokens.js';

/** Everything a route handler of the sandbox works with. */
export interface SandboxContext {
  options: ResolvedSandboxOptions;
  random: Random;
  clients: ClientRegistry;
  tokens: TokenAuthority;
  cards: CardStore;
  /** The seeded customer, accounts, transactions and holds. */
  bank: SandboxBank;
  /** Transfers, bill payments, disputes, mandates, savings, and the ledger of money moved. */
  payments: SandboxPayments;
  idempotency: IdempotencyStore;
  limiter: RateLimiter | undefined;
  /** The identity host URL and API base URL, without a trailing slash. */
  authUrl: string;
  baseUrl: string;
  /** Path prefix of the identity routes: `''` on a bare host. */
  authPath: string;
}

/** A route handler: one request in, one answer out; `params` are the path parameters, decoded. */
export type RouteHandler = (ctx: SandboxContext, request: Request, url: URL, params: Record<string, string>) => Promise<Response>;

/**
 * Scopes the sandbox grants: every scope of the spec, plus `profile` and `email`, which the
 * provider's own device-code example requests.
 */
export const KNOWN_SCOPES: ReadonlySet<string> = new Set<string>([...SCOPES, 'profile', 'email']);

/** Splits a space-separated scope parameter into names (no empties, no duplicates, order kept). */
export function parseScope(value: string | null): string[] {
  if (value === null) return [];
  return [...new Set(value.split(' ').filter((s) => s.length > 0))];
}

/** Compares two strings in time that does not depend on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** A copy of a client for the outside (a test control's answer). */
export function publicClient(client: SandboxClient): SandboxClient {
  return { ...client, redirectUris: [...client.redirectUris] };
}
