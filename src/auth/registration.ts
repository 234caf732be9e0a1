import type * as z from 'zod/mini';
import { toBase64 } from '../core/signature.js';
import type { registrationRequestSchema } from './registration-schema.js';
import {
  AbortError,
  ApiError,
  ConnectionError,
  OAuthError,
  type OpenBankingError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
  type ValidationIssue,
  isOpenBankingError,
} from '../errors.js';
import { checkNumber, checkTimeout, checkUrl, IssueList } from '../core/checks.js';
import { DEFAULT_ENDPOINTS, type Endpoints, type Environment, SANDBOX_HOSTS } from '../core/config.js';
import { AttemptTimeout, DEFAULT_MAX_RESPONSE_BYTES, describeNetworkFailure, type HttpMethod, isRedirect, redirectMessage, sendOnce } from '../core/http.js';
import { levelFromEnvironment, leveledLogger } from '../core/logger.js';
import { redactHeaders, redactText } from '../core/redact.js';
import { toIssues } from '../core/zod-issues.js';

/**
 * The spec's nine registration fields (`POST {auth_url}/dcr`). `username`, `password`,
 * `app_name` and `redirect_url` are required; the others are optional.
 * @group Registration
 */
export interface RegistrationFields extends z.input<typeof registrationRequestSchema> {}

/** Where and how the registration calls reach the identity host. @group Registration */
export interface RegistrationConnection {
  /** Identity host. Default: the provider's sandbox identity host; required in production. */
  authUrl?: string;
  /** `'sandbox'` (default) or `'production'`; decides the default `authUrl`. */
  environment?: Environment;
  /** Path of the registration endpoint (`endpoints.registration`). Default `/dcr`. */
  endpoints?: Partial<Pick<Endpoints, 'registration'>>;
  /** A custom fetch (e.g. the local sandbox's handler). Default `globalThis.fetch`, read per call. */
  fetch?: typeof fetch;
  /** Timeout in ms. Default 30 000. */
  timeout?: number;
  /** Largest answer read, in bytes; a larger one rejects with `ResponseTooLargeError`. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Aborts the call; it then rejects with `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Parameters of `OpenBanking.register`: the registration fields plus where to send them.
 * @group Registration
 */
export interface RegisterParams extends RegistrationFields, RegistrationConnection {}

/**
 * Parameters of fetching a registration's credentials (`GET {auth_url}/dcr` with HTTP Basic).
 * @group Registration
 */
export interface FetchRegistrationParams extends RegistrationConnection {
  /** The registration's username. */
  username: string;
  /** The registration's password. */
  password: string;
}

/**
 * What a registration returns, normalised from the service's
 * `{ status, client_credentials: {...} }`. While `PENDING_APPROVAL` (production) the
 * credentials are null: fetch them once approved.
 * @group Registration
 */
export interface Registration {
  /** `'APPROVED'` (sandbox, at once) or `'PENDING_APPROVAL'` (production, until the provider approves). */
  status: 'APPROVED' | 'PENDING_APPROVAL' | (string & {});
  /** The client id; null while pending. */
  client_id: string | null;
  /** The client secret; null while pending. Keep it on the server. */
  client_secret: string | null;
  /** The registered redirect URIs. */
  redirect_urls: string[];
  /** The application's name as registered. */
  client_name?: string;
  /** The value for the `X-Participant-ID` header; null while pending. */
  participant_id?: string | null;
  /** The value for the `connection-id` header; null while pending. */
  connection_id?: string | null;
  /** The identity host to use (the client's `authUrl`). */
  auth_base_url?: string;
  /** The API base URL to use (the client's `baseUrl`); the service's `base_url` is read as this too. */
  api_base_url?: string;
}

const CONNECTION_KEYS = new Set(['authUrl', 'environment', 'endpoints', 'fetch', 'timeout', 'signal', 'maxResponseBytes']);

/** Checks the connection options; returns the endpoint URL and the fetch settings. */
function resolveConnection(params: RegistrationConnection, issues: IssueList): { url: string; fetch: typeof fetch | undefined; timeout: number; signal: AbortSignal | undefined; maxResponseBytes: number } {
  const environment = params.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') issues.add('environment', "must be 'sandbox' or 'production'", 'invalid_value');
  let authUrl = checkUrl(issues, 'authUrl', params.authUrl);
  if (params.authUrl === undefined) {
    if (environment === 'production') issues.add('authUrl', 'is required in production', 'missing');
    else authUrl = SANDBOX_HOSTS.authUrl;
  }
  const path = params.endpoints?.registration ?? DEFAULT_ENDPOINTS.registration;
  if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) issues.add('endpoints.registration', 'must be a path starting with /', 'invalid_format');
  if (params.fetch !== undefined && typeof params.fetch !== 'function') issues.add('fetch', 'must be a function', 'invalid_type');
  if (params.signal !== undefined && !(params.signal instanceof AbortSignal)) issues.add('signal', 'must be an AbortSignal', 'invalid_type');
  const timeout = checkTimeout(issues, 'timeout', params.timeout, 30_000);
  const maxResponseBytes = checkNumber(issues, 'maxResponseBytes', params.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, { min: 1, integer: true });
  return { url: `${authUrl ?? ''}${path}`, fetch: params.fetch, timeout, signal: params.signal, maxResponseBytes };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const presentString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Flattens a registration answer — `{ status, client_credentials: { client_id, client_secret,
 * client_name, redirect_url, participant_id, connection_id, base_url | auth_base_url,
 * api_base_url } }`, or the same members without the wrapper (the `GET /dcr` answer is not
 * published) — into {@link Registration}. `redirect_url` becomes `redirect_urls`; `base_url` is
 * read as the API gateway when `api_base_url` is absent; null credentials of a pending
 * registration stay null, other absent members are left out. Throws `ResponseValidationError`
 * (its raw body redacted) when the answer has no `status`, or is approved without credentials.
 * @group Registration
 */
export function normaliseRegistration(body: unknown, rawBody = '', httpStatus = 200): Registration {
  const issues: ValidationIssue[] = [];
  const top = isRecord(body) ? body : {};
  const inner = isRecord(top.client_credentials) ? top.client_credentials : top;
  const status = top.status;
  if (!isRecord(body)) issues.push({ path: '', message: 'the answer is not a JSON object', code: 'invalid_type' });
  else if (typeof status !== 'string' || status === '') issues.push({ path: 'status', message: 'is missing', code: 'missing' });
  const clientId = presentString(inner.client_id) ?? null;
  const clientSecret = presentString(inner.client_secret) ?? null;
  if (status === 'APPROVED') {
    if (clientId === null) issues.push({ path: 'client_credentials.client_id', message: 'is missing on an approved registration', code: 'missing' });
    if (clientSecret === null) issues.push({ path: 'client_credentials.client_secret', message: 'is missing on an approved registration', code: 'missing' });
  }
  if (issues.length > 0) throw new ResponseValidationError({ status: httpStatus, issues, rawBody });

  const redirects = new Set<string>();
  if (Array.isArray(inner.redirect_urls)) for (const url of inner.redirect_urls) if (typeof url === 'string' && url !== '') redirects.add(url);
  const single = presentString(inner.redirect_url);
  if (single) redirects.add(single);

  const out: Registration = { status: status as string, client_id: clientId, client_secret: clientSecret, redirect_urls: [...redirects] };
  const copy = (from: string, to: keyof Registration = from as keyof Registration) => {
    const value = presentString(inner[from]);
    if (value !== undefined && out[to] === undefined) (out as unknown as Record<string, unknown>)[to] = value;
  };
  copy('client_name');
  copy('participant_id');
  copy('connection_id');
  // A pending registration's ids are null on the wire: keep them null rather than absent.
  if (out.participant_id === undefined && inner.participant_id === null) out.participant_id = null;
  if (out.connection_id === undefined && inner.connection_id === null) out.connection_id = null;
  copy('auth_base_url');
  copy('api_base_url');
  copy('base_url', 'api_base_url');
  return out;
}

/** Sends one registration call through the SDK's one send path and turns every failure into an SDK error. */
async function call(what: string, conn: ReturnType<typeof resolveConnection>, method: HttpMethod, headers: Record<string, string>, body?: string): Promise<Registration> {
  let response: Response;
  let raw: string;
  try {
    ({ response, text: raw } = await sendOnce({ method, url: conn.url, headers, body, signal: conn.signal, timeout: conn.timeout, fetch: conn.fetch, maxResponseBytes: conn.maxResponseBytes }));
  } catch (failure) {
    throw networkError(what, failure, conn.signal);
  } finally {
    // Registration is static (no client, so no logger option): OPENBANKING_LOG=debug shows it.
    const log = leveledLogger(console, levelFromEnvironment() ?? 'warn');
    if (log.enabled('debug')) log.debug(`openbanking-ng ${method} ${conn.url} (${what})`, { method, url: conn.url, headers: redactHeaders(headers) });
  }
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? undefined : JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (isRedirect(response)) {
    throw new OAuthError('unexpected_redirect', redirectMessage(response, 'The identity host'), { ...(response.status ? { status: response.status } : {}) });
  }
  if (!response.ok) {
    const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    if (record && typeof record.error === 'string') {
      throw new OAuthError(record.error, typeof record.error_description === 'string' ? redactText(record.error_description) : undefined, { status: response.status });
    }
    if (response.status === 401) {
      throw new OAuthError('invalid_client', presentString(record?.message) ?? 'the identity host refused the username or password', { status: 401 });
    }
    throw ApiError.from({ status: response.status, body: parsed, rawBody: raw, headers: response.headers });
  }
  return normaliseRegistration(parsed, raw, response.status);
}

function networkError(what: string, failure: unknown, caller: AbortSignal | undefined): OpenBankingError {
  if (isOpenBankingError(failure)) return failure;
  if (caller?.aborted) return new AbortError(`${what}: aborted`);
  if (failure instanceof AttemptTimeout) return new TimeoutError(`${what}: the identity host did not answer in time`);
  return new ConnectionError(`${what}: could not reach the identity host (${describeNetworkFailure(failure)})`);
}

/**
 * Registers an application (`POST {auth_url}/dcr`, JSON). Approved at once in the sandbox
 * environment; `PENDING_APPROVAL` with null credentials in production, which is a result, not
 * an error. Rejects with `ValidationError` (nothing sent) for bad parameters, `OAuthError` for
 * an OAuth-style refusal, `ApiError` for other non-2xx answers, `ConnectionError` /
 * `TimeoutError` / `AbortError` when no answer arrives.
 */
export async function register(params: RegisterParams): Promise<Registration> {
  const issues = new IssueList();
  if (typeof params !== 'object' || params === null) throw new ValidationError('Invalid registration', [{ path: '', message: 'must be an object', code: 'invalid_type' }]);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (!CONNECTION_KEYS.has(key)) fields[key] = value;
  const conn = resolveConnection(params, issues);
  const { registrationRequestSchema } = await import('./registration-schema.js'); // zod loads with the first registration, not with the package
  const parsed = registrationRequestSchema.safeParse(fields);
  if (!parsed.success) issues.issues.push(...toIssues(parsed.error, fields));
  issues.throwIfAny('Invalid registration');
  return call('registration', conn, 'POST', { 'content-type': 'application/json', accept: 'application/json' }, JSON.stringify(parsed.data));
}

/**
 * Fetches a registration's status and credentials (`GET {auth_url}/dcr` with HTTP Basic
 * `username:password`): how production credentials are collected once approved.
 */
export async function fetchRegistration(params: FetchRegistrationParams): Promise<Registration> {
  const issues = new IssueList();
  if (typeof params !== 'object' || params === null) throw new ValidationError('Invalid parameters', [{ path: '', message: 'must be an object', code: 'invalid_type' }]);
  const conn = resolveConnection(params, issues);
  for (const key of ['username', 'password'] as const) {
    if (typeof params[key] !== 'string' || params[key] === '') issues.add(key, 'is required', 'missing');
  }
  if (typeof params.username === 'string' && params.username.includes(':')) issues.add('username', 'must not contain a colon (HTTP Basic)', 'invalid_format');
  issues.throwIfAny('Invalid parameters');
  const basic = toBase64(new TextEncoder().encode(`${params.username}:${params.password}`));
  return call('fetching the registration', conn, 'GET', { authorization: `Basic ${basic}`, accept: 'application/json' });
}
