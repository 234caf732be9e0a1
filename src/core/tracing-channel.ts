// The TracingChannel `openbanking-ng:call`, where the runtime has `node:diagnostics_channel` (Node,
// Bun, Deno). Reached through `process.getBuiltinModule`, never a static `node:` import, so the main
// entry still loads in browsers and on workerd, where this is simply absent.

/** The part of a diagnostics channel used here. */
export interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
  runStores<T>(context: unknown, fn: () => T): T;
}

/** The part of a `TracingChannel` used here. */
export interface TracingChannel {
  /** Anything subscribes to one of its channels. */
  readonly hasSubscribers: boolean;
  start: Channel;
  end: Channel;
  asyncStart: Channel;
  asyncEnd: Channel;
  error: Channel;
}

/** The context published for a call: the `callStart` payload, then `result` (`{ status }`) or `error`. */
export interface CallChannelContext {
  operation: string;
  method: string;
  urlTemplate: string;
  idempotencyKey: string;
  connectionId?: string | undefined;
  result?: { status: number };
  error?: unknown;
}

/** The channel, or undefined where the runtime has none. */
export const callChannel: TracingChannel | undefined = (
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:diagnostics_channel') as
    | { tracingChannel?: (name: string) => TracingChannel }
    | undefined
)?.tracingChannel?.('openbanking-ng:call');
