import { type Attributes, type Context, context, type Counter, type Histogram, type Meter, type MeterProvider, metrics, type Span, SpanKind, SpanStatusCode, trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { OpenBanking } from '../client.js';
import type { CallEndEvent, CallStartEvent, CallTap, CallTrace, GrantTrace, RateLimitWaitEvent, RequestEvent, ResponseEvent, RetryEvent, TokenGrant } from '../core/event-types.js';
import { version } from '../../package.json';

/**
 * Options of {@link instrument}.
 * @group Observability
 */
export interface InstrumentOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /**
   * Adds the W3C `traceparent` header (`00-{trace id}-{attempt span id}-{flags}`) to API calls,
   * written directly whatever propagator is registered. Never sent to the identity host. Default
   * `false`: the provider documents no tracing headers.
   */
  propagate?: boolean;
}

/** The name under which `ob.on` takes an instrumentation (`TAP` of `core/events.ts`). */
const TAP = 'openbanking-ng:tap';
const SCOPE = 'openbanking-ng';
/** The semantic-conventions version whose HTTP client attributes the spans and metrics follow. */
const SCHEMA_URL = 'https://opentelemetry.io/schemas/1.37.0';

/** The clock spans and durations are measured with, whatever clock the client runs on. */
const clock = (): number => performance.now();

/**
 * Traces and measures every call of `ob` (and of its customer sessions) through
 * `@opentelemetry/api`: one INTERNAL span per logical call with a CLIENT child per attempt (so
 * span-derived HTTP metrics count each request once), one span per grant, and the metrics of
 * `docs/observability.md`. Returns the function that stops it.
 *
 * @example
 * ```ts
 * import { OpenBanking } from 'openbanking-ng';
 * import { instrument } from 'openbanking-ng/otel';
 * const ob = new OpenBanking({ clientId: 'my-client', clientSecret: 'my-secret' });
 * const uninstrument = instrument(ob);   // the global tracer and meter providers
 * // … later
 * uninstrument();
 * ```
 * @group Observability
 */
export function instrument(ob: OpenBanking, options: InstrumentOptions = {}): () => void {
  if (typeof (ob as { on?: unknown } | null)?.on !== 'function' || typeof ob.baseUrl !== 'string') throw new TypeError('instrument(ob): ob must be an OpenBanking client');
  if (typeof options !== 'object' || options === null) throw new TypeError('instrument(ob, options): options must be an object');
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, version, { schemaUrl: SCHEMA_URL });
  const instruments = createInstruments((options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, version, { schemaUrl: SCHEMA_URL }));
  const tap = new OtelTap(tracer, instruments, serverOf(ob.baseUrl), serverOf(ob.authUrl), options.propagate === true, ob.baseUrl);
  // `on` takes an instrumentation under this name (the same in every copy of the package).
  return (ob as unknown as { on(name: string, tap: CallTap): () => void }).on(TAP, tap);
}

/** `server.address` and `server.port` of a host, the scheme's default port included. */
interface Server {
  address: string;
  port: number;
}

function serverOf(url: string): Server {
  try {
    const { hostname, port, protocol } = new URL(url);
    return { address: hostname.replace(/^\[|\]$/g, ''), port: port ? Number(port) : protocol === 'http:' ? 80 : 443 };
  } catch {
    return { address: '', port: 443 };
  }
}

/** `error.type` of an attempt that got no answer, from the retry's reason. */
const NO_ANSWER: Record<string, string> = { network: 'ConnectionError', timeout: 'TimeoutError' };

class OtelTap implements CallTap {
  constructor(
    readonly tracer: Tracer,
    readonly instruments: ClientInstruments,
    readonly api: Server,
    readonly identity: Server,
    readonly propagate: boolean,
    readonly baseUrl: string,
  ) {}

  call(start: CallStartEvent, attributes?: Readonly<Record<string, string>>): CallTrace {
    return new CallSpans(this, start, context.active(), attributes);
  }

  grant(grant: TokenGrant): GrantTrace {
    const parent = context.active();
    const span = this.tracer.startSpan(
      `oauth2 ${grant}`,
      { kind: SpanKind.INTERNAL, attributes: { 'openbanking.grant': grant, 'http.request.method': 'POST', 'server.address': this.identity.address } },
      parent,
    );
    const within = trace.setSpan(parent, span);
    let request: RequestSpan | undefined;
    return {
      run: (fn) => context.with(within, fn),
      request: (method, url) => {
        request?.end(undefined);
        const template = templateOf(url);
        const measured: Attributes = { 'http.request.method': method, 'url.template': template, 'server.address': this.identity.address, 'server.port': this.identity.port };
        request = new RequestSpan(this, `${method} ${template}`, measured, { 'url.full': url }, within);
      },
      response: (status) => {
        request?.answered(status);
        if (status < 300 || status >= 400) request = request?.end(status >= 400 ? String(status) : undefined);
      },
      token: (event) => {
        const type = event.error?.name ?? 'Error';
        request = request?.end(event.ok ? undefined : type);
        if (!event.ok) {
          span.setAttribute('error.type', type);
          span.setStatus({ code: SpanStatusCode.ERROR, message: type });
        }
        span.end();
        this.instruments.tokenRequests.add(1, { 'openbanking.grant': grant, 'openbanking.outcome': event.ok ? 'ok' : 'error' });
      },
    };
  }
}

/** The path of an identity-host URL: a fixed endpoint, so its own template. */
function templateOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '/{path}';
  }
}

/** One HTTP request (an API attempt or a request to the identity host): a CLIENT span and a duration point. */
class RequestSpan {
  readonly span: Span;
  readonly #tap: OtelTap;
  readonly #began = clock();
  /** What the duration point carries: the span's attributes without `url.full` and the resend count. */
  readonly #measured: Attributes;

  constructor(tap: OtelTap, name: string, measured: Attributes, extra: Attributes, parent: Context) {
    this.#tap = tap;
    this.#measured = measured;
    this.span = tap.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: { ...measured, ...extra } }, parent);
  }

  answered(status: number): void {
    this.span.setAttribute('http.response.status_code', status);
    this.#measured['http.response.status_code'] = status;
  }

  /** Ends the span; `errorType` marks it failed. Returns `undefined`, for the holder to forget it. */
  end(errorType: string | undefined): undefined {
    if (errorType !== undefined) {
      this.span.setAttribute('error.type', errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      this.#measured['error.type'] = errorType;
    }
    this.span.end();
    this.#tap.instruments.attempt.record((clock() - this.#began) / 1000, this.#measured);
    return undefined;
  }
}

/** The spans and measurements of one logical call. */
class CallSpans implements CallTrace {
  readonly #tap: OtelTap;
  readonly #span: Span;
  readonly #context: Context;
  readonly #began = clock();
  readonly #base: Attributes;
  #attempt: RequestSpan | undefined;

  constructor(tap: OtelTap, start: CallStartEvent, parent: Context, extra: Readonly<Record<string, string>> = {}) {
    this.#tap = tap;
    this.#base = { 'http.request.method': start.method, 'url.template': start.urlTemplate, 'server.address': tap.api.address };
    // The caller's `spanAttributes` (checked before sending) never replace the SDK's own.
    const own = Object.fromEntries(Object.entries(extra).filter(([, value]) => typeof value === 'string'));
    const attributes: Attributes = { ...own, 'openbanking.operation': start.operation, 'openbanking.idempotency_key': start.idempotencyKey, ...this.#base };
    if (start.connectionId !== undefined) attributes['openbanking.connection_id'] = start.connectionId;
    this.#span = tap.tracer.startSpan(start.operation, { kind: SpanKind.INTERNAL, attributes }, parent);
    this.#context = trace.setSpan(parent, this.#span);
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(this.#context, fn);
  }

  request(event: RequestEvent, headers: Headers): void {
    this.#attempt = this.#attempt?.end(undefined); // every attempt ends before the next starts; this only guards against a missed end
    const measured: Attributes = { ...this.#base, 'server.port': this.#tap.api.port };
    // A path no typed operation names may hold a customer's values: its url.full shows the template too.
    const extra: Attributes = { 'url.full': event.urlTemplate === '/{path}' ? `${this.#tap.baseUrl}/{path}` : event.url };
    if (event.attempt > 1) extra['http.request.resend_count'] = event.attempt - 1;
    this.#attempt = new RequestSpan(this.#tap, `${event.method} ${event.urlTemplate}`, measured, extra, this.#context);
    if (this.#tap.propagate) {
      const sc = this.#attempt.span.spanContext();
      if (trace.isSpanContextValid(sc)) headers.set('traceparent', `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`);
    }
  }

  response(event: ResponseEvent): void {
    const attempt = this.#attempt;
    if (attempt === undefined) return;
    attempt.answered(event.status);
    // A redirect is refused: that attempt fails with the call's error, whose class the call's end gives.
    if (event.status >= 200 && event.status < 300) this.#attempt = attempt.end(undefined);
    else if (event.status >= 400) this.#attempt = attempt.end(String(event.status)); // a 4xx/5xx: the status as a string
  }

  retry(event: RetryEvent): void {
    const reason = NO_ANSWER[event.reason];
    if (reason !== undefined) this.#attempt = this.#attempt?.end(reason);
    // A 429's Retry-After wait is a retry (its `delayMs`), never a rate_limit.wait: that is the limiter's.
    this.#tap.instruments.retries.add(1, { 'openbanking.operation': event.operation, 'openbanking.retry.reason': event.reason });
  }

  rateLimitWait(event: RateLimitWaitEvent): void {
    this.#waited(event.operation, event.waitMs);
  }

  callEnd(event: CallEndEvent): void {
    const type = event.error?.name ?? 'Error';
    this.#attempt = this.#attempt?.end(event.ok ? undefined : type);
    if (!event.ok) {
      this.#span.setAttribute('error.type', type);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    this.#span.end();
    this.#tap.instruments.call.record((clock() - this.#began) / 1000, { 'openbanking.operation': event.operation, 'openbanking.outcome': event.ok ? 'ok' : 'error' });
  }

  #waited(operation: string, ms: number): void {
    this.#span.addEvent('rate_limit.wait', { 'openbanking.rate_limit.wait_ms': ms });
    this.#tap.instruments.rateLimitWait.record(ms / 1000, { 'openbanking.operation': operation });
  }
}

// The metrics: the five instruments of DESIGN's "OpenTelemetry metrics" row.

/** Bucket boundaries (seconds) the HTTP semantic conventions advise for request durations. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** Rate-limit waits run from milliseconds to a minute. */
const WAIT_BUCKETS = [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The client's instruments on one meter. */
export interface ClientInstruments {
  /** `http.client.request.duration`: seconds per attempt. */
  attempt: Histogram<Attributes>;
  /** `openbanking.client.call.duration`: seconds per logical call. */
  call: Histogram<Attributes>;
  /** `openbanking.client.retries`: attempts tried again. */
  retries: Counter<Attributes>;
  /** `openbanking.client.rate_limit.wait`: seconds a rate budget held a call back. */
  rateLimitWait: Histogram<Attributes>;
  /** `openbanking.client.token.requests`: grant requests to the identity host. */
  tokenRequests: Counter<Attributes>;
}

/** Creates the instruments on `meter`. */
export function createInstruments(meter: Meter): ClientInstruments {
  return {
    attempt: meter.createHistogram('http.client.request.duration', {
      description: 'Duration of HTTP client requests (each attempt of an API call).',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    call: meter.createHistogram('openbanking.client.call.duration', {
      description: 'Duration of logical API calls, every attempt and wait included.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    retries: meter.createCounter('openbanking.client.retries', {
      description: 'Attempts of API calls that were tried again, by reason.',
      unit: '{retry}',
    }),
    rateLimitWait: meter.createHistogram('openbanking.client.rate_limit.wait', {
      description: 'Time a rate budget held an API call back.',
      unit: 's',
      advice: { explicitBucketBoundaries: WAIT_BUCKETS },
    }),
    tokenRequests: meter.createCounter('openbanking.client.token.requests', {
      description: 'Grant requests to the identity host, by grant and outcome.',
      unit: '{request}',
    }),
  };
}
