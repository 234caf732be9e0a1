import type { FieldCipher } from '../crypto/ciphers.js';
import type { SignatureEncoding } from '../crypto/bytes.js';
import type { EventHub } from './events.js';
import type { CallLimiter } from './http.js';
import type { FleetAccess } from './store.js';
import type { LeveledLogger } from './logger.js';
import type { Sleep } from './retry-timing.js';
import type { SecretMemory } from '../errors/secret-memory.js';

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
