import { isLoopbackHost } from './auth/grant.js';
import { MemoryTokenStore, type TokenStore } from './auth/token-store.js';
import { type FieldCipher, plaintextCipher } from './crypto/cipher.js';
import { type LogLevel, LOG_LEVELS, type Logger, levelFromEnvironment, leveledLogger } from './core/logger.js';
import { defaultSleep, type Sleep } from './core/retry.js';
import type { SignatureEncoding } from './core/signature.js';
import { ValidationError, type ValidationIssue } from './errors.js';

/** Which of the provider's environments the client talks to. @group Client */
export type Environment = 'sandbox' | 'production';

/** Paths on the identity host; each can be overridden. @group Client */
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
}

/** Default identity-host paths, as the spec gives them. @group Client */
export const DEFAULT_ENDPOINTS: Readonly<Endpoints> = Object.freeze({
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  clientCredentials: '/oauth2/token',
  deviceCode: '/oauth2/device/code',
  registration: '/dcr',
});

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
 * Client-side rate limiting: `true` for the environment's published limits (sandbox 100/min
 * burst 200, production 10/min burst 20), or your own numbers.
 * @group Client
 */
export type RateLimitOption =
  | boolean
  | {
      /** Calls per minute refilled into the bucket. */
      rate: number;
      /** Bucket size: calls that may leave at once. */
      burst: number;
      /** Longest a call waits for budget before it rejects with `RateLimitError` (ms). Default 60 000. */
      maxWait?: number;
    };

/**
 * Options of {@link OpenBanking}. Only the credentials are required.
 * @group Client
 */
export interface ClientOptions {
  /** The application's client id, from registration. */
  clientId: string;
  /** The application's client secret. Server side only. */
  clientSecret: string;
  /** `'sandbox'` (default) or `'production'`. */
  environment?: Environment;
  /** API gateway including the version path, e.g. `https://api-sandbox.sparkle.fyi/openapi/v1`. Required in production. */
  baseUrl?: string;
  /** Identity host, e.g. `https://identity-sandbox.sparkle.fyi`. Required in production. */
  authUrl?: string;
  /** Paths on the identity host, each overridable. */
  endpoints?: Partial<Endpoints>;
  /** Default `connection-id` header (the target bank). */
  connectionId?: string;
  /** Sent as `X-Participant-ID` on API calls when set. */
  participantId?: string;
  /** Default redirect URI for the authorization-code flow. */
  redirectUri?: string;
  /** Cipher for the card secret fields. Default {@link plaintextCipher}; production requires an explicit choice. */
  cipher?: FieldCipher;
  /** Encoding of the `signature` header: `'hex'` (default) or `'base64'`. */
  signatureEncoding?: SignatureEncoding;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Longest `Retry-After` the SDK waits for (ms); longer ones fail at once. Default 60 000. */
  maxRetryDelay?: number;
  /** Per-attempt timeout (ms; a fraction is rounded up to the next whole millisecond). Default 30 000. */
  timeout?: number;
  /** A custom fetch (e.g. the local sandbox's handler). Read per request; default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Where client-credentials tokens are cached. Default: in memory, per client. */
  tokenStore?: TokenStore;
  /** Where log lines go. Default `console`. */
  logger?: Logger;
  /** How much is logged. Default `'warn'`, or `OPENBANKING_LOG`. */
  logLevel?: LogLevel;
  /** Client-side rate limiter; off by default. */
  rateLimit?: RateLimitOption;
  /** Decrypt secret response fields with the cipher. Default `true`. */
  decryptResponses?: boolean;
  /** Allow a client secret in a browser. Only for trusted, internal tools. */
  dangerouslyAllowBrowser?: boolean;
  /** Waits between attempts; replace it in tests so they never wait. Default: a timer. */
  sleep?: Sleep;
  /** Clock in milliseconds: token expiry, the device-code deadline, the rate limiter and a `Retry-After` given as an HTTP date follow it. Replace it in tests to share a fake clock with the local sandbox. Default `Date.now`. */
  now?: () => number;
}

/** Options after validation and defaults. */
export interface ResolvedOptions {
  clientId: string;
  clientSecret: string;
  environment: Environment;
  baseUrl: string;
  authUrl: string;
  endpoints: Endpoints;
  connectionId: string | undefined;
  participantId: string | undefined;
  redirectUri: string | undefined;
  cipher: FieldCipher;
  cipherExplicit: boolean;
  signatureEncoding: SignatureEncoding;
  maxRetries: number;
  maxRetryDelay: number;
  timeout: number;
  fetch: typeof fetch | undefined;
  tokenStore: TokenStore;
  logger: ReturnType<typeof leveledLogger>;
  rateLimit: { rate: number; burst: number; maxWait: number } | undefined;
  decryptResponses: boolean;
  sleep: Sleep;
  now: () => number;
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

const KNOWN_OPTIONS = new Set<string>([
  'clientId', 'clientSecret', 'environment', 'baseUrl', 'authUrl', 'endpoints', 'connectionId', 'participantId',
  'redirectUri', 'cipher', 'signatureEncoding', 'maxRetries', 'maxRetryDelay', 'timeout', 'fetch', 'tokenStore',
  'logger', 'logLevel', 'rateLimit', 'decryptResponses', 'dangerouslyAllowBrowser', 'sleep', 'now',
]);

/** Collects option problems so the constructor reports all of them at once. */
export class IssueList {
  readonly issues: ValidationIssue[] = [];
  add(path: string, message: string, code = 'invalid_option'): void {
    this.issues.push({ path, message, code });
  }
  throwIfAny(what: string): void {
    if (this.issues.length > 0) throw new ValidationError(what, this.issues);
  }
}

/** Checks a string option; returns it trimmed of nothing (values are used as given). */
export function checkString(issues: IssueList, path: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) issues.add(path, 'is required', 'missing');
    return undefined;
  }
  if (typeof value !== 'string') {
    issues.add(path, `must be a string, got ${describeType(value)}`, 'invalid_type');
    return undefined;
  }
  if (value.trim() === '') {
    issues.add(path, 'must not be empty', 'too_small');
    return undefined;
  }
  if (/[\r\n\0]/.test(value)) {
    issues.add(path, 'must not contain line breaks or NUL characters', 'invalid_format');
    return undefined;
  }
  return value;
}

/** The longest delay a JavaScript timer can hold (2^31 − 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Checks a number option: finite, at least `min`, optionally an integer. */
export function checkNumber(issues: IssueList, path: string, value: unknown, fallback: number, opts: { min: number; integer?: boolean; allowInfinity?: boolean }): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (Number.isFinite(value) || (opts.allowInfinity === true && value === Infinity)) &&
    value >= opts.min &&
    (!opts.integer || Number.isInteger(value) || value === Infinity);
  if (!ok) {
    const kind = opts.integer ? 'an integer' : 'a number';
    issues.add(path, `must be ${kind} ≥ ${opts.min}, got ${typeof value === 'number' ? String(value) : describeType(value)}`, 'invalid_value');
    return fallback;
  }
  return value as number;
}

/**
 * Checks a timeout in milliseconds: at least 1 and at most {@link MAX_TIMER_MS}, since a timer
 * asked to wait longer fires after 1 ms and every attempt would time out at once.
 */
export function checkTimeout(issues: IssueList, path: string, value: unknown, fallback: number): number {
  const timeout = checkNumber(issues, path, value, fallback, { min: 1 });
  if (timeout > MAX_TIMER_MS) {
    issues.add(path, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days; a timer cannot wait longer), got ${timeout}`, 'invalid_value');
    return fallback;
  }
  // Whole milliseconds: AbortSignal.timeout (token requests, registration) refuses a fraction with a
  // RangeError, and timers do not resolve below 1 ms anyway.
  return Math.ceil(timeout);
}

/** Characters a header value may carry (Latin-1 without control characters other than tab). */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Checks a base or identity URL: absolute, http(s), https unless the host is loopback; no trailing slash. */
export function checkUrl(issues: IssueList, path: string, value: unknown): string | undefined {
  const text = checkString(issues, path, value, false);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    issues.add(path, `must be an absolute URL with a scheme, e.g. https://api.example.com (got "${text}")`, 'invalid_url');
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    issues.add(path, `must use https:// (got ${url.protocol}//)`, 'invalid_url');
    return undefined;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    issues.add(path, `must use https:// — the API requires TLS; plain http:// is allowed only for loopback hosts (got ${url.host})`, 'insecure_url');
    return undefined;
  }
  if (url.username || url.password) {
    issues.add(path, 'must not contain credentials', 'invalid_url');
    return undefined;
  }
  if (url.search || url.hash) {
    issues.add(path, 'must not contain a query or a fragment', 'invalid_url');
    return undefined;
  }
  return url.href.replace(/\/+$/, '');
}

/** A short name for a value's type, for messages (never the value itself). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function isInBrowser(): boolean {
  const g = globalThis as { window?: { document?: unknown } };
  return typeof g.window !== 'undefined' && typeof g.window.document !== 'undefined';
}

/** Validates every option and fills in defaults; throws one {@link ValidationError} listing every problem. */
export function resolveOptions(input: ClientOptions): ResolvedOptions {
  const issues = new IssueList();
  if (typeof input !== 'object' || input === null) {
    issues.add('', 'options must be an object with at least clientId and clientSecret', 'invalid_type');
    issues.throwIfAny('Invalid OpenBanking options');
  }
  for (const key of Object.keys(input)) {
    if (!KNOWN_OPTIONS.has(key)) issues.add(key, 'is not an option of OpenBanking', 'unrecognized_keys');
  }
  const clientId = checkString(issues, 'clientId', input.clientId, true) ?? '';
  const clientSecret = checkString(issues, 'clientSecret', input.clientSecret, true) ?? '';

  const environment = input.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    issues.add('environment', `must be 'sandbox' or 'production'`, 'invalid_value');
  }
  let baseUrl = checkUrl(issues, 'baseUrl', input.baseUrl);
  let authUrl = checkUrl(issues, 'authUrl', input.authUrl);
  if (environment === 'production') {
    if (input.baseUrl === undefined) issues.add('baseUrl', 'is required in production (the spec does not publish the production path prefix); take it from your registration', 'missing');
    if (input.authUrl === undefined) issues.add('authUrl', 'is required in production; take it from your registration', 'missing');
  } else {
    baseUrl ??= SANDBOX_HOSTS.baseUrl;
    authUrl ??= SANDBOX_HOSTS.authUrl;
  }

  const endpoints: Endpoints = { ...DEFAULT_ENDPOINTS };
  if (input.endpoints !== undefined) {
    if (typeof input.endpoints !== 'object' || input.endpoints === null) issues.add('endpoints', 'must be an object of paths', 'invalid_type');
    else {
      for (const [name, path] of Object.entries(input.endpoints)) {
        if (!(name in DEFAULT_ENDPOINTS)) issues.add(`endpoints.${name}`, 'is not a known endpoint', 'unrecognized_keys');
        else if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) issues.add(`endpoints.${name}`, 'must be a path starting with /', 'invalid_format');
        else endpoints[name as keyof Endpoints] = path;
      }
    }
  }

  const connectionId = checkString(issues, 'connectionId', input.connectionId, false);
  const participantId = checkString(issues, 'participantId', input.participantId, false);
  // Both travel as headers: a character a header cannot carry would fail every call at send time.
  if (connectionId !== undefined && !HEADER_VALUE.test(connectionId)) issues.add('connectionId', 'must contain only characters a header can carry (Latin-1, no control characters)', 'invalid_format');
  if (participantId !== undefined && !HEADER_VALUE.test(participantId)) issues.add('participantId', 'must contain only characters a header can carry (Latin-1, no control characters)', 'invalid_format');
  const redirectUri = checkString(issues, 'redirectUri', input.redirectUri, false);
  if (redirectUri !== undefined && !URL.canParse(redirectUri)) issues.add('redirectUri', 'must be an absolute URL', 'invalid_url');

  const cipher = input.cipher ?? plaintextCipher;
  if (input.cipher !== undefined && (typeof input.cipher !== 'object' || input.cipher === null || typeof input.cipher.encrypt !== 'function' || typeof input.cipher.decrypt !== 'function')) {
    issues.add('cipher', 'must be a FieldCipher: an object with async encrypt(text) and decrypt(text)', 'invalid_type');
  }
  const signatureEncoding = input.signatureEncoding ?? 'hex';
  if (signatureEncoding !== 'hex' && signatureEncoding !== 'base64') issues.add('signatureEncoding', `must be 'hex' or 'base64'`, 'invalid_value');

  const maxRetries = checkNumber(issues, 'maxRetries', input.maxRetries, 2, { min: 0, integer: true });
  const maxRetryDelay = checkNumber(issues, 'maxRetryDelay', input.maxRetryDelay, 60_000, { min: 0 });
  const timeout = checkTimeout(issues, 'timeout', input.timeout, 30_000);
  for (const name of ['fetch', 'sleep', 'now'] as const) {
    if (input[name] !== undefined && typeof input[name] !== 'function') issues.add(name, `must be a function, got ${describeType(input[name])}`, 'invalid_type');
  }
  const store = input.tokenStore;
  if (store !== undefined && (typeof store !== 'object' || store === null || ['get', 'set', 'delete'].some((m) => typeof (store as unknown as Record<string, unknown>)[m] !== 'function'))) {
    issues.add('tokenStore', 'must have async get(key), set(key, value, ttlSeconds) and delete(key) methods', 'invalid_type');
  }
  const logger = input.logger ?? console;
  if (input.logger !== undefined && (typeof logger !== 'object' || logger === null || ['debug', 'info', 'warn', 'error'].some((m) => typeof (logger as unknown as Record<string, unknown>)[m] !== 'function'))) {
    issues.add('logger', 'must have debug, info, warn and error methods', 'invalid_type');
  }
  const logLevel = input.logLevel ?? levelFromEnvironment() ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel)) issues.add('logLevel', `must be one of ${LOG_LEVELS.map((l) => `'${l}'`).join(', ')}`, 'invalid_value');

  let rateLimit: ResolvedOptions['rateLimit'];
  if (input.rateLimit === true) {
    const published = PUBLISHED_RATE_LIMITS[environment === 'production' ? 'production' : 'sandbox'];
    rateLimit = { ...published, maxWait: 60_000 };
  } else if (typeof input.rateLimit === 'object' && input.rateLimit !== null) {
    rateLimit = {
      rate: checkNumber(issues, 'rateLimit.rate', input.rateLimit.rate, 1, { min: Number.MIN_VALUE }),
      burst: checkNumber(issues, 'rateLimit.burst', input.rateLimit.burst, 1, { min: 1, integer: true }),
      maxWait: checkNumber(issues, 'rateLimit.maxWait', input.rateLimit.maxWait, 60_000, { min: 0, allowInfinity: true }),
    };
  } else if (input.rateLimit !== undefined && input.rateLimit !== false) {
    issues.add('rateLimit', 'must be true, false or { rate, burst, maxWait? }', 'invalid_type');
  }
  for (const name of ['decryptResponses', 'dangerouslyAllowBrowser'] as const) {
    if (input[name] !== undefined && typeof input[name] !== 'boolean') issues.add(name, 'must be a boolean', 'invalid_type');
  }
  if (clientSecret && isInBrowser() && input.dangerouslyAllowBrowser !== true) {
    issues.add(
      'clientSecret',
      'must not be used in a browser, where every visitor could read it. Start consent with openbanking-ng/pkce and exchange the code on your backend; pass dangerouslyAllowBrowser: true only for trusted internal tools',
      'browser_secret',
    );
  }
  issues.throwIfAny('Invalid OpenBanking options');

  return {
    clientId,
    clientSecret,
    environment,
    baseUrl: baseUrl!,
    authUrl: authUrl!,
    endpoints,
    connectionId,
    participantId,
    redirectUri,
    cipher,
    cipherExplicit: input.cipher !== undefined,
    signatureEncoding,
    maxRetries,
    maxRetryDelay,
    timeout,
    fetch: input.fetch,
    tokenStore: input.tokenStore ?? new MemoryTokenStore(input.now ?? Date.now),
    logger: leveledLogger(logger, logLevel),
    rateLimit,
    decryptResponses: input.decryptResponses ?? true,
    sleep: input.sleep ?? defaultSleep,
    now: input.now ?? Date.now,
  };
}
