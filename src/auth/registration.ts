import type * as z from 'zod/mini';
import type { registrationRequestSchema } from '../schemas/registration.js';
import { ResponseValidationError, type ValidationIssue } from '../errors/index.js';
import { isRecord } from '../core/validation.js';
import type { Endpoints, Environment } from '../core/config.js';

// The registration's shapes and how an answer becomes a `Registration`: light, and exported by the
// main entry. The requests themselves (`register.ts`) load with the first of them.

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
