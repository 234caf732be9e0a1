import * as z from 'zod/mini';
import { OAuthError, ResponseValidationError, ValidationError, type ValidationIssue } from '../errors/base.js';
import { ApiError } from '../errors/api.js';
import { abortSignal, functionOption, isRecord, parse, pathOption, rule, urlOption, wholeTimeoutMs } from '../core/validation.js';
import { type Endpoints, type Environment, DEFAULT_ENDPOINTS, DEFAULT_MAX_RESPONSE_BYTES, SANDBOX_HOSTS } from '../core/config.js';
import { toBase64 } from '../crypto/bytes.js';
import { exchange, type HttpMethod, noAnswer, send } from '../core/http.js';
import { levelFromEnvironment, leveledLogger } from '../core/logger.js';
import { maskText } from '../errors/redact.js';
import { matching, str, text, upTo } from '../schemas/common.js';

// Registering an application and collecting its credentials: the shapes, the two requests, and how
// an answer becomes a `Registration`.

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
  /** The value for the `X-Participant-ID` header; null while pending. */
  participant_id?: string | null;
  /** The value for the `connection-id` header; null while pending. */
  connection_id?: string | null;
  /** The identity host to use (the client's `authUrl`). */
  auth_base_url?: string;
  /** The API base URL to use (the client's `baseUrl`); the service's `base_url` is read as this too. */
  api_base_url?: string;
}

/** A non-empty string, or `undefined`. */
export const presentString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Flattens a registration answer — `{ status, client_credentials: { client_id, client_secret,
 * client_name, redirect_url, participant_id, connection_id, base_url | auth_base_url,
 * api_base_url } }`, or the same members without the wrapper (the `GET /dcr` answer is not
 * published) — into {@link Registration}, exactly its members (`client_name` is the `app_name`
 * the caller sent, and is left out). `redirect_url` becomes `redirect_urls`; `base_url` is
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

/** Where the registration calls go and how; the fields beside these are checked by their own schema. */
const connection = z.object({
  authUrl: z.optional(urlOption()),
  environment: z.optional(z.enum(['sandbox', 'production'])),
  endpoints: z.optional(z.looseObject({ registration: z.optional(pathOption()) })),
  fetch: z.optional(functionOption<typeof fetch>()),
  timeout: z.optional(wholeTimeoutMs()),
  signal: z.optional(abortSignal()),
  maxResponseBytes: z.optional(z.int().check(z.gte(1))),
});

/** `fetchRegistration`'s login, sent as HTTP Basic. */
const login = z.object({ username: text().check(rule((name: string) => !name.includes(':'), 'must not contain a colon (HTTP Basic)', 'invalid_format')), password: text() });

/** Checks the connection options, reporting `more` problems with theirs; returns the endpoint URL and the fetch settings. */
function resolveConnection(params: RegistrationConnection, more: ValidationIssue[], what: string): { url: string; fetch: typeof fetch | undefined; timeout: number; signal: AbortSignal | undefined; maxResponseBytes: number } {
  const { data: given, issues } = parse(connection, params);
  const all: ValidationIssue[] = [...issues];
  if (params.environment === 'production' && params.authUrl === undefined) all.push({ path: 'authUrl', message: 'is required in production', code: 'missing' });
  all.push(...more);
  if (all.length > 0 || given === undefined) throw new ValidationError(what, all);
  const url = `${given.authUrl ?? SANDBOX_HOSTS.authUrl}${given.endpoints?.registration ?? DEFAULT_ENDPOINTS.registration}`;
  return { url, fetch: given.fetch, timeout: given.timeout ?? 30_000, signal: given.signal, maxResponseBytes: given.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES };
}

/** Sends one registration call through the SDK's ky instance (one attempt) and turns every failure into an SDK error. */
async function call(what: string, conn: ReturnType<typeof resolveConnection>, method: HttpMethod, headers: Record<string, string>, body?: string): Promise<Registration> {
  // Registration is static (no client, so no logger option): OPENBANKING_LOG=debug shows it.
  const settings = { timeout: conn.timeout, maxResponseBytes: conn.maxResponseBytes, fetch: conn.fetch, now: Date.now, logger: leveledLogger(console, levelFromEnvironment() ?? 'warn') };
  const ex = exchange('the identity host', settings, { method, path: conn.url, what, signal: conn.signal });
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
  if (!isRecord(params)) throw new ValidationError('Invalid registration', [{ path: '', message: 'must be an object', code: 'invalid_type' }]);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (!(key in connection.def.shape)) fields[key] = value;
  const body = parse(registrationRequestSchema, fields);
  const conn = resolveConnection(params, body.issues, 'Invalid registration');
  return call('registration', conn, 'POST', { 'content-type': 'application/json', accept: 'application/json' }, JSON.stringify(body.data));
}

/**
 * Fetches a registration's status and credentials (`GET {auth_url}/dcr` with HTTP Basic
 * `username:password`): how production credentials are collected once approved.
 */
export async function fetchRegistration(params: FetchRegistrationParams): Promise<Registration> {
  if (!isRecord(params)) throw new ValidationError('Invalid parameters', [{ path: '', message: 'must be an object', code: 'invalid_type' }]);
  const conn = resolveConnection(params, parse(login, params).issues, 'Invalid parameters');
  const basic = toBase64(new TextEncoder().encode(`${params.username}:${params.password}`));
  return call('fetching the registration', conn, 'GET', { authorization: `Basic ${basic}`, accept: 'application/json' });
}

// The schema of `OpenBanking.register`'s body; `RegistrationFields` is its input type.

/** The spec's nine registration fields; `RegistrationFields` is its input type. */
export const registrationRequestSchema = z.strictObject({
  /** Login used later to fetch the credentials (`GET /dcr`); unique, and never reusable. */
  username: text(),
  /** Password of that login. */
  password: text(),
  /** The application's name, shown to customers on the consent page. */
  app_name: text(),
  /** What the application does. */
  app_description: z.optional(upTo()),
  /** Who builds it. */
  app_developer_name: z.optional(text()),
  /** The developer's postal address. */
  app_developer_address: z.optional(text()),
  /** The developer's email address. */
  app_developer_contact_email: z.optional(matching(/^[^\s@]+@[^\s@]+$/, 'must be an email address')),
  /** The developer's phone number, e.g. `+2348012345678`. */
  // Written as people write them: `+2348012345678`, `+234 801 234 5678`, `0801-234-5678`, `(01) 234 5678`.
  app_developer_contact_phone: z.optional(
    str().check(z.refine((v) => /^\+?[\d\s().-]+$/.test(v) && /^(\D*\d){7,15}\D*$/.test(v), 'must be a phone number of 7 to 15 digits, e.g. +2348012345678')),
  ),
  /** Where the identity host sends the customer back after consent: an absolute URL without a fragment. */
  redirect_url: str().check(z.refine((v) => URL.canParse(v) && !v.includes('#'), 'must be an absolute URL without a fragment')),
});
