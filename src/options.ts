import { FleetTokenStore, MemoryTokenStore, type TokenStore } from './auth/client-credentials.js';
import { type FieldCipher, plaintextCipher } from './crypto/ciphers.js';
import * as z from 'zod/mini';
import { functionOption, HEADER_NAME, headerText, isRecord, methodsOption, optionText, parse, pathOption, quoted, rule, urlOption, wholeTimeoutMs } from './core/validation.js';
import { ValidationError, type ValidationIssue } from './errors/base.js';
import { DEFAULT_ENDPOINTS, DEFAULT_HEADER_NAMES, DEFAULT_MAX_RESPONSE_BYTES, type Endpoints, type Environment, type HeaderNames, type PipelineConfig, PUBLISHED_RATE_LIMITS, SANDBOX_HOSTS } from './core/config.js';
import { type LogLevel, LOG_LEVELS, type Logger, levelFromEnvironment, leveledLogger } from './core/logger.js';
import { defaultSleep, type Sleep } from './core/retry-timing.js';
import { type Scope, SCOPES } from './core/scopes.js';
import type { SignatureEncoding } from './crypto/bytes.js';
import { FleetLink } from './fleet/link.js';
import { EventHub } from './core/events.js';
import { clientMemory } from './errors/secret-memory.js';
import { RateLimiter } from './core/rate-limiter.js';
import { type FleetAccess, type FleetStore, localAccess, MemoryFleetStore } from './core/store.js';
import { OPERATION_SCOPES, type OperationName } from './resources/namespaces.js';
import { once } from './core/validation.js';

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

/** Headers the SDK sets under fixed names: a renamed header may not take one of them. */
const FIXED_HEADERS = new Set(['authorization', 'signature', 'content-type', 'accept', 'x-participant-id']);

const FLEET_METHODS = ['get', 'set', 'compareAndSet', 'compareAndDelete', 'lock', 'unlock', 'take'] as const;

const headerName = once(() => z.string().check(
  z.regex(HEADER_NAME, { error: "must be a header name (letters, digits and !#$%&'*+-.^_`|~)" }),
  rule((name: string) => !FIXED_HEADERS.has(name.toLowerCase()), 'names a header the SDK already sends', 'invalid_value'),
));

const scopeList = once(() => z
  .custom<readonly Scope[]>(Array.isArray, { error: 'must be an array of scopes ([] for none)', params: { code: 'invalid_type' } })
  .check(
    rule(
      (list: readonly unknown[]) => list.every((s) => (SCOPES as readonly unknown[]).includes(s)),
      (issue) => `has names that are not scopes of the spec: ${issue.input.filter((s) => !(SCOPES as readonly unknown[]).includes(s)).map(quoted).join(', ')}`,
      'invalid_value',
    ),
  ));

/** Every option of {@link OpenBanking}, each checked alone (built by the first client); the rules between options follow in {@link resolveOptions}. */
const clientOptions = once(() => z.strictObject({
  clientId: optionText(),
  clientSecret: optionText(),
  previousClientSecrets: z.optional(z.array(z.string().check(z.minLength(1)))),
  environment: z.optional(z.enum(['sandbox', 'production'])),
  baseUrl: z.optional(urlOption()),
  authUrl: z.optional(urlOption()),
  endpoints: z.optional(z.strictObject(Object.fromEntries(Object.keys(DEFAULT_ENDPOINTS).map((name) => [name, z.optional(pathOption())])) as Record<keyof Endpoints, z.ZodMiniOptional<ReturnType<typeof pathOption>>>)),
  operationScopes: z.optional(z.record(z.string().check(rule((name: string) => Object.hasOwn(OPERATION_SCOPES, name), 'is not a typed operation (see OPERATION_SCOPES for the names)', 'unrecognized_keys')), scopeList())),
  connectionId: z.optional(headerText()),
  participantId: z.optional(headerText()),
  headerNames: z.optional(z.strictObject({ idempotencyKey: z.optional(headerName()), connectionId: z.optional(headerName()) })),
  redirectUri: z.optional(optionText().check(rule((uri: string) => URL.canParse(uri), 'must be an absolute URL', 'invalid_url'))),
  cipher: z.optional(methodsOption<FieldCipher>(['encrypt', 'decrypt'], 'must be a FieldCipher: an object with async encrypt(text) and decrypt(text)')),
  signatureEncoding: z.optional(z.enum(['hex', 'base64'])),
  maxRetries: z.optional(z.int().check(z.gte(0))),
  maxRetryDelay: z.optional(z.number().check(z.gte(0))),
  retryDelay: z.optional(z.number().check(z.gte(0))),
  timeout: z.optional(wholeTimeoutMs()),
  maxResponseBytes: z.optional(z.int().check(z.gte(1))),
  fetch: z.optional(functionOption<typeof fetch>()),
  tokenStore: z.optional(methodsOption<TokenStore>(['get', 'set', 'delete'], 'must have async get(key), set(key, value, ttlSeconds) and delete(key) methods')),
  fleet: z.optional(methodsOption<FleetStore>(FLEET_METHODS, `must be a FleetStore (methods ${FLEET_METHODS.join(', ')}), e.g. redisFleet(redis, { prefix }) from openbanking-ng/redis`)),
  logger: z.optional(methodsOption<Logger>(['debug', 'info', 'warn', 'error'], 'must have debug, info, warn and error methods')),
  logLevel: z.optional(z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]])),
  // Both numbers of a limit are the caller's: a silent default (1 per minute) would hold every call after the first.
  rateLimit: z.optional(z.union([z.boolean(), z.object({ rate: z.number().check(z.gt(0)), burst: z.int().check(z.gte(1)), maxWait: z.optional(z.union([z.number().check(z.gte(0)), z.literal(Infinity)])) })])),
  decryptResponses: z.optional(z.boolean()),
  dangerouslyAllowBrowser: z.optional(z.boolean()),
  sleep: z.optional(functionOption<Sleep>()),
  now: z.optional(functionOption<() => number>()),
}));

function isInBrowser(): boolean {
  const g = globalThis as { window?: { document?: unknown } };
  return typeof g.window !== 'undefined' && typeof g.window.document !== 'undefined';
}

/** The rules between options, on what the caller gave. */
function crossIssues(input: Partial<Record<keyof ClientOptions, unknown>>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (input.environment === 'production') {
    if (input.baseUrl === undefined) issues.push({ path: 'baseUrl', message: 'is required in production (the spec does not publish the production path prefix); take it from your registration', code: 'missing' });
    if (input.authUrl === undefined) issues.push({ path: 'authUrl', message: 'is required in production; take it from your registration', code: 'missing' });
  }
  const names = isRecord(input.headerNames) ? input.headerNames : {};
  const header = (name: keyof HeaderNames) => (typeof names[name] === 'string' ? names[name] : DEFAULT_HEADER_NAMES[name]).toLowerCase();
  if (header('idempotencyKey') === header('connectionId')) issues.push({ path: 'headerNames.connectionId', message: 'must differ from the idempotency header', code: 'invalid_value' });
  if (input.fleet !== undefined && input.tokenStore !== undefined) issues.push({ path: 'fleet', message: 'cannot be combined with tokenStore: the fleet shares client-credentials tokens itself; drop tokenStore', code: 'conflict' });
  if (typeof input.clientSecret === 'string' && input.clientSecret.trim() !== '' && isInBrowser() && input.dangerouslyAllowBrowser !== true) {
    issues.push({
      path: 'clientSecret',
      message: 'must not be used in a browser, where every visitor could read it. Start consent with openbanking-ng/pkce and exchange the code on your backend; pass dangerouslyAllowBrowser: true only for trusted internal tools',
      code: 'browser_secret',
    });
  }
  return issues;
}

/** Validates every option and fills in defaults; throws one {@link ValidationError} listing every problem. */
export function resolveOptions(input: ClientOptions): ResolvedOptions {
  // The client's own memory of what to mask: its secret first, so that even a refusal of the options masks it.
  const secrets = clientMemory();
  if (typeof input?.clientSecret === 'string' && input.clientSecret.trim() !== '') secrets.remember('secret', input.clientSecret);
  const { data: given, issues } = parse(clientOptions(), input);
  const all = isRecord(input) ? [...issues, ...crossIssues(input)] : issues;
  if (all.length > 0 || given === undefined) throw new ValidationError('Invalid OpenBanking options', all);

  const { clientId, clientSecret } = given;
  const previousClientSecrets = given.previousClientSecrets ?? [];
  for (const secret of previousClientSecrets) secrets.remember('secret', secret);
  const environment = given.environment ?? 'sandbox';
  const baseUrl = given.baseUrl ?? SANDBOX_HOSTS.baseUrl;
  const authUrl = given.authUrl ?? SANDBOX_HOSTS.authUrl;
  const endpoints: Endpoints = { ...DEFAULT_ENDPOINTS, ...given.endpoints };
  const operationScopes: Record<string, readonly Scope[]> = {};
  for (const [name, scopes] of Object.entries(given.operationScopes ?? {})) operationScopes[name] = Object.freeze([...scopes]);
  const headerNames: Readonly<HeaderNames> = Object.freeze({
    idempotencyKey: (given.headerNames?.idempotencyKey ?? DEFAULT_HEADER_NAMES.idempotencyKey).toLowerCase(),
    connectionId: (given.headerNames?.connectionId ?? DEFAULT_HEADER_NAMES.connectionId).toLowerCase(),
  });
  const timeout = given.timeout ?? 30_000;
  const fleet = given.fleet;
  const logger = given.logger ?? console;
  const logLevel = given.logLevel ?? levelFromEnvironment(logger) ?? 'warn';
  const rate = given.rateLimit;
  const rateLimit = rate === true ? { ...PUBLISHED_RATE_LIMITS[environment], maxWait: 60_000 } : rate === false || rate === undefined ? undefined : { ...rate, maxWait: rate.maxWait ?? 60_000 };

  const log = leveledLogger(logger, logLevel);
  const now = given.now ?? Date.now;
  const sleep = given.sleep ?? defaultSleep;
  // One store for everything the client coordinates: the fleet's, else its own memory.
  const own = new MemoryFleetStore(now);
  const link = fleet === undefined ? undefined : new FleetLink(fleet, { clientId, clientSecret, previousClientSecrets, log });
  const shared = link ?? localAccess(clientId, own);
  return {
    clientId,
    clientSecret,
    environment,
    baseUrl,
    authUrl,
    endpoints,
    connectionId: given.connectionId,
    participantId: given.participantId,
    headerNames,
    redirectUri: given.redirectUri,
    cipher: given.cipher ?? plaintextCipher,
    cipherExplicit: given.cipher !== undefined,
    signatureEncoding: given.signatureEncoding ?? 'hex',
    maxRetries: given.maxRetries ?? 2,
    maxRetryDelay: given.maxRetryDelay ?? 60_000,
    retryDelay: given.retryDelay,
    timeout,
    maxResponseBytes: given.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    fetch: given.fetch,
    tokenStore: given.tokenStore ?? (link ? new FleetTokenStore(link, now) : new MemoryTokenStore(now, own)),
    fleet: link,
    store: shared,
    fleetLockTtl: timeout + 1_000,
    operationScopes,
    logger: log,
    limiter: rateLimit && new RateLimiter(rateLimit.rate, rateLimit.burst, rateLimit.maxWait, now, sleep, { store: shared, key: shared.key('rate'), shared: shared.shared }),
    decryptResponses: given.decryptResponses ?? true,
    sleep,
    now,
    events: new EventHub(log),
    secrets,
  };
}
