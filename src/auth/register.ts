import { toBase64 } from '../core/field-crypto.js';
import { registrationRequestSchema } from '../schemas/registration.js';
import {
  AbortError,
  ApiError,
  ConnectionError,
  OAuthError,
  type OpenBankingError,
  TimeoutError,
  ValidationError,
  isOpenBankingError,
} from '../errors/index.js';
import { checkNumber, checkTimeout, checkUrl, IssueList } from '../core/validation.js';
import { DEFAULT_ENDPOINTS, DEFAULT_MAX_RESPONSE_BYTES, SANDBOX_HOSTS } from '../core/config.js';
import { type Exchange, type HttpMethod, noAnswer, send } from '../core/http.js';
import { levelFromEnvironment, leveledLogger } from '../core/logger.js';
import { maskText } from '../core/redact.js';
import { toIssues } from '../core/validation.js';
import { identityRedirect } from './grant.js';
import { type FetchRegistrationParams, normaliseRegistration, presentString, type RegisterParams, type Registration, type RegistrationConnection } from './registration.js';

// The registration requests (`OpenBanking.register`, `OpenBanking.fetchRegistration`): loaded
// with the first of them, never with the client.

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

/** Sends one registration call through the SDK's ky instance (one attempt) and turns every failure into an SDK error. */
async function call(what: string, conn: ReturnType<typeof resolveConnection>, method: HttpMethod, headers: Record<string, string>, body?: string): Promise<Registration> {
  const ex: Exchange = {
    method,
    path: conn.url,
    signal: conn.signal,
    timeout: conn.timeout,
    maxRetries: 0,
    maxResponseBytes: conn.maxResponseBytes,
    fetch: conn.fetch,
    now: Date.now,
    // Registration is static (no client, so no logger option): OPENBANKING_LOG=debug shows it.
    logger: leveledLogger(console, levelFromEnvironment() ?? 'warn'),
    refuseRedirect: identityRedirect,
    what,
    host: 'the identity host',
  };
  let response: Response;
  let raw: string;
  try {
    ({ response, text: raw } = await send(conn.url, ex, { headers, body, throwHttpErrors: false }));
  } catch (failure) {
    throw noAnswer(failure, ex);
  }
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? undefined : JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    if (record && typeof record.error === 'string') {
      throw new OAuthError(record.error, typeof record.error_description === 'string' ? maskText(record.error_description) : undefined, { status: response.status });
    }
    if (response.status === 401) {
      // The server's text, masked like any server message before it reaches an error.
      const message = presentString(record?.message);
      throw new OAuthError('invalid_client', message === undefined ? 'the identity host refused the username or password' : maskText(message), { status: 401 });
    }
    throw ApiError.from({ status: response.status, body: parsed, rawBody: raw, headers: response.headers });
  }
  return normaliseRegistration(parsed, raw, response.status);
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
