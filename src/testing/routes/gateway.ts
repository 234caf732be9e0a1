import type { SignatureEncoding } from '../../crypto/bytes.js';
import { type RouteHandler, type SandboxContext, safeEqual } from '../context.js';
import { specSignature } from '../digest.js';
import { checkFields, type FieldTable } from '../fields.js';
import { canonicalJson } from '../idempotency.js';
import { apiError, badRequest, tooManyRequests } from '../responses.js';
import type { AccessTokenRecord } from '../tokens.js';

/** A request the gateway let through: who sent it and under which key. */
export interface AdmittedCall {
  token: AccessTokenRecord;
  idempotencyKey: string;
}

/** Lower-case hex is hex in any case; base64 must match exactly. */
async function signatureMatches(secret: string, key: string, presented: string, encodings: readonly SignatureEncoding[]): Promise<boolean> {
  for (const encoding of encodings) {
    const expected = await specSignature(secret, key, encoding);
    if (encoding === 'hex' ? safeEqual(expected, presented.toLowerCase()) : safeEqual(expected, presented)) return true;
  }
  return false;
}

/** Which tokens an operation takes: client credentials, a customer's, or either. */
export type TokenKind = 'client' | 'customer' | 'both';

/**
 * What the API gateway checks on every call, in order: the rate limit (per client), the bearer
 * token (401 `status: '02'`), the `idempotency-key` header (400 `MISSING_FIELD`), the
 * `signature` (401 `status: '02'`), the operation's scope (403 `status: '03'`), and the kind of
 * token (403: a customer resource needs the customer's consent, a client token has none).
 */
async function admit(ctx: SandboxContext, request: Request, scope: string, kind: TokenKind = 'both'): Promise<AdmittedCall | Response> {
  const authorization = request.headers.get('authorization') ?? '';
  const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(authorization);
  const token = match ? ctx.tokens.access(match[1]!) : 'unknown';

  if (ctx.limiter) {
    const wait = ctx.limiter.take(typeof token === 'object' ? token.clientId : 'anonymous');
    if (wait !== undefined) return tooManyRequests(wait);
  }
  if (!match) return apiError(401, 'Unauthorized: a Bearer access token is required in the Authorization header');
  if (token === 'unknown') return apiError(401, 'Unauthorized: the access token is not valid');
  if (token === 'expired') return apiError(401, 'Unauthorized: the access token has expired');

  const idempotencyKey = request.headers.get('idempotency-key');
  if (idempotencyKey === null || idempotencyKey.trim() === '') {
    return badRequest('MISSING_FIELD', 'idempotency-key header is required', 'idempotency-key');
  }
  const client = ctx.clients.get(token.clientId);
  const signature = request.headers.get('signature');
  if (signature === null || signature === '') return apiError(401, 'Unauthorized: the signature header is required');
  if (!client || !(await signatureMatches(client.clientSecret, idempotencyKey, signature, ctx.options.signatureEncodings))) {
    const accepted = ctx.options.signatureEncodings.join(' or ');
    return apiError(401, `Unauthorized: invalid signature (expected SHA-256 of client_secret;idempotency-key in ${accepted})`);
  }
  if (!token.scopes.includes(scope)) {
    return apiError(403, `Forbidden: the access token lacks the ${scope} scope`, { data: { required_scope: scope } });
  }
  if (kind === 'customer' && token.kind !== 'customer') {
    return apiError(403, "Forbidden: this operation acts on a customer's resources and needs an access token the customer consented to", { data: { required_token: 'customer' } });
  }
  if (kind === 'client' && token.kind !== 'client') {
    return apiError(403, 'Forbidden: this operation needs a client-credentials access token', { data: { required_token: 'client' } });
  }
  return { token, idempotencyKey };
}

/** The request's JSON object body, or the 400 the service answers when it is not one. */
async function readObject(request: Request): Promise<Record<string, unknown> | Response> {
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return badRequest('INVALID_REQUEST', 'The body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The first field problem of `body` against `table`, as the service's 400; undefined when it passes. */
export function fieldError(table: FieldTable, body: Record<string, unknown>): Response | undefined {
  const problem = checkFields(table, body);
  return problem && badRequest(problem.errorCode, problem.message, problem.field);
}

/**
 * Runs a state-changing operation once per idempotency key: the same key with the same method,
 * path and body replays the first answer; with another, 400 `IDEMPOTENCY_KEY_REUSED`.
 */
async function once(ctx: SandboxContext, call: AdmittedCall, request: Request, url: URL, body: unknown, perform: () => Promise<Response>): Promise<Response> {
  const fingerprint = `${request.method.toUpperCase()} ${url.pathname}\n${canonicalJson(body)}`;
  const result = await ctx.idempotency.run(call.token.clientId, call.idempotencyKey, fingerprint, perform);
  if (result.kind === 'reused') {
    return badRequest('IDEMPOTENCY_KEY_REUSED', 'idempotency-key was already used with a different request; use a new key for a new request', 'idempotency-key');
  }
  return result.response;
}

/** What a read-only route does once the gateway admitted the call. */
type ReadAnswer = (ctx: SandboxContext, call: AdmittedCall, params: Record<string, string>, url: URL) => Promise<Response>;
/** What a state-changing route does with the call's JSON body, once per idempotency key. */
type WriteAnswer = (ctx: SandboxContext, body: Record<string, unknown>, call: AdmittedCall, params: Record<string, string>) => Promise<Response>;

/** A read-only route: the gateway's checks for `scope` and the token `kind`, then `answer`. */
export function read(scope: string, kind: TokenKind, answer: ReadAnswer): RouteHandler {
  return async (ctx, request, url, params) => {
    const call = await admit(ctx, request, scope, kind);
    return call instanceof Response ? call : answer(ctx, call, params, url);
  };
}

/**
 * A state-changing route: the gateway's checks, the body read as a JSON object, and `perform` run
 * once per idempotency key (the same key and body replay its answer; another body is refused).
 */
export function write(scope: string, kind: TokenKind, perform: WriteAnswer): RouteHandler {
  return async (ctx, request, url, params) => {
    const call = await admit(ctx, request, scope, kind);
    if (call instanceof Response) return call;
    const body = await readObject(request);
    if (body instanceof Response) return body;
    return once(ctx, call, request, url, body, () => perform(ctx, body, call, params));
  };
}
