import type { RegistrationRecord } from '../clients.js';
import { type RouteHandler, type SandboxContext, safeEqual } from '../context.js';
import { json, oauthError } from '../responses.js';

const REQUIRED = ['username', 'password', 'app_name', 'redirect_url'] as const;
const OPTIONAL = ['app_description', 'app_developer_name', 'app_developer_address', 'app_developer_contact_email', 'app_developer_contact_phone'] as const;

/** The registration answer of the provider's guide: `{ status, client_credentials: {...} }`. */
function registrationBody(ctx: SandboxContext, record: RegistrationRecord): Record<string, unknown> {
  const c = record.client;
  return {
    status: record.status,
    client_credentials: {
      client_id: c?.clientId ?? null,
      client_secret: c?.clientSecret ?? null,
      client_name: record.appName,
      redirect_url: record.redirectUrl,
      participant_id: c?.participantId ?? null,
      connection_id: c?.connectionId ?? null,
      auth_base_url: ctx.authUrl,
      api_base_url: ctx.baseUrl,
    },
  };
}

/**
 * `POST {auth_url}/dcr`: registers an application. The spec's nine string fields; `username`,
 * `password`, `app_name` and `redirect_url` are required. Approved at once in the sandbox
 * environment; `PENDING_APPROVAL` with null credentials in production.
 */
export const register: RouteHandler = async (ctx, request) => {
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '')) {
    return oauthError(400, 'invalid_client_metadata', 'The body must be application/json');
  }
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return oauthError(400, 'invalid_client_metadata', 'The body must be a JSON object');
  const fields = body as Record<string, unknown>;
  for (const name of REQUIRED) {
    if (fields[name] === undefined || fields[name] === null || fields[name] === '') return oauthError(400, 'invalid_client_metadata', `${name} is required`);
  }
  for (const name of [...REQUIRED, ...OPTIONAL]) {
    if (fields[name] !== undefined && typeof fields[name] !== 'string') return oauthError(400, 'invalid_client_metadata', `${name} must be a string`);
  }
  const redirectUrl = fields.redirect_url as string;
  if (!URL.canParse(redirectUrl) || new URL(redirectUrl).hash !== '' || redirectUrl.includes('#')) {
    return oauthError(400, 'invalid_redirect_uri', 'redirect_url must be an absolute URL without a fragment');
  }
  const username = fields.username as string;
  if (ctx.clients.registration(username)) {
    return oauthError(400, 'invalid_client_metadata', 'username is already registered: usernames are unique and cannot be reused');
  }
  const record = ctx.clients.register(
    { username, password: fields.password as string, appName: fields.app_name as string, redirectUrl },
    ctx.options.environment,
  );
  return json(201, registrationBody(ctx, record), { 'cache-control': 'no-store' });
};

function decodeBasic(header: string | null): { username: string; password: string } | undefined {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+=*)[ ]*$/i.exec(header ?? '');
  if (!match) return undefined;
  try {
    const binary = atob(match[1]!);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const colon = text.indexOf(':');
    return colon < 0 ? undefined : { username: text.slice(0, colon), password: text.slice(colon + 1) };
  } catch {
    return undefined;
  }
}

/**
 * `GET {auth_url}/dcr` with HTTP Basic (`username:password` of the registration): the
 * registration's current status and credentials.
 */
export const fetchRegistration: RouteHandler = async (ctx, request) => {
  const login = decodeBasic(request.headers.get('authorization'));
  const record = login ? ctx.clients.registration(login.username) : undefined;
  if (!login || !record || !safeEqual(login.password, record.password)) {
    return oauthError(401, 'invalid_client', 'HTTP Basic authentication with the registration username and password is required', {
      'www-authenticate': 'Basic realm="dcr", charset="UTF-8"',
    });
  }
  return json(200, registrationBody(ctx, record), { 'cache-control': 'no-store' });
};
