import { isRecord } from '../core/checks.js';
import { onDemand } from '../on-demand-loader.js';
import {
  type GrantContext,
  grantSignal,
  readAnswer,
  runGrant,
  type TokenEndpointAnswer,
  toTokenSet,
  unexpectedAnswer,
  unsupportedAnswer,
} from './grant-context.js';
import type { TokenSet } from './token-store.js';

// The client-credentials grant without an OAuth library, so that the first API call loads none:
// a form POST with `client_secret_post` (RFC 6749 §4.4, §2.3.1), and the answer checked as
// oauth4webapi checks it for the customer-facing grants (§5.1 success, §5.2 errors, RFC 6750 §3
// challenges). The two paths answer the same SDK errors for the same server behaviour.

/** Sends one grant to the token endpoint at `url` and returns its checked token set. */
export function tokenEndpointGrant(ctx: GrantContext, url: string, grantType: string, params: URLSearchParams, what: string, signal?: AbortSignal): Promise<TokenSet> {
  return runGrant(
    what,
    async () => {
      const body = new URLSearchParams(params);
      body.set('grant_type', grantType);
      body.set('client_id', ctx.clientId);
      body.set('client_secret', ctx.clientSecret);
      const { response, text } = await readAnswer(ctx, url, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
        body,
        signal: grantSignal(ctx, signal),
      });
      if (response.status !== 200) throw (await onDemand.load()).errorAnswer(what, response, text); // token-errors.ts: only a refusal needs it
      return toTokenSet(tokenAnswer(what, response, text), ctx.now());
    },
    signal,
  );
}

/** The answer is declared `application/json`. */
export const isJson = (response: Response): boolean => response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/json';

/** A 200 answer (its body read) as a token response, or the `OAuthError` it stands for. */
function tokenAnswer(what: string, response: Response, body: string): TokenEndpointAnswer {
  const { status } = response;
  const unexpected = (detail: string) => unexpectedAnswer(what, detail);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw isJson(response) ? unexpected('failed to parse "response" body as JSON') : unexpectedAnswer(what, `HTTP ${status}`, status);
  if (!isRecord(json)) throw unexpected('"response" body must be a top level object');
  for (const field of ['access_token', 'token_type'] as const) {
    if (typeof json[field] !== 'string' || !json[field]) throw unexpected(`"response" body "${field}" property must be a non-empty string`);
  }
  const answer = json as unknown as TokenEndpointAnswer;
  answer.token_type = answer.token_type.toLowerCase();
  if (answer.expires_in !== undefined) {
    const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : parseFloat(answer.expires_in);
    if (!Number.isFinite(expiresIn) || expiresIn < 0) throw unexpected('"response" body "expires_in" property must be a non-negative number');
    answer.expires_in = expiresIn;
  }
  if (answer.refresh_token !== undefined && (typeof answer.refresh_token !== 'string' || !answer.refresh_token)) {
    throw unexpected('"response" body "refresh_token" property must be a non-empty string');
  }
  if (answer.scope !== undefined && typeof answer.scope !== 'string') throw unexpected('"response" body "scope" property must be a string');
  if (answer.token_type !== 'bearer' && answer.token_type !== 'dpop') {
    throw unsupportedAnswer(what, 'unsupported `token_type` value');
  }
  return answer;
}
