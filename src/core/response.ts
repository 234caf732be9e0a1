import { OpenBankingError } from '../errors/base.js';
import { maskText } from './redact.js';

// Reading answers and failures, without ky: what the API path, the grants and registration share.

/** True for a 3xx answer, or the opaque answer a browser gives for one under `redirect: 'manual'`. */
export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/** Why a redirect was refused, naming the status and the host it pointed to (never a query). */
export function redirectMessage(response: Response, where: string): string {
  let target = 'an undisclosed location';
  try {
    const location = response.headers.get('location');
    if (location) target = new URL(location, response.url || undefined).origin;
  } catch {
    // a Location that is no URL: leave it out
  }
  return `${where} answered ${response.status || 'a redirect'} to ${target}: the SDK never follows redirects (they would re-send the signature, the keys and the body). Check the configured URL`;
}

/** Keeps a cause's class and message for debugging, never arbitrary attached data. */
export function scrubCause(cause: unknown): unknown {
  if (cause instanceof OpenBankingError) return cause;
  if (cause instanceof Error) {
    const copy = new Error(maskText(cause.message).slice(0, 200)); // a custom fetch may quote the form body
    copy.name = cause.name;
    const code = (cause as { code?: unknown }).code ?? (cause as { cause?: { code?: unknown } }).cause?.code;
    if (typeof code === 'string') (copy as Error & { code?: string }).code = code;
    return copy;
  }
  return undefined;
}

/** A short reason for a network failure: the system error code where there is one. */
export function describeNetworkFailure(failure: unknown): string {
  const cause = (failure as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return cause.code;
  if (failure instanceof Error) return maskText(failure.message).slice(0, 200);
  return 'network failure';
}

/** The body as JSON, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
