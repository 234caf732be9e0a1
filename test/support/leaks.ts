import { inspect } from 'node:util';
import type { Logger } from '../../src/index.js';

// What the secret sweeps read: every surface of an error, every line a logger was given, and the
// sentinels and sandbox-minted secrets found in them.

/** How deep `util.inspect` prints: well past any depth the SDK's redaction walks, so nothing hides in `[Object]`. */
const DEPTH = 50;

/** Everything a person could see of an error: message, stack, JSON, inspect, and the cause chain. */
export function surfaces(error: unknown): string[] {
  const out: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    const e = current as Error;
    out.push(String(e?.message), String(e?.stack), safeJson(e), inspect(e, { depth: DEPTH, showHidden: true }));
    current = e?.cause;
  }
  return out;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch (error) {
    return `<JSON.stringify threw ${String(error)}>`;
  }
}

/** A logger that keeps every line as text: the message, `util.inspect` and JSON of the details (three entries a line). */
export function capturingLogger(): { logger: Logger; lines: string[]; text: () => string } {
  const lines: string[] = [];
  const at = (message: string, details?: object) => {
    lines.push(message, inspect(details, { depth: DEPTH }), safeJson(details));
  };
  return { logger: { debug: at, info: at, warn: at, error: at }, lines, text: () => lines.join('\n') };
}

/** The shapes of the secrets the sandbox mints itself. */
export const SANDBOX_SECRET_PATTERNS: readonly RegExp[] = [/sbx_at_[0-9A-Za-z]{8}/, /sbx_rt_[0-9A-Za-z]{8}/, /sbx_code_[0-9A-Za-z]{8}/, /tok_[0-9A-Za-z]{24}/];

/**
 * Counts sentinel hits in `haystack`: exact strings, and patterns for values only the sandbox
 * knows (its access and refresh tokens, authorization and device codes, card tokens).
 */
export function findLeaks(haystack: string, sentinels: readonly string[], patterns: readonly RegExp[] = SANDBOX_SECRET_PATTERNS): string[] {
  const found: string[] = sentinels.filter((s) => haystack.includes(s));
  for (const pattern of patterns) {
    const match = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(haystack);
    if (match) found.push(`${pattern.source} → ${match[0].slice(0, 12)}…`);
  }
  return found;
}

/** The leaks in what `lines` logged and `thrown` shows, as {@link findLeaks} reports them. */
export function sweep(lines: readonly string[], thrown: readonly unknown[], sentinels: readonly string[], patterns?: readonly RegExp[]): string[] {
  return findLeaks([...lines, ...thrown.flatMap(surfaces)].join('\n'), sentinels, patterns);
}
