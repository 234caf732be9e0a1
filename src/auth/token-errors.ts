import { isRecord } from '../core/checks.js';
import { OAuthError } from '../errors.js';
import { maskText, unexpectedAnswer } from './grant-context.js';
import { isJson } from './token-endpoint.js';

// What a token endpoint's refusal means (RFC 6749 §5.2, RFC 6750 §3), read as oauth4webapi reads
// it for the customer-facing grants. It loads with the on-demand module, on the first answer other
// than 200: a client whose grants succeed never needs it.

/** The error a token endpoint's answer other than 200 stands for. */
export function errorAnswer(what: string, response: Response, body: string): OAuthError {
  const { status } = response;
  const challenge = firstChallenge(response.headers.get('www-authenticate'));
  if (challenge) return new OAuthError(challenge.error ?? 'invalid_client', maskText(challenge.error_description), { status });
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  if (status > 399 && status < 500 && isJson(response) && isRecord(json) && typeof json.error === 'string' && json.error) {
    return new OAuthError(json.error, maskText(typeof json.error_description === 'string' ? json.error_description : undefined), { status });
  }
  return unexpectedAnswer(what, `HTTP ${status}`, status);
}

// RFC 9110 §11.6.1: a challenge is a scheme then `name=value` or `name="quoted"` parameters.
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const SCHEME = new RegExp(`^[,\\s]*${TOKEN}`);
const PARAM = new RegExp(`^[,\\s]*(${TOKEN})\\s*=\\s*(?:"((?:[^"\\\\]|\\\\[\\s\\S])*)"|(${TOKEN}))`);

/** The `error` parameters of the first challenge of a `WWW-Authenticate` header, if it parses. */
function firstChallenge(header: string | null): { error?: string; error_description?: string } | undefined {
  const scheme = header?.match(SCHEME);
  if (!header || !scheme) return undefined;
  const params: Record<string, string> = {};
  let rest = header.slice(scheme[0].length);
  for (let match = rest.match(PARAM); match; match = rest.match(PARAM)) {
    params[match[1]!.toLowerCase()] ??= match[2]?.replace(/\\([\s\S])/g, '$1') ?? match[3]!;
    rest = rest.slice(match[0].length);
  }
  return params;
}
