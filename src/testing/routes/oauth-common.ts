import type { SandboxClient } from '../clients.js';
import { KNOWN_SCOPES, type SandboxContext, safeEqual } from '../context.js';
import { base64, sha256 } from '../digest.js';
import { oauthError } from '../responses.js';

/** Reads an `application/x-www-form-urlencoded` body; refuses other types and repeated parameters. */
export async function readForm(request: Request): Promise<URLSearchParams | Response> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
  }
  const form = new URLSearchParams(await request.text());
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) return oauthError(400, 'invalid_request', `The parameter ${name} is repeated`);
  }
  return form;
}

/**
 * Client authentication by `client_secret_post` (the spec's form fields `client_id` and
 * `client_secret`), the only method the service documents. A public-client call (device code)
 * may leave the secret out; a secret that is given must be right.
 */
export function authenticateClient(ctx: SandboxContext, request: Request, form: URLSearchParams, secretRequired: boolean): SandboxClient | Response {
  if (request.headers.has('authorization')) {
    return oauthError(401, 'invalid_client', 'Authenticate with client_secret_post: send client_id and client_secret as form fields, not an Authorization header');
  }
  const clientId = form.get('client_id');
  if (!clientId) return oauthError(401, 'invalid_client', 'client_id is required');
  const client = ctx.clients.get(clientId);
  const secret = form.get('client_secret');
  if (!client) return oauthError(401, 'invalid_client', 'Client authentication failed: unknown client');
  if (secret === null) {
    return secretRequired ? oauthError(401, 'invalid_client', 'client_secret is required (client_secret_post)') : client;
  }
  if (!safeEqual(secret, client.clientSecret)) return oauthError(401, 'invalid_client', 'Client authentication failed: wrong client_secret');
  return client;
}

/** Scope names the sandbox does not know, for `invalid_scope`. */
export function unknownScopes(scopes: readonly string[]): string[] {
  return scopes.filter((s) => !KNOWN_SCOPES.has(s));
}

/** PKCE S256: base64url of the SHA-256 of the verifier. */
export async function s256(verifier: string): Promise<string> {
  return base64(await sha256(verifier)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `uri` with parameters added to its query (the way a callback is built). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
