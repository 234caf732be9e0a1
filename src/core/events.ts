import type { ClientEventListener, ClientEventName, Hub, Listeners } from './event-types.js';
import type { LeveledLogger } from './logger.js';
import { callChannel } from './tracing-channel.js';

// A client's listeners: checked once per call, nothing else loaded or built while nobody listens.

/**
 * A client's listeners and instrumentations. The call path checks {@link EventHub.active} once per
 * call: with nobody watching, no event is built (emitting lives in `call-observation.ts`).
 */
export class EventHub implements Hub {
  /** Listeners by event name, and the instrumentations. */
  readonly listeners: Listeners = {};
  /** The TracingChannel `openbanking-ng:call`, where the runtime has one. */
  readonly channel = callChannel;

  constructor(readonly logger: LeveledLogger) {}

  /** Somebody follows calls: a listener, an instrumentation, or a diagnostics-channel subscriber. */
  get active(): boolean {
    for (const name in this.listeners) if (this.listeners[name as ClientEventName]!.size > 0) return true;
    return this.channel?.hasSubscribers === true;
  }

  /** Adds a listener (or, under {@link TAP}, an instrumentation); returns the function that removes it. */
  on<N extends ClientEventName>(name: N, listener: ClientEventListener<N>): () => void {
    const set = ((this.listeners as Record<string, Set<ClientEventListener<N>>>)[name] ??= new Set());
    set.add(listener);
    return () => void set.delete(listener);
  }
}
