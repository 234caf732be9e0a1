import { type FieldCipher, plaintextCipher } from '../crypto/ciphers.js';
import type { SignatureEncoding } from '../crypto/bytes.js';
import { ValidationError, type ValidationIssue } from '../errors/base.js';
import type { Environment } from '../options.js';
import { PUBLISHED_RATE_LIMITS } from '../options.js';
import type { SandboxRequestRecord } from './requests.js';

/**
 * An application the sandbox knows from the start, so tests and examples can skip registration.
 * @group Sandbox
 */
export interface SandboxClientInit {
  /** The client id the application will present. */
  clientId: string;
  /** Its client secret (used for token requests and to check request signatures). */
  clientSecret: string;
  /** Redirect URIs accepted by `GET /oauth/authorize`, matched exactly. Default none. */
  redirectUris?: readonly string[];
  /** The name shown on the consent page. Default: the client id. */
  name?: string;
  /** `participant_id` of the registration. Default: generated. */
  participantId?: string;
  /** `connection_id` of the registration. Default: generated. */
  connectionId?: string;
  /** With `password`: the login `GET /dcr` accepts for this client. */
  username?: string;
  /** With `username`: the password `GET /dcr` accepts. */
  password?: string;
}

/**
 * Options of {@link createSandbox}. All optional.
 * @group Sandbox
 */
export interface SandboxOptions {
  /**
   * `'sandbox'` (default): registrations are approved at once and rate limits, when on, are
   * 100/min with a burst of 200. `'production'`: registrations wait for
   * {@link SandboxControls.approveRegistration}, and the limits are 10/min, burst 20.
   */
  environment?: Environment;
  /**
   * The API base URL the sandbox answers on, including the version path. Default
   * `https://api.openbanking-ng.test/openapi/v1` (a reserved name that never resolves, so
   * nothing can leave the process). {@link startSandboxServer} sets it to its own address.
   */
  baseUrl?: string;
  /** The identity host URL. Default `https://identity.openbanking-ng.test`. */
  authUrl?: string;
  /** Applications registered from the start. */
  clients?: readonly SandboxClientInit[];
  /**
   * Decrypts the PIN of `POST /cards` and encrypts the secret fields of answers. Default
   * `plaintextCipher`, like the client's; give both the same cipher to exercise another scheme.
   */
  cipher?: FieldCipher;
  /** Encodings of the `signature` header the sandbox accepts. Default `['hex']`. */
  signatureEncodings?: readonly SignatureEncoding[];
  /**
   * API rate limits answering 429 with `Retry-After`: `true` for the environment's published
   * limits, or your own numbers (requests per minute, bucket size). Off by default. Token and
   * registration requests go to the identity host and are not counted.
   */
  rateLimits?:
    | boolean
    | {
        /** Requests per minute refilled into each client's bucket. */
        rate: number;
        /** Bucket size: requests that may arrive at once. */
        burst: number;
      };
  /** The sandbox's clock in milliseconds (code and token expiry, rate limits, polling). Default `Date.now`. */
  now?: () => number;
  /** Makes identifiers, tokens and random fault decisions repeat from run to run. Default: Web Crypto randomness. */
  seed?: number | string;
  /** Access-token lifetime in seconds. Default 3600 (the spec's one hour). */
  tokenLifetime?: number;
  /** Authorization-code lifetime in seconds. Default 60. */
  codeLifetime?: number;
  /** Device-code lifetime in seconds. Default 900. */
  deviceCodeLifetime?: number;
  /** Device-code polling interval in seconds. Default 5. */
  deviceCodeInterval?: number;
  /** Called after every request with what was asked and answered (never headers or bodies). */
  onRequest?: (record: SandboxRequestRecord) => void;
  /**
   * Acts as a customer who approves everything: `GET /oauth/authorize` redirects straight back with
   * a code (no consent page), and a device code is approved as it is issued. For scripts against a
   * sandbox in another process (`openbanking-ng-sandbox --auto-approve`). Default false.
   */
  autoApprove?: boolean;
}

/** Options after validation and defaults. */
export interface ResolvedSandboxOptions {
  environment: Environment;
  baseUrl: URL;
  authUrl: URL;
  clients: readonly SandboxClientInit[];
  cipher: FieldCipher;
  signatureEncodings: readonly SignatureEncoding[];
  rateLimits: { rate: number; burst: number } | undefined;
  now: () => number;
  seed: number | string | undefined;
  tokenLifetime: number;
  codeLifetime: number;
  deviceCodeLifetime: number;
  deviceCodeInterval: number;
  onRequest: ((record: SandboxRequestRecord) => void) | undefined;
  autoApprove: boolean;
}

/**
 * Where {@link createSandbox} answers unless told otherwise: reserved `.test` names that never
 * resolve, so a request that misses the sandbox fails instead of reaching a real host.
 * @group Sandbox
 */
export const SANDBOX_DEFAULT_URLS: Readonly<{
  /** `https://api.openbanking-ng.test/openapi/v1` */
  baseUrl: string;
  /** `https://identity.openbanking-ng.test` */
  authUrl: string;
}> = Object.freeze({
  baseUrl: 'https://api.openbanking-ng.test/openapi/v1',
  authUrl: 'https://identity.openbanking-ng.test',
});

const KNOWN = new Set([
  'environment', 'baseUrl', 'authUrl', 'clients', 'cipher', 'signatureEncodings', 'rateLimits', 'now', 'seed',
  'tokenLifetime', 'codeLifetime', 'deviceCodeLifetime', 'deviceCodeInterval', 'onRequest', 'autoApprove',
]);

function url(issues: ValidationIssue[], path: string, value: unknown, fallback: string): URL {
  if (value === undefined) return new URL(fallback);
  if (typeof value !== 'string' || !URL.canParse(value)) {
    issues.push({ path, message: 'must be an absolute http(s) URL', code: 'invalid_url' });
    return new URL(fallback);
  }
  const parsed = new URL(value.replace(/\/+$/, ''));
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search || parsed.hash) {
    issues.push({ path, message: 'must be an http(s) URL without query or fragment', code: 'invalid_url' });
    return new URL(fallback);
  }
  return parsed;
}

function seconds(issues: ValidationIssue[], path: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    issues.push({ path, message: 'must be a positive number of seconds', code: 'invalid_value' });
    return fallback;
  }
  return value;
}

/** Validates the sandbox options; throws one `ValidationError` listing every problem. */
export function resolveSandboxOptions(input: SandboxOptions = {}): ResolvedSandboxOptions {
  const issues: ValidationIssue[] = [];
  if (typeof input !== 'object' || input === null) throw new ValidationError('Invalid sandbox options', [{ path: '', message: 'must be an object', code: 'invalid_type' }]);
  for (const key of Object.keys(input)) if (!KNOWN.has(key)) issues.push({ path: key, message: 'is not a sandbox option', code: 'unrecognized_keys' });

  const environment = input.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') issues.push({ path: 'environment', message: "must be 'sandbox' or 'production'", code: 'invalid_value' });

  const cipher = input.cipher ?? plaintextCipher;
  if (typeof cipher !== 'object' || cipher === null || typeof cipher.encrypt !== 'function' || typeof cipher.decrypt !== 'function') {
    issues.push({ path: 'cipher', message: 'must be a FieldCipher with encrypt and decrypt', code: 'invalid_type' });
  }
  const signatureEncodings = input.signatureEncodings ?? ['hex'];
  if (!Array.isArray(signatureEncodings) || signatureEncodings.length === 0 || signatureEncodings.some((e) => e !== 'hex' && e !== 'base64')) {
    issues.push({ path: 'signatureEncodings', message: "must be a non-empty array of 'hex' and/or 'base64'", code: 'invalid_value' });
  }

  let rateLimits: ResolvedSandboxOptions['rateLimits'];
  if (input.rateLimits === true) rateLimits = { ...PUBLISHED_RATE_LIMITS[environment === 'production' ? 'production' : 'sandbox'] };
  else if (typeof input.rateLimits === 'object' && input.rateLimits !== null) {
    const { rate, burst } = input.rateLimits;
    if (typeof rate !== 'number' || !(rate > 0) || !Number.isFinite(rate)) issues.push({ path: 'rateLimits.rate', message: 'must be a positive number of requests per minute', code: 'invalid_value' });
    if (typeof burst !== 'number' || !Number.isInteger(burst) || burst < 1) issues.push({ path: 'rateLimits.burst', message: 'must be a positive integer', code: 'invalid_value' });
    rateLimits = { rate, burst };
  } else if (input.rateLimits !== undefined && input.rateLimits !== false) {
    issues.push({ path: 'rateLimits', message: 'must be true, false or { rate, burst }', code: 'invalid_type' });
  }

  if (input.now !== undefined && typeof input.now !== 'function') issues.push({ path: 'now', message: 'must be a function returning milliseconds', code: 'invalid_type' });
  if (input.onRequest !== undefined && typeof input.onRequest !== 'function') issues.push({ path: 'onRequest', message: 'must be a function', code: 'invalid_type' });
  if (input.autoApprove !== undefined && typeof input.autoApprove !== 'boolean') issues.push({ path: 'autoApprove', message: 'must be a boolean', code: 'invalid_type' });
  if (input.seed !== undefined && typeof input.seed !== 'number' && typeof input.seed !== 'string') issues.push({ path: 'seed', message: 'must be a number or a string', code: 'invalid_type' });

  const clients = input.clients ?? [];
  if (!Array.isArray(clients)) issues.push({ path: 'clients', message: 'must be an array', code: 'invalid_type' });
  else {
    const ids = new Set<string>();
    clients.forEach((c: SandboxClientInit, i) => {
      if (typeof c?.clientId !== 'string' || c.clientId === '') issues.push({ path: `clients.${i}.clientId`, message: 'is required', code: 'missing' });
      else if (ids.has(c.clientId)) issues.push({ path: `clients.${i}.clientId`, message: 'is registered twice', code: 'duplicate' });
      else ids.add(c.clientId);
      if (typeof c?.clientSecret !== 'string' || c.clientSecret === '') issues.push({ path: `clients.${i}.clientSecret`, message: 'is required', code: 'missing' });
      if (c?.redirectUris !== undefined && (!Array.isArray(c.redirectUris) || c.redirectUris.some((u) => typeof u !== 'string' || !URL.canParse(u)))) {
        issues.push({ path: `clients.${i}.redirectUris`, message: 'must be an array of absolute URLs', code: 'invalid_url' });
      }
      if ((c?.username === undefined) !== (c?.password === undefined)) issues.push({ path: `clients.${i}`, message: 'username and password go together', code: 'invalid_value' });
    });
  }

  const resolved: ResolvedSandboxOptions = {
    environment,
    baseUrl: url(issues, 'baseUrl', input.baseUrl, SANDBOX_DEFAULT_URLS.baseUrl),
    authUrl: url(issues, 'authUrl', input.authUrl, SANDBOX_DEFAULT_URLS.authUrl),
    clients,
    cipher,
    signatureEncodings,
    rateLimits,
    now: input.now ?? Date.now,
    seed: input.seed,
    tokenLifetime: seconds(issues, 'tokenLifetime', input.tokenLifetime, 3600),
    codeLifetime: seconds(issues, 'codeLifetime', input.codeLifetime, 60),
    deviceCodeLifetime: seconds(issues, 'deviceCodeLifetime', input.deviceCodeLifetime, 900),
    deviceCodeInterval: seconds(issues, 'deviceCodeInterval', input.deviceCodeInterval, 5),
    onRequest: input.onRequest,
    autoApprove: input.autoApprove === true,
  };
  if (issues.length > 0) throw new ValidationError('Invalid sandbox options', issues);
  return resolved;
}
