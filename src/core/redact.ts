/** Placeholder written in place of every secret value. */
export const REDACTED = '[REDACTED]';

/** Words that make a field secret wherever they stand in its name (`transaction_pin`, `accessToken`). */
const SECRET_WORDS: ReadonlySet<string> = new Set(['pin', 'cvv', 'cvv2', 'pan', 'otp', 'bvn', 'password', 'secret', 'token']);

/** Whole names that are secret although no word of theirs is (`code` only in a grant's form). */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'card_number',
  'code_verifier',
  'code',
  'user_code',
  'device_code',
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

/** How deep redaction walks; whatever lies deeper is dropped, never printed. */
export const REDACT_DEPTH = 32;

/** The words of a field name, split at `_`, `-`, `.`, spaces and camelCase, lower case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
}

/**
 * True when a field of this name holds a secret: a word of its name is a secret word, the whole
 * name is a known secret, or the caller listed it in `extra` (a call's `secretFields`). `code` is
 * secret only in a grant's form (`form`), since elsewhere it is an error code.
 */
export function isSecretField(name: string, extra?: readonly string[], form = false): boolean {
  const lower = name.toLowerCase();
  if (lower === 'code') return form;
  if (SECRET_FIELDS.has(lower) || extra?.includes(name)) return true;
  return nameWords(name).some((word) => SECRET_WORDS.has(word));
}

/**
 * Deep copy of a JSON-like value with every secret field replaced by {@link REDACTED}; `extra`
 * names more secret fields. Anything deeper than {@link REDACT_DEPTH} is replaced too.
 */
export function redactValue(value: unknown, extra?: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return maskKnown(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= REDACT_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, extra, depth + 1));
  // Members are defined, never assigned: a server's `__proto__` member stays plain data and
  // cannot become the copy's prototype.
  const out: Record<string, unknown> = {};
  // `code` is an OAuth authorization code next to OAuth members, but an error code elsewhere.
  const form = 'grant_type' in value || 'redirect_uri' in value || 'state' in value || 'code_verifier' in value;
  for (const [key, item] of Object.entries(value)) {
    // A server's free text (`message`, `error_description`) may quote a secret: masked too.
    const redacted = isSecretField(key, extra, form) ? REDACTED : typeof item === 'string' && TEXT_MEMBER.test(key.toLowerCase()) ? maskText(item, extra) : redactValue(item, extra, depth + 1);
    Object.defineProperty(out, key, { value: redacted, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Redacts a raw response or request text: JSON without a secret is returned unchanged, JSON with
 * one is parsed and re-serialised with its secrets replaced, and any other text (a form body,
 * truncated JSON, prose) has its secret members and parameters masked.
 */
export function redactText(text: string, extra?: readonly string[]): string {
  if (text === '') return text;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      const redacted = JSON.stringify(redactValue(parsed, extra));
      // Nothing secret in it: the text as it came, byte for byte (spacing, key order, number forms).
      return redacted === JSON.stringify(parsed) ? text : redacted;
    } catch {
      // fall through: malformed or truncated JSON is masked textually below
    }
  }
  return maskText(text, extra);
}

/** Members whose string value is a server's free text, masked by {@link maskText}. */
const TEXT_MEMBER = /message|description/;

/** A JSON member (`"name": value`) and a form or prose parameter (`name=value`). */
const JSON_MEMBER = /("([^"\\]{1,100})"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/g;
const PARAMETER = /(^|[&?\s,;(])([\w.-]{1,100})=([^&\s,;)]*)/g;

/**
 * Masks secret JSON-looking members and `name=value` parameters in any text (names judged by
 * {@link isSecretField}; `code=` only in a form body), and every secret value the SDK knows of.
 */
export function maskText(text: string, extra?: readonly string[]): string {
  const out = text
    .replace(JSON_MEMBER, (all, head: string, name: string) => (isSecretField(name, extra) ? `${head}"${REDACTED}"` : all))
    // `code=` in prose is usually an error code: only a form's or a URL's `code` parameter is an OAuth code.
    .replace(PARAMETER, (all, pre: string, name: string) => (isSecretField(name, extra, pre === '' || pre === '&' || pre === '?') ? `${pre}${name}=${REDACTED}` : all));
  return maskKnown(out);
}

/** True for a secret header: one of {@link SECRET_HEADERS}, or a name with a secret word (`x-session-token`). */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase()) || isSecretField(name);
}

/** Plain object of headers with the secret ones replaced by {@link REDACTED}. */
export function redactHeaders(headers: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    out[name] = isSecretHeader(name) ? REDACTED : maskKnown(value);
  }
  return out;
}

/** A copy of `headers` whose secret ones read {@link REDACTED} (`headers` itself when it has none). */
export function withoutSecretHeaders(headers: Headers): Headers {
  let copy: Headers | undefined;
  for (const [name] of headers) {
    if (!isSecretHeader(name)) continue;
    copy ??= new Headers(headers);
    copy.set(name, REDACTED);
  }
  return copy ?? headers;
}

// Secret values the SDK holds (client secrets, tokens, code verifiers), masked wherever they
// appear in text: a custom fetch's error may quote them outside any named member. Bounded: the
// oldest tokens leave first, client secrets stay while fewer than SECRETS_KEPT clients exist.
const SECRETS_KEPT = 64;
const TOKENS_KEPT = 512;
let secrets: Set<string> | undefined;
let tokens: Set<string> | undefined;

function remember(set: Set<string>, value: string, limit: number): void {
  set.delete(value);
  set.add(value);
  if (set.size > limit) set.delete(set.values().next().value!);
}

/** Registers a client secret or code verifier (8 characters or more) to be masked in any text. */
export function rememberSecret(value: unknown): void {
  if (typeof value === 'string' && value.length >= 8) remember((secrets ??= new Set()), value, SECRETS_KEPT);
}

/** Registers a token (8 characters or more) to be masked in any text. */
export function rememberToken(value: unknown): void {
  if (typeof value === 'string' && value.length >= 8) remember((tokens ??= new Set()), value, TOKENS_KEPT);
}

/** `text` with every registered secret value replaced by {@link REDACTED}. */
export function maskKnown(text: string): string {
  if (text.length < 8 || (secrets === undefined && tokens === undefined)) return text;
  let out = text;
  for (const set of [secrets, tokens]) {
    if (set) for (const value of set) if (out.includes(value)) out = out.split(value).join(REDACTED);
  }
  return out;
}
