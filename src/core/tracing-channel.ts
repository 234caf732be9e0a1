// The TracingChannel `openbanking-ng:call`, where the runtime has `node:diagnostics_channel` (Node,
// Bun, Deno). Reached through `process.getBuiltinModule`, never a static `node:` import, so the main
// entry still loads in browsers and on workerd, where this is simply absent.

/**
 * The part of a `TracingChannel` used here: whether anything subscribes, and `tracePromise`, which
 * publishes `start` (running bound stores) and `end` around `fn`, then `asyncStart` and `asyncEnd`
 * (after `error`) when its promise settles, `result` or `error` set on the context.
 */
export interface TracingChannel {
  readonly hasSubscribers: boolean;
  tracePromise<T>(fn: () => Promise<T>, context: object): Promise<T>;
}

/** The channel, or undefined where the runtime has none. */
export const callChannel: TracingChannel | undefined = (
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('diagnostics_channel') as
    | { tracingChannel?: (name: string) => TracingChannel }
    | undefined
)?.tracingChannel?.('openbanking-ng:call');
