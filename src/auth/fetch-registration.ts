import { toBase64 } from '../core/signature.js';
import { AbortError, ConnectionError, OAuthError, ResponseValidationError, TimeoutError, ValidationError, type ValidationIssue } from '../errors.js';
import { DEFAULT_ENDPOINTS } from '../options.js';
import { checkAuthUrl, checkPath, checkString } from './authorization.js';

/**
 * An application's registration, flattened from the service's
 * `{ status, client_credentials: { ... } }`. While production approval is pending, `status` is
 * `'PENDING_APPROVAL'` and `client_id` / `client_secret` are null.
 * @group OAuth
 */
export interface RegistrationCredentials {
  /** `'APPROVED'` (sandbox: at once) or `'PENDING_APPROVAL'` (production, until approved). */
  status: 'APPROVED' | 'PENDING_APPROVAL' | (string & {});
  /** The client id, or null while pending. */
  client_id: string | null;
  /** The client secret, or null while pending. Server side only. */
  client_secret: string | null;
  /** The registered redirect URIs. */
  redirect_urls: string[];
  /** The registered application name, when the service returns it. */
  client_name?: string;
  /** Participant id (for `X-Participant-ID`), once approved. */
  participant_id?: string;
  /** Value for the `connection-id` header, once approved. */
  connection_id?: string;
  /** Identity host to use as `authUrl`, when the service returns it. */
  auth_base_url?: string;
  /** API gateway to use as `baseUrl`, when the service returns it (`base_url` on some answers). */
  api_base_url?: string;
}

/**
 * Input of `OpenBanking.fetchRegistration`.
 * @group OAuth
 */
export interface FetchRegistrationParams {
  /** Identity host, e.g. `https://identity.sparkle.ng`. */
  authUrl: string;
  /** The `username` given at registration. */
  username: string;
  /** The `password` given at registration. */
  password: string;
  /** A custom fetch (e.g. the local sandbox's). Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Aborts the request; rejects with `AbortError`. */
  signal?: AbortSignal;
  /** Timeout in ms. Default 30 000. */
  timeout?: number;
  /** Path of the registration endpoint. Default `/dcr`. */
  path?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const optionalString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Flattens a registration answer — `{ status, client_credentials: { client_id, client_secret,
 * client_name, redirect_url, participant_id, connection_id, base_url | auth_base_url,
 * api_base_url } }`, or the same members without the wrapper — into
 * {@link RegistrationCredentials}. `redirect_url` becomes `redirect_urls`; `base_url` is read as
 * the API gateway when `api_base_url` is absent; null members of a pending registration stay
 * null (`client_id`, `client_secret`) or are left out. Throws `ResponseValidationError` (its raw
 * body redacted) when the answer has no `status`, or is approved without credentials.
 * @group OAuth
 */
export function normaliseRegistration(body: unknown, rawBody = '', httpStatus = 200): RegistrationCredentials {
  const issues: ValidationIssue[] = [];
  const top = isRecord(body) ? body : {};
  const inner = isRecord(top.client_credentials) ? top.client_credentials : top;
  const status = top.status;
  if (!isRecord(body)) issues.push({ path: '', message: 'the answer is not a JSON object', code: 'invalid_type' });
  else if (typeof status !== 'string' || status === '') issues.push({ path: 'status', message: 'is missing', code: 'missing' });
  const clientId = optionalString(inner.client_id) ?? null;
  const clientSecret = optionalString(inner.client_secret) ?? null;
  if (status === 'APPROVED') {
    if (clientId === null) issues.push({ path: 'client_credentials.client_id', message: 'is missing on an approved registration', code: 'missing' });
    if (clientSecret === null) issues.push({ path: 'client_credentials.client_secret', message: 'is missing on an approved registration', code: 'missing' });
  }
  if (issues.length > 0) throw new ResponseValidationError({ status: httpStatus, issues, rawBody });

  const redirects = new Set<string>();
  if (Array.isArray(inner.redirect_urls)) for (const url of inner.redirect_urls) if (typeof url === 'string' && url !== '') redirects.add(url);
  const single = optionalString(inner.redirect_url);
  if (single) redirects.add(single);

  const out: RegistrationCredentials = { status: status as string, client_id: clientId, client_secret: clientSecret, redirect_urls: [...redirects] };
  const copy = (from: string, to: keyof RegistrationCredentials = from as keyof RegistrationCredentials) => {
    const value = optionalString(inner[from]);
    if (value !== undefined && out[to] === undefined) (out as unknown as Record<string, unknown>)[to] = value;
  };
  copy('client_name');
  copy('participant_id');
  copy('connection_id');
  copy('auth_base_url');
  copy('api_base_url');
  copy('base_url', 'api_base_url');
  return out;
}

/** GET `{auth_url}/dcr` with HTTP Basic; see `OpenBanking.fetchRegistration`. */
export async function fetchRegistration(params: FetchRegistrationParams): Promise<RegistrationCredentials> {
  const issues: ValidationIssue[] = [];
  const p = isRecord(params) ? (params as unknown as FetchRegistrationParams) : ({} as FetchRegistrationParams);
  if (!isRecord(params)) issues.push({ path: '', message: 'must be an object { authUrl, username, password }', code: 'invalid_type' });
  const authUrl = checkAuthUrl(issues, 'authUrl', p.authUrl);
  checkString(issues, 'username', p.username);
  checkString(issues, 'password', p.password);
  if (typeof p.username === 'string' && p.username.includes(':')) issues.push({ path: 'username', message: 'must not contain ":" (HTTP Basic)', code: 'invalid_format' });
  const path = checkPath(issues, 'path', p.path, DEFAULT_ENDPOINTS.registration);
  if (p.fetch !== undefined && typeof p.fetch !== 'function') issues.push({ path: 'fetch', message: 'must be a function', code: 'invalid_type' });
  if (p.signal !== undefined && !(p.signal instanceof AbortSignal)) issues.push({ path: 'signal', message: 'must be an AbortSignal', code: 'invalid_type' });
  const timeout = p.timeout ?? 30_000;
  if (typeof timeout !== 'number' || !(timeout >= 1)) issues.push({ path: 'timeout', message: 'must be a number of ms ≥ 1', code: 'invalid_value' });
  if (issues.length > 0) throw new ValidationError('Invalid registration lookup', issues);

  const credentials = toBase64(new TextEncoder().encode(`${p.username}:${p.password}`));
  const timer = AbortSignal.timeout(timeout);
  const signal = p.signal ? AbortSignal.any([p.signal, timer]) : timer;
  let response: Response;
  let text: string;
  try {
    response = await (p.fetch ?? globalThis.fetch)(authUrl + path, {
      method: 'GET',
      headers: { authorization: `Basic ${credentials}`, accept: 'application/json' },
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (p.signal?.aborted) throw new AbortError('registration lookup: aborted');
    if (timer.aborted) throw new TimeoutError(`registration lookup: the identity host did not answer within ${timeout} ms`);
    throw new ConnectionError('registration lookup: could not reach the identity host', { cause: error instanceof Error ? new Error(error.message.slice(0, 200)) : undefined });
  }
  let body: unknown;
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const record = isRecord(body) ? body : {};
    const code = optionalString(record.error) ?? (response.status === 401 ? 'invalid_client' : response.status >= 500 ? 'server_error' : 'invalid_request');
    const description = optionalString(record.error_description) ?? optionalString(record.message) ?? `HTTP ${response.status} from the registration endpoint`;
    throw new OAuthError(code, description, { status: response.status });
  }
  return normaliseRegistration(body, text, response.status);
}
