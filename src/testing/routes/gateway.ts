import { computeSignature, type SignatureEncoding } from '../../core/signature.js';
import { type SandboxContext, safeEqual } from '../context.js';
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
    const expected = await computeSignature(secret, key, encoding);
    if (encoding === 'hex' ? safeEqual(expected, presented.toLowerCase()) : safeEqual(expected, presented)) return true;
  }
  return false;
}

/**
 * What the API gateway checks on every call, in order: the rate limit (per client), the bearer
 * token (401 `status: '02'`), the `idempotency-key` header (400 `MISSING_FIELD`), the
 * `signature` (401 `status: '02'`), and the operation's scope (403 `status: '03'`).
 */
export async function admit(ctx: SandboxContext, request: Request, scope: string): Promise<AdmittedCall | Response> {
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
  return { token, idempotencyKey };
}
