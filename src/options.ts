import { FleetTokenStore, MemoryTokenStore, type TokenStore } from './auth/tokens.js';
import { type FieldCipher, plaintextCipher } from './core/config.js';
import { checkNumber, checkString, checkTimeout, checkUrl, describeType, HEADER_VALUE, IssueList } from './core/validation.js';
import { HEADER_NAME } from './core/validation.js';
import { DEFAULT_ENDPOINTS, DEFAULT_HEADER_NAMES, DEFAULT_MAX_RESPONSE_BYTES, type Endpoints, type Environment, type HeaderNames, type PipelineConfig, PUBLISHED_RATE_LIMITS, SANDBOX_HOSTS } from './core/config.js';
import { type LogLevel, LOG_LEVELS, type Logger, levelFromEnvironment, leveledLogger } from './core/logger.js';
import { defaultSleep, type Sleep } from './core/retry-timing.js';
import { type Scope, SCOPES } from './core/config.js';
import type { SignatureEncoding } from './core/config.js';
import { FleetLink } from './fleet/link.js';
import { EventHub } from './core/events.js';
import { rememberSecret } from './core/redact.js';
import { RateLimiter } from './core/store.js';
import { type FleetAccess, type FleetStore, localAccess, MemoryFleetStore } from './core/store.js';
import { OPERATION_SCOPES, type OperationName } from './resources/namespaces.js';

export { DEFAULT_ENDPOINTS, DEFAULT_HEADER_NAMES, type Endpoints, type Environment, type HeaderNames, type Hosts, PUBLISHED_RATE_LIMITS, type RateLimit, SANDBOX_HOSTS } from './core/config.js';

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
  /**
   * Earlier client secrets, during a rotation: values a fleet's store holds sealed under one of
   * them still open (what the SDK writes is always sealed under `clientSecret`). Drop them once
   * every process runs with the new secret.
   */
  previousClientSecrets?: string[];
  /** `'sandbox'` (default) or `'production'`. */
  environment?: Environment;
  /** API gateway including the version path, e.g. `https://api-sandbox.sparkle.fyi/openapi/v1`. Required in production. */
  baseUrl?: string;
  /** Identity host, e.g. `https://identity-sandbox.sparkle.fyi`. Required in production. */
  authUrl?: string;
  /** Paths on the identity host (and the unofficial `transfer` path on the gateway), each overridable. */
  endpoints?: Partial<Endpoints>;
  /**
   * The scopes a typed operation asks for, by method name, replacing its default (see
   * {@link OPERATION_SCOPES}); `[]` asks for no scope. For a provider that wants another scope
   * than the one this SDK infers, without waiting for a release:
   * `operationScopes: { 'accounts.create': [] }`.
   */
  operationScopes?: Partial<Record<OperationName, readonly Scope[]>>;
  /** Default `connection-id` header (the target bank). */
  connectionId?: string;
  /** Sent as `X-Participant-ID` on API calls when set. */
  participantId?: string;
  /**
   * The names of the idempotency and connection headers, for a provider that spells them as the
   * guides do: `headerNames: { idempotencyKey: 'idempotency_key', connectionId: 'connection_id' }`.
   * Default {@link DEFAULT_HEADER_NAMES} (`idempotency-key`, `connection-id`, as the API reference).
   */
  headerNames?: Partial<HeaderNames>;
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
  /**
   * Longest wait before a retry (ms), the backoff and a `Retry-After` alike. Default: no cap beyond
   * the backoff's 8 s and `maxRetryDelay`. `0` retries at once: for tests (or use fake timers).
   */
  retryDelay?: number;
  /** Per-attempt timeout (ms; a fraction is rounded up to the next whole millisecond). Default 30 000. */
  timeout?: number;
  /**
   * Largest response body the SDK reads, in bytes (API calls, token and registration answers).
   * A larger body stops being read and rejects with `ResponseTooLargeError`. Default 10 MiB.
   */
  maxResponseBytes?: number;
  /** A custom fetch (e.g. the local sandbox's handler). Read per request; default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Where client-credentials tokens are cached. Default: in memory, per client. Not with `fleet`, which shares tokens itself. */
  tokenStore?: TokenStore;
  /**
   * Makes the processes of a fleet act as one client through shared state: one client-credentials
   * request per scope set, one rate budget (with `rateLimit`), one refresh per customer `id`,
   * ciphertexts kept under the idempotency key for retries from another process. Give
   * `redisFleet(redis, { prefix })` from `openbanking-ng/redis`, or any {@link FleetStore}.
   * See `docs/scaling.md`.
   */
  fleet?: FleetStore;
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
  /**
   * The SDK's own waits: the rate limiter, device-code polling and `waitForCompletion` (retry waits
   * are ky's timer: see `retryDelay`). Replace it in tests so they never wait. Default: a timer.
   */
  sleep?: Sleep;
  /** Clock in milliseconds: token expiry, the device-code deadline and the rate limiter follow it (a `Retry-After` date is read against the system clock, as ky waits it). Replace it in tests to share a fake clock with the local sandbox. Default `Date.now`. */
  now?: () => number;
}

/** Options after validation and defaults. */
export interface ResolvedOptions extends PipelineConfig {
  clientId: string;
  authUrl: string;
  endpoints: Endpoints;
  redirectUri: string | undefined;
  tokenStore: TokenStore;
  /** Where the client coordinates: the `fleet` option's store behind its link, else the client's own memory. */
  store: FleetAccess;
  /** How long a fleet lock lives: the per-attempt timeout and a second, so a holder that died frees it soon. */
  fleetLockTtl: number;
  /** Scope overrides by operation name. */
  operationScopes: Readonly<Record<string, readonly Scope[]>>;
}

const KNOWN_OPTIONS = new Set<string>([
  'clientId', 'clientSecret', 'environment', 'baseUrl', 'authUrl', 'endpoints', 'connectionId', 'participantId',
  'redirectUri', 'cipher', 'signatureEncoding', 'maxRetries', 'maxRetryDelay', 'retryDelay', 'timeout', 'fetch', 'tokenStore',
  'logger', 'logLevel', 'rateLimit', 'decryptResponses', 'dangerouslyAllowBrowser', 'sleep', 'now', 'operationScopes',
  'maxResponseBytes', 'fleet', 'headerNames', 'previousClientSecrets',
]);

/** Headers the SDK sets under fixed names: a renamed header may not take one of them. */
const FIXED_HEADERS = new Set(['authorization', 'signature', 'content-type', 'accept', 'x-participant-id']);

const FLEET_METHODS = ['get', 'set', 'compareAndSet', 'compareAndDelete', 'lock', 'unlock', 'take'] as const;


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
  rememberSecret(clientSecret); // masked wherever a text quotes it
  const previousClientSecrets = checkPreviousSecrets(issues, input.previousClientSecrets);

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

  const operationScopes = checkOperationScopes(issues, input.operationScopes);
  const connectionId = checkString(issues, 'connectionId', input.connectionId, false);
  const participantId = checkString(issues, 'participantId', input.participantId, false);
  // Both travel as headers: a character a header cannot carry would fail every call at send time.
  if (connectionId !== undefined && !HEADER_VALUE.test(connectionId)) issues.add('connectionId', 'must contain only characters a header can carry (Latin-1, no control characters)', 'invalid_format');
  if (participantId !== undefined && !HEADER_VALUE.test(participantId)) issues.add('participantId', 'must contain only characters a header can carry (Latin-1, no control characters)', 'invalid_format');
  const headerNames = checkHeaderNames(issues, input.headerNames);
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
  const retryDelay = input.retryDelay === undefined ? undefined : checkNumber(issues, 'retryDelay', input.retryDelay, 0, { min: 0 });
  const timeout = checkTimeout(issues, 'timeout', input.timeout, 30_000);
  const maxResponseBytes = checkNumber(issues, 'maxResponseBytes', input.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, { min: 1, integer: true });
  for (const name of ['fetch', 'sleep', 'now'] as const) {
    if (input[name] !== undefined && typeof input[name] !== 'function') issues.add(name, `must be a function, got ${describeType(input[name])}`, 'invalid_type');
  }
  const store = input.tokenStore;
  if (store !== undefined && (typeof store !== 'object' || store === null || ['get', 'set', 'delete'].some((m) => typeof (store as unknown as Record<string, unknown>)[m] !== 'function'))) {
    issues.add('tokenStore', 'must have async get(key), set(key, value, ttlSeconds) and delete(key) methods', 'invalid_type');
  }
  const fleet = input.fleet;
  if (fleet !== undefined) {
    if (typeof fleet !== 'object' || fleet === null || FLEET_METHODS.some((m) => typeof (fleet as unknown as Record<string, unknown>)[m] !== 'function')) {
      issues.add('fleet', `must be a FleetStore (methods ${FLEET_METHODS.join(', ')}), e.g. redisFleet(redis, { prefix }) from openbanking-ng/redis`, 'invalid_type');
    }
    if (store !== undefined) issues.add('fleet', 'cannot be combined with tokenStore: the fleet shares client-credentials tokens itself; drop tokenStore', 'conflict');
  }
  const logger = input.logger ?? console;
  const loggerOk = typeof logger === 'object' && logger !== null && ['debug', 'info', 'warn', 'error'].every((m) => typeof (logger as unknown as Record<string, unknown>)[m] === 'function');
  if (!loggerOk) issues.add('logger', 'must have debug, info, warn and error methods', 'invalid_type');
  const logLevel = input.logLevel ?? levelFromEnvironment(loggerOk ? logger : undefined) ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel)) issues.add('logLevel', `must be one of ${LOG_LEVELS.map((l) => `'${l}'`).join(', ')}`, 'invalid_value');

  let rateLimit: { rate: number; burst: number; maxWait: number } | undefined;
  if (input.rateLimit === true) {
    const published = PUBLISHED_RATE_LIMITS[environment === 'production' ? 'production' : 'sandbox'];
    rateLimit = { ...published, maxWait: 60_000 };
  } else if (typeof input.rateLimit === 'object' && input.rateLimit !== null) {
    // Both numbers are the caller's: a silent default (1 per minute) would hold every call after the first.
    for (const name of ['rate', 'burst'] as const) {
      if (input.rateLimit[name] === undefined) issues.add(`rateLimit.${name}`, `is required with { rate, burst, maxWait? } (or pass rateLimit: true for the published limits)`, 'missing');
    }
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

  const log = leveledLogger(logger, logLevel);
  const now = input.now ?? Date.now;
  const sleep = input.sleep ?? defaultSleep;
  // One store for everything the client coordinates: the fleet's, else its own memory.
  const own = new MemoryFleetStore(now);
  const link = fleet === undefined ? undefined : new FleetLink(fleet, { clientId, clientSecret, previousClientSecrets, log });
  const shared = link ?? localAccess(clientId, own);
  return {
    clientId,
    clientSecret,
    environment,
    baseUrl: baseUrl!,
    authUrl: authUrl!,
    endpoints,
    connectionId,
    participantId,
    headerNames,
    redirectUri,
    cipher,
    cipherExplicit: input.cipher !== undefined,
    signatureEncoding,
    maxRetries,
    maxRetryDelay,
    retryDelay,
    timeout,
    maxResponseBytes,
    fetch: input.fetch,
    tokenStore: input.tokenStore ?? (link ? new FleetTokenStore(link, now) : new MemoryTokenStore(now, own)),
    fleet: link,
    store: shared,
    fleetLockTtl: timeout + 1_000,
    operationScopes,
    logger: log,
    limiter: rateLimit && new RateLimiter(rateLimit.rate, rateLimit.burst, rateLimit.maxWait, now, sleep, { store: shared, key: shared.key('rate'), shared: shared.shared }),
    decryptResponses: input.decryptResponses ?? true,
    sleep,
    now,
    events: new EventHub(log),
  };
}

/** Checks `previousClientSecrets`: an array of non-empty strings, each masked wherever a text quotes it. */
function checkPreviousSecrets(issues: IssueList, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((secret) => typeof secret !== 'string' || secret === '')) {
    issues.add('previousClientSecrets', 'must be an array of the earlier client secrets (non-empty strings)', 'invalid_type');
    return [];
  }
  for (const secret of value) rememberSecret(secret);
  return [...(value as string[])];
}

/** Checks `operationScopes`: known operation names, arrays of the spec's scopes. */
function checkOperationScopes(issues: IssueList, value: unknown): Record<string, readonly Scope[]> {
  const out: Record<string, readonly Scope[]> = {};
  if (value === undefined) return out;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.add('operationScopes', "must be an object such as { 'accounts.create': [] }", 'invalid_type');
    return out;
  }
  for (const [name, scopes] of Object.entries(value)) {
    if (!Object.hasOwn(OPERATION_SCOPES, name)) issues.add(`operationScopes.${name}`, 'is not a typed operation (see OPERATION_SCOPES for the names)', 'unrecognized_keys');
    else if (!Array.isArray(scopes)) issues.add(`operationScopes.${name}`, 'must be an array of scopes ([] for none)', 'invalid_type');
    else {
      const unknown = scopes.filter((s) => !(SCOPES as readonly unknown[]).includes(s));
      if (unknown.length > 0) issues.add(`operationScopes.${name}`, `has names that are not scopes of the spec: ${unknown.map((s) => JSON.stringify(String(s))).join(', ')}`, 'invalid_value');
      else out[name] = Object.freeze([...(scopes as Scope[])]);
    }
  }
  return out;
}

/** Checks `headerNames`: known keys, header names (lower-cased), none the SDK already sends, the two apart. */
function checkHeaderNames(issues: IssueList, value: unknown): Readonly<HeaderNames> {
  if (value === undefined) return DEFAULT_HEADER_NAMES;
  const out: HeaderNames = { ...DEFAULT_HEADER_NAMES };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.add('headerNames', "must be an object such as { idempotencyKey: 'idempotency_key' }", 'invalid_type');
    return out;
  }
  for (const [key, name] of Object.entries(value)) {
    if (!Object.hasOwn(DEFAULT_HEADER_NAMES, key)) issues.add(`headerNames.${key}`, 'is not a renamable header (idempotencyKey, connectionId)', 'unrecognized_keys');
    else if (typeof name !== 'string' || !HEADER_NAME.test(name)) issues.add(`headerNames.${key}`, 'must be a header name (letters, digits and !#$%&\'*+-.^_`|~)', 'invalid_format');
    else if (FIXED_HEADERS.has(name.toLowerCase())) issues.add(`headerNames.${key}`, 'names a header the SDK already sends', 'invalid_value');
    else out[key as keyof HeaderNames] = name.toLowerCase();
  }
  if (out.idempotencyKey === out.connectionId) issues.add('headerNames.connectionId', 'must differ from the idempotency header', 'invalid_value');
  return Object.freeze(out);
}
