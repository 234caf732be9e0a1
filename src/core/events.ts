import type { ClientEventListener, ClientEventName, Hub, Listeners, TracingChannel, CallStartEvent, CallTrace, ClientEvents, GrantTrace, RetryReason, TokenGrant } from './event-types.js';
import { EVENT_NAMES, TAP } from './event-types.js';
import { ValidationError } from '../errors/base.js';
import type { LeveledLogger } from './logger.js';
import type { AttemptObserver, HttpMethod } from './http.js';
import { maskText, REDACTED, redactHeaders } from '../errors/redact.js';
import { v4 as uuid } from 'uuid';

// A client's listeners: checked once per call, nothing else loaded or built while nobody listens.

/**
 * A client's listeners and instrumentations. The call path checks {@link EventHub.active} once per
 * call: with nobody watching, no event is built.
 */
export class EventHub implements Hub {
  /** Listeners by event name, and the instrumentations. */
  readonly listeners: Listeners = {};
  /** The TracingChannel `openbanking-ng:call`, where the runtime has one. */
  readonly channel = callChannel;

  constructor(readonly logger: LeveledLogger) {}

  /** How many listeners and instrumentations are registered: the call path reads it, with the channel's subscribers, as a value. */
  listening = 0;

  /** Somebody follows calls: a listener, an instrumentation, or a diagnostics-channel subscriber. */
  get active(): boolean {
    return this.listening > 0 || this.channel?.hasSubscribers === true;
  }

  /** Adds a listener (or, under {@link TAP}, an instrumentation); returns the function that removes it. */
  on<N extends ClientEventName>(name: N, listener: ClientEventListener<N>): () => void {
    const tap = (name as string) === TAP;
    if (!tap && !EVENT_NAMES.includes(name)) throw new ValidationError('Invalid event listener', [{ path: 'name', message: `must be one of ${EVENT_NAMES.join(', ')}`, code: 'invalid_value' }]);
    if (tap ? typeof listener !== 'object' || listener === null : typeof listener !== 'function') {
      throw new ValidationError('Invalid event listener', [{ path: 'listener', message: 'must be a function', code: 'invalid_type' }]);
    }
    const set = ((this.listeners as Record<string, Set<ClientEventListener<N>>>)[name] ??= new Set());
    if (!set.has(listener)) this.listening++;
    set.add(listener);
    return () => {
      if (set.delete(listener)) this.listening--;
    };
  }
}

// What one watched call emits, from its start to its end.

/** Durations are real elapsed time, whatever clock the client runs on (`now` may be a test's fake clock). */
const elapsed = (): number => performance.now();

/** What an instrumentation or listener threw, as an `Error`. */
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** What stands for a secret in an event: `[redacted]`, as DESIGN writes it. */
const HIDDEN = '[redacted]';

/** A header list for an event: secret headers (by name) read `[redacted]`, known secrets in other values masked. */
function eventHeaders(headers: Headers): Record<string, string> {
  const out = redactHeaders(headers);
  for (const name in out) if (out[name] === REDACTED) out[name] = HIDDEN;
  return out;
}

/** A URL for an event: secret query parameters (by name) and known secrets masked, reading `[redacted]`. */
const eventUrl = (url: string): string => maskText(url).replaceAll(REDACTED, HIDDEN);

/** A listener or an instrumentation failed: one `warn` line, and the call goes on. */
function failed(hub: Hub, name: string, error: unknown): void {
  const reason = asError(error);
  hub.logger.warn(`openbanking-ng: a '${name}' listener failed (${reason.name}: ${reason.message}); the call goes on`, { event: name });
}

/** Runs `fn`; what it throws, or its promise rejects with, is logged at `warn` under `name`, never passed on. */
function safely(hub: Hub, name: string, fn: () => unknown): unknown {
  try {
    const result = fn() as Promise<unknown> | undefined;
    if (typeof result?.then === 'function') result.then(undefined, (error: unknown) => failed(hub, name, error));
    return result;
  } catch (error) {
    failed(hub, name, error);
  }
}

/** Hands `event` to every listener of `name`, each isolated. */
function tell<N extends ClientEventName>(hub: Hub, name: N, event: ClientEvents[N]): void {
  for (const listener of (hub.listeners[name] ?? []) as Iterable<ClientEventListener<N>>) safely(hub, name, () => listener(event));
}

/** Hands `event` to the instrumentations' traces (their method `name`, with `extra`), then to the listeners. */
function emit<N extends ClientEventName>(hub: Hub, traces: readonly object[], name: N, event: ClientEvents[N], extra?: unknown, listeners = true): void {
  for (const trace of traces) safely(hub, name, () => (trace as Record<string, (e: unknown, x: unknown) => unknown>)[name]?.(event, extra));
  if (listeners) tell(hub, name, event);
}

/** The instrumentations' traces for a call or a grant (what `start` returns, when it returns one). */
function tracesOf<T>(hub: Hub, start: (tap: NonNullable<Hub['listeners']['openbanking-ng:tap']> extends Set<infer Tap> ? Tap : never) => T | undefined): T[] {
  return [...(hub.listeners['openbanking-ng:tap'] ?? [])].map((tap) => safely(hub, 'callStart', () => start(tap)) as T | undefined).filter((trace): trace is T => trace !== undefined);
}

/** `fn` run inside every trace's `run` (the first trace outermost). */
function within<T>(traces: readonly { run<R>(fn: () => Promise<R>): Promise<R> }[], fn: () => Promise<T>): () => Promise<T> {
  let call = fn;
  for (const trace of traces) {
    const inner = call;
    call = () => trace.run(inner);
  }
  return call;
}

/**
 * Runs one logical call watched: `callStart` first (before validation, so a refused call has its
 * events too, with `attempts: 0`), the call inside the diagnostics channel and every
 * instrumentation's context, `callEnd` when it settles.
 */
export function observeCall<T extends { response: Response }>(
  config: { events: Hub; connectionId: string | undefined },
  op: { name?: string | undefined; method: HttpMethod; urlTemplate?: string | undefined },
  callOptions: { idempotencyKey?: unknown; connectionId?: unknown; spanAttributes?: unknown } | undefined,
  send: (observe: CallObservation) => Promise<T>,
): Promise<T> {
  return Promise.resolve().then(() => {
    const call = typeof callOptions === 'object' && callOptions !== null ? callOptions : {};
    const observe = new CallObservation(config.events, {
      operation: op.name!,
      method: op.method,
      urlTemplate: op.urlTemplate!,
      idempotencyKey: typeof call.idempotencyKey === 'string' ? call.idempotencyKey : uuid(),
      connectionId: typeof call.connectionId === 'string' ? call.connectionId : config.connectionId,
    }, typeof call.spanAttributes === 'object' && call.spanAttributes !== null ? (call.spanAttributes as Record<string, string>) : undefined);
    return observe.run(() => send(observe), (result) => result.response.status);
  });
}

/** One logical call being watched: emits its events, to the instrumentations' traces first. */
export class CallObservation implements AttemptObserver {
  /** Attempts sent so far. */
  attempts = 0;
  readonly #traces: CallTrace[];
  readonly #began = elapsed();
  #attemptStarted = 0;

  constructor(
    readonly hub: Hub,
    readonly start: CallStartEvent,
    attributes?: Readonly<Record<string, string>>,
  ) {
    this.#traces = tracesOf(hub, (tap) => tap.call(start, attributes));
    // The listeners get their own copy: the call reads its key from `start`, which no listener may change.
    tell(hub, 'callStart', { ...start });
  }

  /**
   * Runs the call inside every instrumentation's context and the diagnostics channel (the
   * context there is a copy of the `callStart` payload, then `result: { status }` or `error`);
   * emits `callEnd` when it settles. `status` reads a result's HTTP status.
   */
  run<T>(fn: () => Promise<T>, status: (result: T) => number): Promise<T> {
    const call = within(this.#traces, () =>
      fn().then(
        (result) => (this.#end(undefined), result),
        (error: unknown) => {
          this.#end(asError(error));
          throw error;
        },
      ),
    );
    const channel = this.hub.channel;
    if (channel?.hasSubscribers !== true) return call();
    // The channel's context gets the status of the result, never the result.
    let result: T;
    return channel
      .tracePromise(() => call().then((r) => ({ status: status((result = r)) })), { ...this.start })
      .then(() => result);
  }

  /** An attempt is about to be sent, its headers complete; an instrumentation may add one (`traceparent`). */
  request(request: Request, attempt: number): void {
    this.attempts = attempt;
    this.#attemptStarted = elapsed();
    const { operation, method, urlTemplate, idempotencyKey } = this.start;
    const event = { operation, method, url: eventUrl(request.url), urlTemplate, attempt, idempotencyKey, headers: {} };
    emit(this.hub, this.#traces, 'request', event, request.headers, false); // the traces may add a header
    event.headers = eventHeaders(request.headers);
    tell(this.hub, 'request', event);
  }

  /** The attempt's answer arrived and was read. */
  response(response: Response): void {
    const { operation, method, urlTemplate, idempotencyKey } = this.start;
    const event = { operation, method, urlTemplate, attempt: this.attempts, idempotencyKey, status: response.status, durationMs: elapsed() - this.#attemptStarted, headers: eventHeaders(response.headers) };
    emit(this.hub, this.#traces, 'response', event);
  }

  /** The attempt failed with `error` (what ky retries on) and another follows after `delayMs`. */
  retryAfter(error: unknown, delayMs: number): void {
    // ky's own tests (`isHTTPError`, …) go by these names; ky itself stays out of this module.
    const { name, response } = (error ?? {}) as { name?: string; response?: Response };
    if (name === 'ForceRetryError') this.#retry(0, 'unauthorized', 401); // only a 401 renewal forces one
    else if (name === 'HTTPError' && response) this.#retry(delayMs, 'status', response.status);
    else this.#retry(delayMs, name === 'TimeoutError' ? 'timeout' : 'network', undefined);
  }

  /** The rate limiter held the call back `waitMs`. */
  rateLimitWait(waitMs: number, shared: boolean): void {
    const { operation, idempotencyKey } = this.start;
    emit(this.hub, this.#traces, 'rateLimitWait', { operation, idempotencyKey, waitMs, shared });
  }

  #retry(delayMs: number, reason: RetryReason, status: number | undefined): void {
    const { operation, idempotencyKey } = this.start;
    emit(this.hub, this.#traces, 'retry', { operation, attempt: this.attempts, delayMs, reason, ...(status === undefined ? {} : { status }), idempotencyKey });
  }

  #end(error: Error | undefined): void {
    const { operation, idempotencyKey } = this.start;
    const event = { operation, idempotencyKey, durationMs: elapsed() - this.#began, attempts: this.attempts, ok: error === undefined, ...(error ? { error } : {}) };
    emit(this.hub, this.#traces, 'callEnd', event);
  }
}

/**
 * Runs one grant request watched: the instrumentations' grant traces around it, then a `token`
 * event of kind `grant` (`scopes`: those asked for, else those granted, else `[]`).
 */
export function observeGrant<T>(hub: Hub, grant: TokenGrant, scope: string | undefined, run: (observe: AttemptObserver | undefined) => Promise<T>): Promise<T> {
  const asked = scope?.split(' ').filter(Boolean) ?? [];
  const began = elapsed();
  const traces: GrantTrace[] = tracesOf(hub, (tap) => tap.grant(grant));
  const token = (ok: boolean, scopes: string[], error?: Error) => emit(hub, traces, 'token', { grant, scopes, durationMs: elapsed() - began, ok, ...(error ? { error } : {}) });
  // The grant's HTTP request, for the instrumentations (listeners get the `token` event only).
  const observe: AttemptObserver | undefined =
    traces.length === 0
      ? undefined
      : {
          request: (request) => traces.forEach((trace) => safely(hub, 'token', () => trace.request?.(request.method, request.url))),
          response: (response) => traces.forEach((trace) => safely(hub, 'token', () => trace.response?.(response.status))),
          retryAfter: () => undefined,
          rateLimitWait: () => undefined,
        };
  return within(traces, () =>
    run(observe).then(
      (result) => {
        const granted = (result as { scope?: unknown } | undefined)?.scope;
        token(true, asked.length > 0 ? asked : typeof granted === 'string' ? granted.split(' ').filter(Boolean) : []);
        return result;
      },
      (error: unknown) => {
        token(false, asked, asError(error));
        throw error;
      },
    ),
  )();
}

// `openbanking-ng:call` through `process.getBuiltinModule`: no static `node:` import, so browsers and workerd load the entry too.

/** The channel, or undefined where the runtime has none. */
export const callChannel: TracingChannel | undefined = (
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('diagnostics_channel') as
    | { tracingChannel?: (name: string) => TracingChannel }
    | undefined
)?.tracingChannel?.('openbanking-ng:call');
