import { OpenBankingError, ResponseTooLargeError } from '../errors.js';
import type { KyInstance } from 'ky';
import { Lazy } from './lazy.js';
import { maskText } from './redact.js';

/** ky and the idempotency-key generator: what sends the SDK's requests. */
export interface HttpLayer {
  ky: KyInstance;
  /** A fresh idempotency key. */
  uuid: () => string;
}

/**
 * The HTTP layer, loaded with the first request, not with the package: importing ky runs its
 * feature detection, which builds a `Request` and so loads Node's whole fetch implementation
 * (undici). Deferred, they leave the import of the package to what it needs
 * (docs/performance.md); the first call pays what hand-written fetch code pays on its first
 * request anyway. `loadKy` says where ky comes from: the client passes the module of the schemas'
 * shared pieces, which re-exports it, so that a code-splitting bundler loads ky, zod and those
 * pieces as one chunk rather than two (bench/README.md, "The first-call budget").
 *
 * Keys are UUID v4 from Web Crypto's `randomUUID` where the runtime has it (Node, Bun, Deno,
 * workerd, browsers in secure contexts: what uuid's own `v4` calls there too), so the first call
 * does not load the uuid package's twenty modules; uuid's `v4` elsewhere.
 */
export function lazyHttpLayer(loadKy: () => Promise<{ ky: KyInstance }>): Lazy<HttpLayer> {
  return new Lazy(async () => {
    const { ky } = await loadKy();
    const webCrypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
    const uuid: () => string = typeof webCrypto?.randomUUID === 'function' ? () => webCrypto.randomUUID!() : (await import('uuid')).v4;
    return { ky, uuid };
  });
}

/** HTTP methods the API uses. @group Client */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request as the SDK sends it: every request it makes (API, registration) goes through {@link sendOnce}. */
export interface OutgoingRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The caller's signal: aborts this attempt. */
  signal: AbortSignal | undefined;
  /** This attempt's timeout (ms); reading the body counts. */
  timeout: number;
  /** A custom fetch; default `globalThis.fetch`, read per attempt so that interceptors such as msw apply. */
  fetch: typeof fetch | undefined;
  /** Largest body read (bytes); a larger one rejects with {@link ResponseTooLargeError}. */
  maxResponseBytes: number;
  /** The loaded HTTP layer. */
  http: HttpLayer;
}

/** The default `maxResponseBytes`: 10 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

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

/**
 * Reads a body as UTF-8 text, chunk by chunk, and stops at `limit` bytes: past it the stream is
 * cancelled and the read rejects with {@link ResponseTooLargeError}; nothing past the limit is
 * kept. A declared `content-length` over the limit is refused before a byte is read.
 */
export async function readText(response: Response, limit: number): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    await body.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(response.status, limit);
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(response.status, limit);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** Thrown by {@link sendOnce} when the attempt's own timer fired. */
export class AttemptTimeout extends Error {
  constructor() {
    super('attempt timeout');
  }
}

/** The longest delay `setTimeout` takes; a longer attempt timeout sets no timer at all. */
const MAX_TIMER_MS = 2_147_483_647;

/** The attempt timer's callback: one function for every attempt, the controller passed as argument. */
function abortAttempt(controller: AbortController): void {
  controller.abort(new AttemptTimeout());
}

/**
 * One attempt through ky, body read to the end (at most `maxResponseBytes`; a redirect's body is
 * not read). ky builds the request (URL, method, headers) and
 * hands it to fetch; the body and the attempt's signal join it there. Handing ky the body instead
 * costs, on every attempt, a body stream for ky's Request, a tee() of it for the clone ky keeps
 * for retries of its own (unused: the SDK retries) and an identity TransformStream when fetch
 * re-wraps that Request; handing ky the signal adds an `AbortSignal.any`. Together that was about
 * a third of a call's CPU on Node (docs/performance.md). The attempt's timer also covers reading
 * the body. Rejects with {@link AttemptTimeout} when the timer fired, with fetch's error otherwise.
 */
export async function sendOnce(request: OutgoingRequest): Promise<{ response: Response; text: string }> {
  const { http, signal, timeout } = request;
  const controller = new AbortController();
  const timer = timeout <= MAX_TIMER_MS ? setTimeout(abortAttempt, timeout, controller) : undefined;
  const onAbort = signal ? () => controller.abort(signal.reason) : undefined;
  if (onAbort) signal!.addEventListener('abort', onAbort, { once: true });
  try {
    // Never follow a redirect: it would re-send the signature, the key and the body to the Location.
    const init: RequestInit = { body: request.body, signal: controller.signal, redirect: 'manual' };
    const custom = request.fetch;
    const response = await http.ky(request.url, {
      method: request.method,
      headers: request.headers,
      retry: 0,
      timeout: false,
      throwHttpErrors: false,
      // A custom fetch (e.g. a sandbox handler that takes one Request) gets the complete Request;
      // the global fetch, read per attempt so that interceptors such as msw apply, takes it as init.
      fetch: custom ? (req) => custom(new Request(req, init)) : (req) => globalThis.fetch(req, init),
    });
    // A redirect's body is of no use and is never parsed as the gateway's answer.
    if (isRedirect(response)) {
      await response.body?.cancel().catch(() => undefined);
      return { response, text: '' };
    }
    const text = await readText(response, request.maxResponseBytes);
    return { response, text };
  } catch (error) {
    if (controller.signal.reason instanceof AttemptTimeout) throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal!.removeEventListener('abort', onAbort);
  }
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
