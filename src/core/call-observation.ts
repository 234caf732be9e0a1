import type { RequestOptions } from './call-options.js';
import type { CallStartEvent, CallTap, CallTrace, ClientEventListener, ClientEventName, ClientEvents, Hub as EventHub, RetryReason, TokenEvent, TokenGrant } from './event-types.js';
import type { AttemptObserver, HttpMethod } from './http.js';
import type { Lazy } from './lazy.js';
import type { CallChannelContext, TracingChannel } from './tracing-channel.js';

// What one watched call emits, from its start to its end. Loaded with the first watched call; it
// imports only types, so the call path's chunks stay as they are (uuid, the header redaction and
// the request layer are handed in).

/** The SDK's header redaction (`redactHeaders`), handed in by the attempt's hook. */
export type HeaderRedaction = (headers: Headers) => Record<string, string>;

/** A header list for an event: secret headers read `[redacted]`, known secrets in other values masked. */
export function eventHeaders(headers: Headers, redact: HeaderRedaction): Record<string, string> {
  const out = redact(headers);
  for (const name of Object.keys(out)) if (out[name] === '[REDACTED]') out[name] = '[redacted]';
  return out;
}

/** Calls every listener of `name` with `event`; a throw or rejection is logged at `warn`, never passed on. */
export function emit<N extends ClientEventName>(hub: EventHub, name: N, event: ClientEvents[N]): void {
  const list = hub.listeners[name] as Set<ClientEventListener<N>> | undefined;
  if (list === undefined) return;
  for (const listener of list) {
    try {
      const result = listener(event);
      if (result !== undefined && typeof (result as Promise<void>).then === 'function') (result as Promise<void>).then(undefined, (error: unknown) => failed(hub, name, error));
    } catch (error) {
      failed(hub, name, error);
    }
  }
}

/** A listener or an instrumentation failed: one `warn` line, and the call goes on. */
export function failed(hub: EventHub, name: string, error: unknown): void {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  hub.logger.warn(`openbanking-ng: a listener of '${name}' failed; the call goes on (${reason})`, { event: name });
}

/** What an observed call needs of the operation. */
interface Observed {
  name?: string | undefined;
  method: HttpMethod;
  path: string;
  urlTemplate?: string | undefined;
}

/**
 * Runs one logical call watched: `callStart` first (before validation, so a refused call has its
 * events too, with `attempts: 0`), the call inside the diagnostics channel and every
 * instrumentation's context, `callEnd` when it settles.
 */
export function observeCall<T extends { response: Response }>(
  config: { events: EventHub; connectionId: string | undefined },
  op: Observed,
  callOptions: RequestOptions | undefined,
  layer: Lazy<{ uuid: () => string }>,
  send: (observe: CallObservation) => Promise<T>,
): Promise<T> {
  return (layer.value ? Promise.resolve(layer.value) : layer.load()).then(({ uuid }) => watch(config.events, op, callOptions, config.connectionId, uuid(), send));
}

function watch<T extends { response: Response }>(
  hub: EventHub,
  op: Observed,
  callOptions: RequestOptions | undefined,
  defaultConnectionId: string | undefined,
  freshKey: string,
  send: (observe: CallObservation) => Promise<T>,
): Promise<T> {
  const call: Partial<RequestOptions> = typeof callOptions === 'object' && callOptions !== null ? callOptions : {};
  const observe = new CallObservation(hub, {
    operation: op.name ?? 'request',
    method: op.method,
    urlTemplate: typeof op.urlTemplate === 'string' ? op.urlTemplate : String(op.path),
    idempotencyKey: typeof call.idempotencyKey === 'string' ? call.idempotencyKey : freshKey,
    connectionId: typeof call.connectionId === 'string' ? call.connectionId : defaultConnectionId,
  });
  return observe.run(() => send(observe), (result) => result.response.status);
}

/** One logical call being watched: emits its events and feeds the instrumentations' traces. */
export class CallObservation implements AttemptObserver {
  readonly start: CallStartEvent;
  /** Attempts sent so far. */
  attempts = 0;
  readonly #hub: EventHub;
  readonly #traces: CallTrace[] = [];
  readonly #began: number;
  #attemptStarted = 0;

  constructor(hub: EventHub, start: CallStartEvent) {
    this.#hub = hub;
    this.start = start;
    this.#began = elapsed();
    for (const tap of hub.listeners['openbanking-ng:tap'] ?? []) {
      try {
        const trace = tap.call(start);
        if (trace) this.#traces.push(trace);
      } catch (error) {
        failed(hub, 'callStart', error);
      }
    }
    emit(hub, 'callStart', start);
  }

  /**
   * Runs the call: inside the diagnostics channel and every instrumentation's context, and emits
   * `callEnd` when it settles. `status` reads a result's HTTP status.
   */
  run<T>(fn: () => Promise<T>, status: (result: T) => number): Promise<T> {
    let call = (): Promise<T> =>
      fn().then(
        (result) => {
          this.#end(undefined);
          return result;
        },
        (error: unknown) => {
          this.#end(error instanceof Error ? error : new Error(String(error)));
          throw error;
        },
      );
    for (const trace of this.#traces) {
      const inner = call;
      call = () => trace.run(inner);
    }
    return traceCall(channel, { ...this.start }, call, status);
  }

  /** An attempt is about to be sent (its headers complete). */
  request(request: Request, attempt: number, redact: HeaderRedaction): void {
    this.attempts = attempt;
    this.#attemptStarted = elapsed();
    const { operation, method, urlTemplate, idempotencyKey } = this.start;
    if (this.#traces.length > 0) {
      const event = { operation, method, url: request.url, urlTemplate, attempt, idempotencyKey };
      this.#each('request', (t) => t.request(event, request.headers));
    }
    if (this.#hub.listeners.request?.size) emit(this.#hub, 'request', { operation, method, url: request.url, urlTemplate, attempt, idempotencyKey, headers: eventHeaders(request.headers, redact) });
  }

  /** The attempt's answer arrived and was read. */
  response(response: Response, redact: HeaderRedaction): void {
    const { operation, method, urlTemplate, idempotencyKey } = this.start;
    const attempt = this.attempts;
    const durationMs = elapsed() - this.#attemptStarted;
    const status = response.status;
    if (this.#traces.length > 0) {
      const event = { operation, method, urlTemplate, attempt, idempotencyKey, status, durationMs };
      this.#each('response', (t) => t.response(event));
    }
    if (this.#hub.listeners.response?.size) emit(this.#hub, 'response', { operation, method, urlTemplate, attempt, idempotencyKey, status, durationMs, headers: eventHeaders(response.headers, redact) });
  }

  /** The attempt failed with `error` (what ky retries on) and another follows after `delayMs`. */
  retryAfter(error: unknown, delayMs: number): void {
    // ky's own tests (`isHTTPError`, `isTimeoutError`) go by these names; ky itself stays out of this chunk.
    const { name, response } = (error ?? {}) as { name?: string; response?: Response };
    if (name === 'ForceRetryError') this.retry(0, 'unauthorized', 401); // only a 401 renewal forces one
    else if (name === 'HTTPError' && response) this.retry(delayMs, 'status', response.status);
    else this.retry(delayMs, name === 'TimeoutError' ? 'timeout' : 'network', undefined);
  }

  /** The attempt failed and another follows after `delayMs`. */
  retry(delayMs: number, reason: RetryReason, status: number | undefined): void {
    const { operation, idempotencyKey } = this.start;
    const event = status === undefined ? { operation, attempt: this.attempts, delayMs, reason, idempotencyKey } : { operation, attempt: this.attempts, delayMs, reason, status, idempotencyKey };
    this.#each('retry', (t) => t.retry(event));
    emit(this.#hub, 'retry', event);
  }

  /** The rate limiter held the call back `waitMs`. */
  rateLimitWait(waitMs: number, shared: boolean): void {
    const { operation, idempotencyKey } = this.start;
    const event = { operation, idempotencyKey, waitMs, shared };
    this.#each('rateLimitWait', (t) => t.rateLimitWait(event));
    emit(this.#hub, 'rateLimitWait', event);
  }

  #end(error: Error | undefined): void {
    const { operation, idempotencyKey } = this.start;
    const durationMs = elapsed() - this.#began;
    const event = error === undefined ? { operation, idempotencyKey, durationMs, attempts: this.attempts, ok: true } : { operation, idempotencyKey, durationMs, attempts: this.attempts, ok: false, error };
    this.#each('callEnd', (t) => t.end(event));
    emit(this.#hub, 'callEnd', event);
  }

  #each(name: string, step: (trace: CallTrace) => void): void {
    for (const trace of this.#traces) {
      try {
        step(trace);
      } catch (error) {
        failed(this.#hub, name, error);
      }
    }
  }
}

/** The TracingChannel `openbanking-ng:call` (the channels behind it are the same objects as the call path's). */
const channel: TracingChannel | undefined = (
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:diagnostics_channel') as
    | { tracingChannel?: (name: string) => TracingChannel }
    | undefined
)?.tracingChannel?.('openbanking-ng:call');

/** Durations are real elapsed time, whatever clock the client runs on (`now` may be a test's fake clock). */
const elapsed = (): number => performance.now();

/** The grant of each request the grant module names (`runGrant`'s `what`). */
const GRANTS: Record<string, TokenGrant> = {
  'client credentials grant': 'client_credentials',
  'authorization code grant': 'authorization_code',
  'refresh token grant': 'refresh_token',
  'device code grant': 'device_code',
};

/**
 * Runs one grant request watched: the instrumentations' grant traces around it, then a `token`
 * event (`scopes`: those asked for, else those granted, else `[]`).
 */
export function observeGrant<T>(hub: EventHub, what: string, scope: string | undefined, run: () => Promise<T>): Promise<T> {
  const grant = GRANTS[what] ?? 'client_credentials';
  const asked = scope?.split(' ').filter(Boolean) ?? [];
  const began = elapsed();
  const traces: NonNullable<ReturnType<CallTap['grant']>>[] = [];
  for (const tap of hub.listeners['openbanking-ng:tap'] ?? []) {
    try {
      const trace = tap.grant(grant);
      if (trace) traces.push(trace);
    } catch (error) {
      failed(hub, 'token', error);
    }
  }
  const finish = (event: TokenEvent) => {
    for (const trace of traces) {
      try {
        trace.end(event);
      } catch (error) {
        failed(hub, 'token', error);
      }
    }
    emit(hub, 'token', event);
  };
  let call = (): Promise<T> =>
    run().then(
      (result) => {
        const granted = (result as { scope?: unknown } | undefined)?.scope;
        const scopes = asked.length > 0 ? [...asked] : typeof granted === 'string' ? granted.split(' ').filter(Boolean) : [];
        finish({ grant, scopes, durationMs: elapsed() - began, ok: true });
        return result;
      },
      (error: unknown) => {
        finish({ grant, scopes: [...asked], durationMs: elapsed() - began, ok: false, error: error instanceof Error ? error : new Error(String(error)) });
        throw error;
      },
    );
  for (const trace of traces) {
    const inner = call;
    call = () => trace.run(inner);
  }
  return call();
}

/**
 * Runs a call inside the channel: `start` (stores bound to it apply to the call), `end` when the
 * call's promise is made, then `asyncStart`/`asyncEnd` when it settles, after `error` when it
 * rejects. `status` gives the HTTP status of a result, never its data.
 */
function traceCall<T>(c: TracingChannel | undefined, context: CallChannelContext, fn: () => Promise<T>, status: (result: T) => number): Promise<T> {
  if (c?.hasSubscribers !== true) return fn();
  return c.start.runStores(context, () => {
    let promise: Promise<T>;
    try {
      promise = fn();
    } catch (error) {
      context.error = error;
      c.error.publish(context);
      c.end.publish(context);
      throw error;
    }
    c.end.publish(context);
    return promise.then(
      (result) => {
        context.result = { status: status(result) };
        c.asyncStart.publish(context);
        c.asyncEnd.publish(context);
        return result;
      },
      (error: unknown) => {
        context.error = error;
        c.error.publish(context);
        c.asyncStart.publish(context);
        c.asyncEnd.publish(context);
        throw error;
      },
    );
  });
}
