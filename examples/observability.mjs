// What a retried, rate-limited call looks like as a trace: `instrument(ob)` from
// openbanking-ng/otel records spans with the OpenTelemetry SDK (in memory here; see
// docs/observability.md for OTLP), and this prints the tree. The sandbox answers the card's first
// attempt 503 and its second 429 with Retry-After: 1; the client's own rate limiter holds each
// attempt back a little. Events (`ob.on`) print beside it.
//
//   npm install openbanking-ng @opentelemetry/api @opentelemetry/context-async-hooks @opentelemetry/sdk-trace-base
//   node node_modules/openbanking-ng/examples/observability.mjs
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenBanking } from 'openbanking-ng';
import { instrument } from 'openbanking-ng/otel';
import { startSandboxServer } from 'openbanking-ng/testing';

// The active context follows async calls (what the Node SDK sets up for you).
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });

const sandbox = await startSandboxServer();
try {
  const app = sandbox.registerClient();
  const ob = new OpenBanking({
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    rateLimit: { rate: 600, burst: 1 }, // one call every 100 ms
  });
  const uninstrument = instrument(ob, { tracerProvider });
  ob.on('retry', (e) => console.log(`event retry: attempt ${e.attempt} got ${e.status ?? e.reason}, next in ${e.delayMs} ms`));
  ob.on('rateLimitWait', (e) => console.log(`event rateLimitWait: held ${e.waitMs} ms`));

  const card = {
    account_number: '0123456789',
    card_holder_name: 'Ada Obi',
    card_status: /** @type {const} */ ('ACTIVE'),
    card_default_pin: '1234',
    card_expiry: { month: '09', year: '2029' },
  };
  // Inside a span of the application's own: the call's span is its child.
  await tracerProvider.getTracer('checkout').startActiveSpan('checkout', async (span) => {
    await ob.cards.list(); // spends the limiter's one unit: the card waits for the next
    sandbox.faults.inject({ path: '/openapi/v1/cards', method: 'POST', times: 1, fault: { type: 'status', status: 503 } });
    sandbox.faults.inject({ path: '/openapi/v1/cards', method: 'POST', times: 1, fault: { type: 'status', status: 429, retryAfter: 1 } });
    await ob.cards.create(card);
    span.end();
  });
  uninstrument();

  console.log('\nThe trace:');
  console.log(tree(spans.getFinishedSpans()));
} finally {
  await sandbox.close();
}

/**
 * The spans as an indented tree: name, duration, status and the attributes worth reading.
 * @param {import('@opentelemetry/sdk-trace-base').ReadableSpan[]} all
 */
function tree(all) {
  const keys = ['http.response.status_code', 'http.request.resend_count', 'error.type'];
  const ms = (/** @type {import('@opentelemetry/sdk-trace-base').ReadableSpan} */ s) => Math.round((s.endTime[0] - s.startTime[0]) * 1000 + (s.endTime[1] - s.startTime[1]) / 1e6);
  const byStart = (/** @type {import('@opentelemetry/sdk-trace-base').ReadableSpan[]} */ list) =>
    [...list].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  /** @type {string[]} */
  const lines = [];
  const walk = (/** @type {import('@opentelemetry/sdk-trace-base').ReadableSpan} */ span, /** @type {string} */ indent) => {
    const attrs = keys.filter((k) => span.attributes[k] !== undefined).map((k) => `${k}=${span.attributes[k]}`);
    const status = span.status.code === 2 ? ' ERROR' : '';
    lines.push(`${indent}${span.name}  ${ms(span)} ms${status}${attrs.length ? `  ${attrs.join(' ')}` : ''}`);
    for (const event of span.events) lines.push(`${indent}  · ${event.name} ${JSON.stringify(event.attributes)}`);
    for (const child of byStart(all.filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId))) walk(child, `${indent}  `);
  };
  for (const root of byStart(all.filter((s) => !s.parentSpanContext))) walk(root, '');
  return lines.join('\n');
}
