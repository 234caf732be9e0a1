import type { HttpMethod } from './http.js';
import type { LeveledLogger } from './logger.js';

// The client's events: their names and typed payloads, and what an instrumentation attaches.

/** Once per logical call, before anything else (validation included). @group Observability */
export interface CallStartEvent {
  /** The typed name (`'cards.create'`, `'accounts.transactions.list'`), or `'request'` for `ob.request`. */
  operation: string;
  /** The HTTP method. */
  method: HttpMethod;
  /** The path as the operations table (`docs/operations.md`) writes it (`/accounts/{account_number}/transactions`), never with a customer's values. */
  urlTemplate: string;
  /** The key every attempt of the call carries. */
  idempotencyKey: string;
  /** The `connection-id` the call is sent with, when one is set. */
  connectionId?: string | undefined;
}

/** Each attempt, just before it is sent. @group Observability */
export interface RequestEvent {
  /** The typed name (`'cards.create'`), or `'request'` for `ob.request`. */
  operation: string;
  /** The HTTP method. */
  method: HttpMethod;
  /** The full URL of the attempt, query included. */
  url: string;
  /** The path as the operations table (`docs/operations.md`) writes it, never with a customer's values. */
  urlTemplate: string;
  /** Counts from 1. */
  attempt: number;
  /** The key every attempt of the call carries. */
  idempotencyKey: string;
  /** The attempt's headers; `authorization` and `signature` read `[redacted]`. */
  headers: Record<string, string>;
}

/** Each attempt's answer, whatever its status (an attempt without an answer has none). @group Observability */
export interface ResponseEvent {
  /** The typed name (`'cards.create'`), or `'request'` for `ob.request`. */
  operation: string;
  /** The HTTP method. */
  method: HttpMethod;
  /** The path as the operations table (`docs/operations.md`) writes it, never with a customer's values. */
  urlTemplate: string;
  /** Counts from 1. */
  attempt: number;
  /** The key every attempt of the call carries. */
  idempotencyKey: string;
  /** The HTTP status. */
  status: number;
  /** From the attempt's start to its body read. */
  durationMs: number;
  /** The answer's headers, `set-cookie` redacted. */
  headers: Record<string, string>;
}

/** Why an attempt is tried again. @group Observability */
export type RetryReason = 'status' | 'network' | 'timeout' | 'unauthorized';

/** An attempt failed and another follows. @group Observability */
export interface RetryEvent {
  /** The typed name (`'cards.create'`), or `'request'` for `ob.request`. */
  operation: string;
  /** The attempt that failed. */
  attempt: number;
  /** The wait before the next attempt (0 after a renewed token). */
  delayMs: number;
  /** `'status'` (408, 429, 5xx), `'network'`, `'timeout'`, or `'unauthorized'` (a 401 answered by a renewed token). */
  reason: RetryReason;
  /** The status of the failed attempt, when it had an answer. */
  status?: number;
  /** The key every attempt of the call carries. */
  idempotencyKey: string;
}

/** The client-side rate limiter held a call back. @group Observability */
export interface RateLimitWaitEvent {
  /** The typed name (`'cards.create'`), or `'request'` for `ob.request`. */
  operation: string;
  /** The key every attempt of the call carries. */
  idempotencyKey: string;
  /** How long the call was held back, in milliseconds. */
  waitMs: number;
  /** The budget is the fleet's (shared through its store). */
  shared: boolean;
}

/** The grants a `token` event reports. @group Observability */
export type TokenGrant = 'client_credentials' | 'refresh_token' | 'authorization_code' | 'device_code';

/** One grant request to the identity host. @group Observability */
export interface TokenEvent {
  /** The grant requested. */
  grant: TokenGrant;
  /** The scopes asked for, else those granted, else `[]`. */
  scopes: string[];
  /** How long it took, in milliseconds. */
  durationMs: number;
  /** It succeeded. */
  ok: boolean;
  /** Why it failed (an `OAuthError`, `ConnectionError`, …). */
  error?: Error;
}

/** Once per logical call, when it settles. @group Observability */
export interface CallEndEvent {
  /** The typed name (`'cards.create'`), or `'request'` for `ob.request`. */
  operation: string;
  /** The key every attempt of the call carries. */
  idempotencyKey: string;
  /** How long it took, in milliseconds. */
  durationMs: number;
  /** Attempts sent: 0 for a call refused before sending. */
  attempts: number;
  /** It succeeded. */
  ok: boolean;
  /** What the call rejected with. */
  error?: Error;
}

/** Every event of `ob.on`, by name. @group Observability */
export interface ClientEvents {
  /** Once per logical call, before anything else. */
  callStart: CallStartEvent;
  /** Each attempt, just before it is sent. */
  request: RequestEvent;
  /** Each attempt's answer, any status. */
  response: ResponseEvent;
  /** An attempt failed and another follows. */
  retry: RetryEvent;
  /** The rate limiter held a call back. */
  rateLimitWait: RateLimitWaitEvent;
  /** One grant request to the identity host. */
  token: TokenEvent;
  /** Once per logical call, when it settles. */
  callEnd: CallEndEvent;
}

/** The name of an event of `ob.on`. @group Observability */
export type ClientEventName = keyof ClientEvents;

/** A listener of `ob.on`: what it throws or rejects with is logged at `warn` and never changes the call. @group Observability */
export type ClientEventListener<N extends ClientEventName> = (event: ClientEvents[N]) => void | Promise<void>;

/** The event names, in the order a call emits them. */
export const EVENT_NAMES: readonly ClientEventName[] = ['callStart', 'request', 'response', 'retry', 'rateLimitWait', 'token', 'callEnd'];

/**
 * An instrumentation attached to a client (the `openbanking-ng/otel` entry): it follows each call
 * from its start, and may run it in its own context and add headers to its attempts.
 */
export interface CallTap {
  /** A logical call starts; the returned trace follows it. `attributes`: the call's `spanAttributes` option. */
  call(start: CallStartEvent, attributes?: Readonly<Record<string, string>>): CallTrace | undefined;
  /** A grant request starts; the returned trace follows it. */
  grant(grant: TokenGrant): GrantTrace | undefined;
}

/** One call, as an instrumentation follows it: the call's events, by name, before the listeners get them. */
export interface CallTrace {
  /** Runs the call (e.g. inside the call span's context). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** An attempt is about to be sent; `headers` are the attempt's own (a propagation header may be set). */
  request(event: RequestEvent, headers: Headers): void;
  response(event: ResponseEvent): void;
  retry(event: RetryEvent): void;
  rateLimitWait(event: RateLimitWaitEvent): void;
  callEnd(event: CallEndEvent): void;
}

/** One grant request, as an instrumentation follows it. */
export interface GrantTrace {
  /** Runs the grant request (e.g. inside its span's context). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** An HTTP request to the identity host is about to be sent (optional: older copies lack it). */
  request?(method: string, url: string): void;
  /** That request's answer, any status. */
  response?(status: number): void;
  /** The request is over. */
  token(event: TokenEvent): void;
}

/**
 * The name under which `ob.on` takes an instrumentation ({@link CallTap}) instead of a listener:
 * how `openbanking-ng/otel` (possibly from another copy of the package) attaches to a client.
 */
export const TAP = 'openbanking-ng:tap' as const;

/** Listeners by event name, and the instrumentations under {@link TAP}. */
export type Listeners = { [N in ClientEventName]?: Set<ClientEventListener<N>> } & { [TAP]?: Set<CallTap> };

/** What emitting needs of a client's {@link EventHub}. */
export interface Hub {
  readonly listeners: Listeners;
  readonly logger: LeveledLogger;
  /** The TracingChannel `openbanking-ng:call`, where the runtime has one. */
  readonly channel: TracingChannel | undefined;
}

/**
 * The part of a `TracingChannel` used here: whether anything subscribes, and `tracePromise`, which
 * publishes `start` (running bound stores) and `end` around `fn`, then `asyncStart` and `asyncEnd`
 * (after `error`) when its promise settles, `result` or `error` set on the context.
 */
export interface TracingChannel {
  readonly hasSubscribers: boolean;
  tracePromise<T>(fn: () => Promise<T>, context: object): Promise<T>;
}
