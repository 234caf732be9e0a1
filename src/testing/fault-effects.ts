import type { SandboxFault } from './faults.js';
import { gatewayPage } from './html.js';
import type { Outcome } from './outcome.js';
import { apiError, json } from './responses.js';

/** Waits `ms` of real time: a slow answer has to be slow for the client's own timer. */
function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const respond = (response: Response): Outcome => ({ kind: 'respond', response });

/** A copy of `response` with another body (and content type), the status kept unless given. */
function rebody(response: Response, body: string | null, contentType: string | undefined, status = response.status): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  if (contentType === undefined) headers.delete('content-type');
  else headers.set('content-type', contentType);
  const empty = body === null || status === 204 || status === 205 || status === 304;
  return new Response(empty ? null : body, { status, headers });
}

function statusMessage(status: number): string {
  if (status === 429) return 'Too many requests';
  if (status === 503) return 'Service unavailable';
  if (status === 502) return 'Bad gateway';
  if (status === 504) return 'Gateway timeout';
  if (status >= 500) return 'Internal server error';
  return 'Injected fault';
}

function malformed(text: string): string {
  return text.length > 2 ? text.slice(0, Math.ceil(text.length / 2)) : '{"status":"00","data":{';
}

function omit(text: string, path: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const parts = path.split('.');
  let target: unknown = body;
  for (const part of parts.slice(0, -1)) target = target !== null && typeof target === 'object' ? (target as Record<string, unknown>)[part] : undefined;
  if (target !== null && typeof target === 'object') delete (target as Record<string, unknown>)[parts[parts.length - 1]!];
  return JSON.stringify(body);
}

/**
 * Applies one injected fault. `run` lets the sandbox handle the request for real (and may store
 * a card); faults that stand in for the answer never call it.
 */
export async function applyFault(fault: SandboxFault, run: () => Promise<Response>): Promise<Outcome> {
  switch (fault.type) {
    case 'status': {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
      return respond(apiError(fault.status, fault.message ?? statusMessage(fault.status), { headers }));
    }
    case 'response': {
      const body = fault.body === undefined ? null : typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body);
      const headers = new Headers(fault.headers);
      if (typeof fault.body === 'object' && !headers.has('content-type')) headers.set('content-type', 'application/json; charset=utf-8');
      return respond(rebody(new Response(null, { headers }), body, headers.get('content-type') ?? undefined, fault.status));
    }
    case 'drop':
      if (fault.when === 'after') await run();
      return { kind: 'drop' };
    case 'delay': {
      if (fault.when === 'after') {
        const response = await run();
        await wait(fault.ms);
        return respond(response);
      }
      await wait(fault.ms);
      return respond(await run());
    }
    case 'malformed-json':
    case 'html':
    case 'empty': {
      const response = fault.status === undefined ? await run() : apiError(fault.status, statusMessage(fault.status));
      const text = await response.text();
      if (fault.type === 'empty') return respond(rebody(response, null, undefined));
      if (fault.type === 'html') return respond(rebody(response, gatewayPage(response.status), 'text/html'));
      return respond(rebody(response, malformed(text), 'application/json'));
    }
    case 'omit-field': {
      const response = await run();
      return respond(rebody(response, omit(await response.text(), fault.field), response.headers.get('content-type') ?? 'application/json'));
    }
    case 'truncate':
      return { kind: 'truncate', response: await run() };
  }
}

/** The spec-shaped error a request gets when the sandbox itself fails; never echoes the request. */
export function internalError(): Response {
  return json(500, { status: '05', message: 'Internal error in the sandbox', data: {} });
}
