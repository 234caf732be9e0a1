import type { EventHub } from './events.js';
import type { CallLimiter } from './http.js';
import type { FleetAccess } from './store.js';
import type { LeveledLogger } from './logger.js';
import type { Sleep } from './retry-timing.js';
import type { SecretMemory } from './secret-memory.js';

/** How the `signature` header's SHA-256 digest is written: lowercase hex (default) or base64. @group Client */
export type SignatureEncoding = 'hex' | 'base64';

/* The provider's environments, hosts, identity-host paths and published limits: plain data every layer reads. */

/** The default `maxResponseBytes`: 10 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Which of the provider's environments the client talks to. @group Client */
export type Environment = 'sandbox' | 'production';

/** Paths on the identity host, and the one unofficial path on the API gateway; each can be overridden. @group Client */
export interface Endpoints {
  /** Authorization endpoint. Default `/oauth/authorize`. */
  authorize: string;
  /** Code exchange and refresh. Default `/oauth/token`. */
  token: string;
  /** Client credentials (and device-code polling). Default `/oauth2/token`. */
  clientCredentials: string;
  /** Device authorization. Default `/oauth2/device/code`. */
  deviceCode: string;
  /** Dynamic client registration. Default `/dcr`. */
  registration: string;
  /**
   * `transfers.create` on the API gateway (under `baseUrl`). Default `/transactions/transfer`: the
   * provider's reference shows no path for this operation, so the default is the one a working
   * integration uses (unofficial); override it when your provider documents another.
   */
  transfer: string;
}

/** Default identity-host paths, as the spec gives them. @group Client */
export const DEFAULT_ENDPOINTS: Readonly<Endpoints> = Object.freeze({
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  clientCredentials: '/oauth2/token',
  deviceCode: '/oauth2/device/code',
  registration: '/dcr',
  transfer: '/transactions/transfer',
});

/**
 * The names of the API-call headers whose spelling the provider's pages disagree on: the API
 * reference writes `idempotency-key` and `connection-id`, its guides `idempotency_key` and
 * `connection_id`. @group Client
 */
export interface HeaderNames {
  /** The idempotency key's header. Default `idempotency-key`. */
  idempotencyKey: string;
  /** The target bank's header. Default `connection-id`. */
  connectionId: string;
}

/** The API reference's spellings. @group Client */
export const DEFAULT_HEADER_NAMES: Readonly<HeaderNames> = Object.freeze({ idempotencyKey: 'idempotency-key', connectionId: 'connection-id' });

/** Where the API gateway and the identity host live. @group Client */
export interface Hosts {
  /** API gateway including the version path. */
  baseUrl: string;
  /** Identity host. */
  authUrl: string;
}

/** The provider's published sandbox hosts. @group Client */
export const SANDBOX_HOSTS: Readonly<Hosts> = Object.freeze({
  baseUrl: 'https://api-sandbox.sparkle.fyi/openapi/v1',
  authUrl: 'https://identity-sandbox.sparkle.fyi',
});

/**
 * True for `localhost`, `127.0.0.0/8` and `[::1]`: the only hosts plain `http://` may reach.
 * Not `*.localhost`: whether such a name resolves to loopback is up to the resolver.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** A rate limit: calls per minute and the burst that may leave at once. @group Client */
export interface RateLimit {
  /** Calls per minute. */
  rate: number;
  /** Calls that may leave at once. */
  burst: number;
}

/** The provider's published limits per environment. @group Client */
export const PUBLISHED_RATE_LIMITS: Readonly<Record<Environment, RateLimit>> = Object.freeze({
  sandbox: { rate: 100, burst: 200 },
  production: { rate: 10, burst: 20 },
});

export type { CallLimiter } from './http.js';

/** The settings the request pipeline works with: the client's options after validation and defaults. */
export interface PipelineConfig {
  clientSecret: string;
  environment: Environment;
  baseUrl: string;
  connectionId: string | undefined;
  participantId: string | undefined;
  /** The idempotency and connection headers' names, lower case. */
  headerNames: Readonly<HeaderNames>;
  cipher: FieldCipher;
  /** The cipher was chosen by the caller (production refuses to send secrets otherwise). */
  cipherExplicit: boolean;
  signatureEncoding: SignatureEncoding;
  maxRetries: number;
  maxRetryDelay: number;
  /** The longest wait before a retry (ms), when capped. */
  retryDelay: number | undefined;
  timeout: number;
  /** Largest response body read (bytes). */
  maxResponseBytes: number;
  fetch: typeof fetch | undefined;
  logger: LeveledLogger;
  /** The limiter of `rateLimit`: the token bucket in the fleet's store with a fleet, else in the client's own. */
  limiter: CallLimiter | undefined;
  decryptResponses: boolean;
  /** The fleet's shared store (ciphertexts kept for retries from another process), when the `fleet` option is set. */
  fleet: FleetAccess | undefined;
  sleep: Sleep;
  now: () => number;
  /** The client's listeners and instrumentations (`ob.on`, `openbanking-ng/otel`). */
  events: EventHub;
  /** What the client remembers to mask in any text: its secrets, its tokens, the signatures it sent. */
  secrets: SecretMemory;
}

/**
 * Every scope the specification names: the authorization-flow scopes and the security scheme's
 * per-area scopes.
 * @group OAuth
 */
export const SCOPES = [
  'accounts',
  'payments',
  'transactions',
  'standing_orders',
  'openid',
  'customers.readonly',
  'customers.update',
  'accounts.create',
  'accounts.list.readonly',
  'accounts.balance.readonly',
  'accounts.update',
  'accounts.transactions.readonly',
  'accounts.holds.readonly',
  'accounts.holds.create',
  'accounts.holds.update',
  'transfers.transactions.enquiry',
  'transfers.transactions.create',
  'transfers.transactions.query',
  'bills.categories.list',
  'bills.billers.list',
  'bills.bill.validate',
  'bills.transactions.create',
  'disputes.categories.list',
  'disputes.report.create',
  'disputes.report.readonly',
  'direct-debits.create',
  'direct-debits.update',
  'direct-debits.list',
  'direct-debits.readonly',
  'direct-debits.transaction.create',
  'cards.list',
  'cards.update',
  'cards.create',
  'loans.list',
  'savings.list',
  'savings.transactions.list',
] as const;

/**
 * A scope the specification names.
 * @group OAuth
 */
export type Scope = (typeof SCOPES)[number];

/** Scopes as an array of names or one space-separated string. @group OAuth */
export type ScopeInput = Scope | readonly Scope[] | (string & {});

/** The table itself, literal so that its keys make {@link OperationName}. */
const operationScopeTable = {
  'customers.retrieve': ['customers.readonly'],
  'accounts.create': ['accounts.create'],
  'accounts.list': ['accounts.list.readonly'],
  'accounts.balances.retrieve': ['accounts.balance.readonly'],
  'accounts.transactions.list': ['accounts.transactions.readonly'],
  'accounts.holds.list': ['accounts.holds.readonly'],
  'accounts.holds.create': ['accounts.holds.create'],
  'accounts.holds.update': ['accounts.holds.update'],
  'transfers.enquiry': ['transfers.transactions.enquiry'],
  'transfers.retrieve': ['transfers.transactions.query'],
  'transfers.create': ['transfers.transactions.create'],
  'bills.categories.list': ['bills.categories.list'],
  'bills.billers.list': ['bills.billers.list'],
  'bills.validate': ['bills.bill.validate'],
  'bills.pay': ['bills.transactions.create'],
  'disputes.categories.list': ['disputes.categories.list'],
  'disputes.create': ['disputes.report.create'],
  'disputes.retrieve': ['disputes.report.readonly'],
  'directDebits.create': ['direct-debits.create'],
  'directDebits.list': ['direct-debits.list'],
  'directDebits.update': ['direct-debits.update'],
  'directDebits.charge': ['direct-debits.transaction.create'],
  'cards.create': ['cards.create'],
  'cards.list': ['cards.list'],
  'savings.list': ['savings.list'],
  'savings.transactions.list': ['savings.transactions.list'],
} as const satisfies Record<string, readonly Scope[]>;

/**
 * The scopes each typed operation asks for by default, keyed by its method name: what an app asks
 * the customer to grant for the operations it calls. The operations' declarations read their
 * scopes from here, so that `openbanking-ng/pkce` can offer it without loading them; override an
 * entry with the `operationScopes` client option when your provider wants another scope (the map and its
 * lists are frozen).
 *
 * @example
 * ```ts
 * import { OPERATION_SCOPES } from 'openbanking-ng/pkce';
 * const scope = [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']];
 * ```
 * @group Client
 */
export const OPERATION_SCOPES: Readonly<Record<OperationName, readonly Scope[]>> = Object.freeze(operationScopeTable);
// Each list frozen too: the declarations share them, so a push onto one would change every client's scopes.
for (const scopes of Object.values(operationScopeTable)) Object.freeze(scopes);

/**
 * The name of a typed operation, as its method is called under the client: the keys of
 * {@link OPERATION_SCOPES} and of the `operationScopes` option.
 * @group Client
 */
export type OperationName = keyof typeof operationScopeTable;

/** Normalises scopes to a sorted, de-duplicated list of names. */
export function scopeList(scope: ScopeInput | readonly string[] | undefined): string[] {
  if (scope === undefined) return [];
  const names = typeof scope === 'string' ? scope.split(/\s+/) : [...scope];
  return [...new Set(names.filter((s) => s.length > 0))].sort();
}

/**
 * Encrypts and decrypts one secret card field (PIN, CVV2, card number, card token).
 *
 * The service says these fields are "encrypted with the client secret" and does not name the
 * scheme, so the SDK never guesses: pick the built-in cipher your provider documents, or write
 * your own in a few lines. Both methods work on one string and must be inverse of each other.
 *
 * @example
 * ```ts
 * import type { FieldCipher } from 'openbanking-ng';
 * const reversed: FieldCipher = {
 *   encrypt: async (text) => [...text].reverse().join(''),
 *   decrypt: async (text) => [...text].reverse().join(''),
 * };
 * ```
 * @group Ciphers
 */
export interface FieldCipher {
  /** Turns a plaintext value into the text sent on the wire. */
  encrypt(plaintext: string): Promise<string>;
  /** Turns a value received from the service back into plaintext; rejects when it cannot. */
  decrypt(ciphertext: string): Promise<string>;
}

/**
 * The identity cipher: values cross the wire unchanged, as the provider's public sandbox shows
 * them. It is the default; in `environment: 'production'` it must be chosen explicitly
 * (`cipher: plaintextCipher`) before the SDK sends a secret field.
 * @group Ciphers
 */
export const plaintextCipher: FieldCipher = /* @__PURE__ */ Object.freeze({
  encrypt: (plaintext: string) => Promise.resolve(plaintext),
  decrypt: (ciphertext: string) => Promise.resolve(ciphertext),
});
