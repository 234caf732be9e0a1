import { maskRemembered, REDACTED } from './secret-memory.js';

export { REDACTED, redactionWork } from './secret-memory.js';

/** Words that make a field secret wherever they stand in its name (`transaction_pin`, `accessToken`). */
const SECRET_WORDS: ReadonlySet<string> = new Set(['pin', 'cvv', 'cvv2', 'cvc', 'pan', 'otp', 'bvn', 'password', 'passcode', 'secret', 'token', 'signature', 'assertion']);

/** Words long enough to be secret inside a name written without separators (`ACCESSTOKEN`). */
const LONG_SECRET_WORDS: readonly string[] = /* @__PURE__ */ [...SECRET_WORDS].filter((word) => word.length > 4);

/** Secret as two adjacent words or within a name once `_`, `-` and case are gone (`apiKey`, `CARDNUMBER`). */
const SECRET_COMPOUNDS: readonly string[] = ['apikey', 'accesskey', 'privatekey', 'cardnumber', 'securitycode', 'codeverifier', 'devicecode', 'usercode'];

/** Header names whose values are always redacted. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'signature', 'cookie', 'set-cookie', 'proxy-authorization']);

/** How deep redaction walks; whatever lies deeper is dropped, never printed. */
export const REDACT_DEPTH = 32;

/**
 * What one call knows to be secret beyond the SDK's names: body fields the caller declared
 * (`secretFields`), and the secret values it sent (plaintext and ciphertext), masked wherever its
 * answer quotes them as a whole token.
 */
export interface CallSecrets {
  readonly fields?: readonly string[] | undefined;
  readonly values?: readonly string[] | undefined;
}

/** The words of a field name, split at `_`, `-`, `.`, spaces and camelCase, lower case. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
}

/**
 * True when a field of this name holds a secret (DESIGN "redaction"): the name, with `_`, `-` and
 * case removed, has a secret word or compound, or the caller listed it. `code` is secret only in a
 * grant's form (`form`), since elsewhere it is an error code.
 */
export function isSecretField(name: string, fields?: readonly string[], form = false): boolean {
  if (fields?.includes(name)) return true;
  let secret = secretNames.get(name);
  if (secret === undefined) {
    // Every call reads the same few field names: each is judged once.
    if (secretNames.size >= 4_096) secretNames.clear();
    secretNames.set(name, (secret = judgeName(name)));
  }
  return secret === 'form' ? form : secret;
}

const secretNames = new Map<string, boolean | 'form'>();

/** `'form'` for `code`, secret only in a grant's form. */
function judgeName(name: string): boolean | 'form' {
  const flat = name.toLowerCase().replace(/[\s_.-]+/g, '');
  if (flat === 'code') return 'form';
  if (SECRET_COMPOUNDS.some((compound) => flat.includes(compound)) || LONG_SECRET_WORDS.some((word) => flat.includes(word))) return true;
  const words = nameWords(name);
  // A name in one piece (`CARDPIN`) may end or begin with a short secret word.
  if (words.length === 1) return SECRET_WORDS.has(flat) || [...SECRET_WORDS].some((word) => flat.endsWith(word) || flat.startsWith(word));
  return words.some((word) => SECRET_WORDS.has(word));
}

/** True for a secret header: `authorization`, `signature`, cookies, or a name holding a secret word (`x-hmac-signature`, `api-key`). */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase()) || isSecretField(name);
}

/**
 * Deep copy of a JSON-like value with every secret field replaced by {@link REDACTED}, and every
 * string masked by {@link maskText}. Anything deeper than {@link REDACT_DEPTH} is replaced too.
 */
export function redactValue(value: unknown, secrets?: CallSecrets, depth = 0): unknown {
  if (typeof value === 'string') return maskText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= REDACT_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  // Members are defined, never assigned: a server's `__proto__` member stays plain data.
  const out: Record<string, unknown> = {};
  // `code` is an OAuth authorization code next to OAuth members, but an error code elsewhere.
  const form = 'grant_type' in value || 'redirect_uri' in value || 'state' in value || 'code_verifier' in value;
  for (const [key, item] of Object.entries(value)) {
    const redacted = isSecretField(key, secrets?.fields, form) ? REDACTED : redactValue(item, secrets, depth + 1);
    Object.defineProperty(out, key, { value: redacted, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Masks every secret in any text, whatever its shape, in one scan: JSON members whose (decoded)
 * name is secret, duplicates and escapes included; `name: value` and `name=value` pairs in other
 * text; then the values live clients and sessions remember and the values the call sent. Text without a secret is
 * returned as it came, byte for byte.
 */
export function maskText(text: string, secrets?: CallSecrets): string {
  if (text === '') return text;
  return maskCallValues(maskRemembered(maskStructure(text, secrets?.fields)), secrets?.values);
}

/** A bare name and its separator (`name: `, `name=`). */
const PAIR = /(?<![\w.-])([A-Za-z][\w.-]{0,99})[ \t]*([:=])[ \t]*/g;
/** Where a bare pair's value ends. */
const PAIR_VALUE_END = /[\s,;&?)}\]"]/g;
/** A bare name and its separator just before a quoted value: `pin="…"`. */
const PAIR_BEFORE_QUOTE = /(?:^|[^\w.-])([A-Za-z][\w.-]{0,99})[ \t]*[:=][ \t]*$/;

/** Text outside JSON strings: the values of its secret `name: value` / `name=value` pairs masked (`code=` only in a form or URL). */
function maskPairs(text: string, fields: readonly string[] | undefined): string {
  if (!text.includes('=') && !text.includes(':')) return text;
  let out = '';
  let kept = 0;
  PAIR.lastIndex = 0;
  for (let pair = PAIR.exec(text); pair !== null; pair = PAIR.exec(text)) {
    const [, name, separator] = pair as unknown as [string, string, string];
    const pre = text[pair.index - 1]; // a form's or URL's parameter starts the text or follows `&` or `?`
    if (!isSecretField(name, fields, separator === '=' && (pre === undefined || pre === '&' || pre === '?'))) continue;
    const start = PAIR.lastIndex;
    PAIR_VALUE_END.lastIndex = start;
    const end = PAIR_VALUE_END.exec(text)?.index ?? text.length;
    if (end === start) continue;
    out += text.slice(kept, start) + REDACTED;
    kept = PAIR.lastIndex = end;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** The index just past the JSON string literal opening at `start` (or the end of a cut-off text). */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** The index just past the JSON value starting at `start`: a string, a balanced object or array, or a literal. */
function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first !== '{' && first !== '[') {
    const stop = /[\s,}\]]/g;
    stop.lastIndex = start;
    return stop.exec(text)?.index ?? text.length;
  }
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const c = text[at];
    if (c === '"') at = stringEnd(text, at) - 1;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return at + 1;
  }
  return text.length;
}

/** The name a JSON key literal stands for, escapes decoded (`"card\u005fnumber"`). */
function keyName(literal: string): string {
  const inner = literal.endsWith('"') && literal.length > 1 ? literal.slice(1, -1) : literal.slice(1);
  if (!inner.includes('\\')) return inner;
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return inner.replace(/\\/g, '');
  }
}

/** A JSON string value: free text, masked within (escaped JSON inside it included). */
function maskLiteral(literal: string, fields: readonly string[] | undefined): string {
  if (!literal.includes('\\')) return maskPairs(literal, fields);
  try {
    const decoded = JSON.parse(literal) as string;
    const masked = maskStructure(decoded, fields);
    return masked === decoded ? literal : JSON.stringify(masked);
  } catch {
    return maskPairs(literal, fields);
  }
}

/** Where, in `text[from, to)`, a container opens past {@link REDACT_DEPTH} (`depth` is updated), or -1. */
function tooDeep(text: string, from: number, to: number, depth: { open: number }): number {
  for (let at = from; at < to; at++) {
    const c = text.charCodeAt(at);
    if (c === 123 || c === 91) {
      if (depth.open >= REDACT_DEPTH) return at;
      depth.open++;
    } else if ((c === 125 || c === 93) && depth.open > 0) depth.open--;
  }
  return -1;
}

/**
 * One pass over `text`: secret JSON members and secret pairs masked, what lies deeper than
 * {@link REDACT_DEPTH} dropped, everything else kept as it is.
 */
function maskStructure(text: string, fields: readonly string[] | undefined): string {
  if (!text.includes('"') && !text.includes('{') && !text.includes('[')) return maskPairs(text, fields);
  let out = '';
  let kept = 0; // text[kept..] is not yet copied to `out`
  let at = 0;
  const depth = { open: 0 };
  const replace = (from: number, to: number, by: string) => {
    out += text.slice(kept, from) + by;
    kept = to;
  };
  while (at < text.length) {
    const quote = text.indexOf('"', at);
    const gapEnd = quote === -1 ? text.length : quote;
    const deep = tooDeep(text, at, gapEnd, depth);
    const gap = text.slice(at, deep === -1 ? gapEnd : deep);
    const gapMasked = maskPairs(gap, fields);
    if (gapMasked !== gap) replace(at, at + gap.length, gapMasked);
    if (deep !== -1) {
      at = valueEnd(text, deep);
      replace(deep, at, `"${REDACTED}"`);
      continue;
    }
    if (quote === -1) break;
    const end = stringEnd(text, quote);
    let next = end;
    while (next < text.length && /\s/.test(text[next]!)) next++;
    if (text[next] === ':') {
      // A key: its value is masked whole when the name is secret.
      let value = next + 1;
      while (value < text.length && /\s/.test(text[value]!)) value++;
      if (isSecretField(keyName(text.slice(quote, end)), fields) && value < text.length) {
        at = valueEnd(text, value);
        replace(value, at, `"${REDACTED}"`);
      } else at = value;
      continue;
    }
    // A quoted value after a bare secret name (`pin="1234"`), or any other string: free text.
    const literal = text.slice(quote, end);
    const pair = PAIR_BEFORE_QUOTE.exec(gap);
    const masked = pair && isSecretField(pair[1]!, fields) ? `"${REDACTED}"` : maskLiteral(literal, fields);
    if (masked !== literal) replace(quote, end, masked);
    at = end;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * What a call knows to be secret: its declared `fields`, and the values of every secret field of
 * the bodies it sent (the plaintext and the ciphertext), with its `signature`.
 */
export function sentSecrets(fields: readonly string[] | undefined, bodies: readonly unknown[], signature: string): CallSecrets {
  const values = new Set<string>([signature]);
  const collect = (value: unknown, secret: boolean, depth: number): void => {
    if (depth > REDACT_DEPTH) return;
    if (typeof value === 'string' || typeof value === 'number') {
      if (secret) values.add(String(value));
    } else if (Array.isArray(value)) {
      for (const item of value) collect(item, secret, depth + 1);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) collect(item, secret || isSecretField(key, fields), depth + 1);
    }
  };
  for (const body of bodies) collect(body, false, 0);
  return { fields, values: [...values] };
}

/** True when the character code is a letter or a digit (ASCII): what bounds a whole token. */
const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** `text` with each of the call's sent secret values masked where it stands as a whole token. */
function maskCallValues(text: string, values: readonly string[] | undefined): string {
  if (!values || values.length === 0) return text;
  let out = text;
  for (const value of values) {
    if (value.length < 3 || !out.includes(value)) continue;
    let result = '';
    let kept = 0;
    for (let at = out.indexOf(value); at !== -1; at = out.indexOf(value, at + 1)) {
      if (at < kept || isWordChar(out.charCodeAt(at - 1)) || isWordChar(out.charCodeAt(at + value.length))) continue;
      result += out.slice(kept, at) + REDACTED;
      kept = at + value.length;
    }
    if (kept > 0) out = result + out.slice(kept);
  }
  return out;
}

/** A plain object of headers with the secret ones replaced by {@link REDACTED}, known secrets masked in the rest. */
export function redactHeaders(headers: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) out[name] = isSecretHeader(name) ? REDACTED : maskRemembered(value);
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
