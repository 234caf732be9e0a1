/** Placeholder written in place of every secret value. */
export const REDACTED = '[REDACTED]';

/** Body fields whose values never appear in a log line, an error message or a serialized error. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'client_secret',
  'password',
  'refresh_token',
  'access_token',
  'id_token',
  'code',
  'user_code',
  'code_verifier',
  'device_code',
  'card_default_pin',
  'card_cvv2',
  'card_number',
  'card_token',
  'pin',
  'otp',
  'cvv',
  'cvv2',
  'pan',
  'token',
  'bvn',
  'x-api-key',
  'api_key',
]);

/** Header names whose values are always redacted. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'signature',
  'cookie',
  'set-cookie',
  'proxy-authorization',
  'x-api-key',
]);

/** Deep copy of a JSON-like value with every secret field replaced by {@link REDACTED}. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  // Members are defined, never assigned: a server's `__proto__` member stays plain data and
  // cannot become the copy's prototype.
  const out: Record<string, unknown> = {};
  // `code` is an OAuth authorization code next to OAuth members, but an error code elsewhere.
  const oauthish = 'grant_type' in value || 'redirect_uri' in value || 'state' in value || 'code_verifier' in value;
  for (const [key, item] of Object.entries(value)) {
    const name = key.toLowerCase();
    const secret = SECRET_FIELDS.has(name) && (name !== 'code' || oauthish);
    // A server's free text (`message`, `error_description`) may quote a secret: masked too.
    const value = secret ? REDACTED : typeof item === 'string' && TEXT_MEMBER.test(name) ? maskText(item) : redactValue(item, depth + 1);
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Redacts a raw response or request text: JSON without a secret field is returned unchanged, JSON
 * with one is parsed and re-serialised with its secret fields replaced, a form
 * body has its secret parameters replaced, and any other text has JSON-looking secret members
 * masked so that a truncated body cannot leak either.
 */
export function redactText(text: string): string {
  if (text === '') return text;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      const redacted = JSON.stringify(redactValue(parsed));
      // Nothing secret in it: the text as it came, byte for byte (spacing, key order, number forms).
      return redacted === JSON.stringify(parsed) ? text : redacted;
    } catch {
      // fall through: malformed or truncated JSON is masked textually below
    }
  }
  return maskText(text);
}

/** Members whose string value is a server's free text, masked by {@link maskText}. */
const TEXT_MEMBER = /message|description/;

/**
 * Per secret field: its JSON member (`"pin": "…"`) and its form or prose parameter (`pin=…`). Built
 * on first use: as a top-level statement it would stay in every bundle that imports this module,
 * the browser's `openbanking-ng/pkce` among them, whether it masks anything or not.
 */
let textPatterns: readonly [RegExp, string][] | undefined;
const buildTextPatterns = (): readonly [RegExp, string][] => [...SECRET_FIELDS].flatMap((field): [RegExp, string][] => [
  ...(field === 'code' ? [] : [[new RegExp(`("${field}"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"?|[^,}\\]\\s]+)`, 'gi'), `$1"${REDACTED}"`] as [RegExp, string]]),
  // `code=` in prose is usually an error code: only a form's `code` parameter is an OAuth code.
  [new RegExp(`((?:^|[&?${field === 'code' ? '' : '\\s,;('}])${field}=)[^&\\s,;)]*`, 'gi'), `$1${REDACTED}`],
]);

/** Masks JSON-looking secret members and `name=value` secret parameters in any text. */
export function maskText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of (textPatterns ??= buildTextPatterns())) out = out.replace(pattern, replacement);
  return out;
}

/** Plain object of headers with the secret ones replaced by {@link REDACTED}. */
export function redactHeaders(headers: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value;
  }
  return out;
}
