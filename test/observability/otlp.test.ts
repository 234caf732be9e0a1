import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrument } from '../../src/otel.js';
import { type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { clientFor, validCard } from '../sandbox/support.js';
import { useAsyncContext } from './support.js';

/** One span as an OTLP/HTTP JSON export carries it. */
interface OtlpSpan {
  name: string;
  kind: number;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A receiver on 127.0.0.1 that decodes the OTLP/HTTP JSON it is sent. */
async function startReceiver(): Promise<{ url: string; spans: OtlpSpan[]; contentTypes: string[]; raw: string[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const contentTypes: string[] = [];
  const raw: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      const text = Buffer.concat(chunks).toString('utf8');
      raw.push(text);
      const body = JSON.parse(text) as { resourceSpans?: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, contentTypes, raw, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** An OTLP attribute list as a plain object (int64 values arrive as strings or numbers). */
const attributesOf = (span: OtlpSpan): Record<string, unknown> =>
  Object.fromEntries(span.attributes.map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : Object.values(value)[0])]));

describe('end to end over OTLP/HTTP', () => {
  let sandbox: SandboxServer;
  beforeAll(async () => {
    useAsyncContext();
    sandbox = await startSandboxServer({ seed: 'otlp' });
  });
  afterAll(() => sandbox.close());

  it('the spans of a retried call arrive at a local receiver with their attributes', async () => {
    const receiver = await startReceiver();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: receiver.url }))] });
    try {
      const app = sandbox.registerClient();
      sandbox.faults.inject({ path: '/openapi/v1/cards', times: 1, fault: { type: 'status', status: 503 } });
      const { ob } = clientFor(sandbox, app, { connectionId: 'bank-9' });
      instrument(ob, { tracerProvider: provider });
      const { idempotencyKey } = await ob.cards.create(validCard()).withResponse();
      await provider.forceFlush();

      expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
      const byName = (name: string) => receiver.spans.filter((s) => s.name === name);
      const [call] = byName('cards.create');
      expect(call).toBeDefined();
      expect(call!.kind).toBe(1); // SPAN_KIND_INTERNAL in OTLP: its attempts are the CLIENT spans
      expect(attributesOf(call!)).toEqual({
        'openbanking.operation': 'cards.create',
        'openbanking.idempotency_key': idempotencyKey,
        'openbanking.connection_id': 'bank-9',
        'http.request.method': 'POST',
        'url.template': '/cards',
        'server.address': '127.0.0.1',
      });
      const attempts = byName('POST /cards');
      expect(attempts.map((s) => s.parentSpanId)).toEqual([call!.spanId, call!.spanId]);
      expect(attempts.map((s) => s.kind)).toEqual([3, 3]); // SPAN_KIND_CLIENT
      expect(attempts.map(attributesOf)).toEqual([
        expect.objectContaining({ 'http.response.status_code': 503, 'error.type': '503', 'server.port': Number(new URL(sandbox.baseUrl).port), 'url.full': `${sandbox.baseUrl}/cards` }),
        expect.objectContaining({ 'http.response.status_code': 201, 'http.request.resend_count': 1 }),
      ]);
      expect(byName('oauth2 client_credentials').map((s) => s.parentSpanId)).toEqual([call!.spanId]);
    } finally {
      await provider.shutdown();
      await receiver.close();
    }
  });

  it('a retried, failing and refreshed session exports no secret: neither in spans nor in metrics', async () => {
    const receiver = await startReceiver();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: receiver.url }))] });
    const reader = new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: receiver.url.replace('traces', 'metrics') }), exportIntervalMillis: 3_600_000 });
    const meterProvider = new MeterProvider({ readers: [reader] });
    // Every secret value that crosses the wire, as the wire carries it.
    const secrets = new Set<string>();
    const keep = (value: string | null | undefined) => value && value.length >= 4 && secrets.add(value);
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      keep(request.headers.get('authorization')?.replace(/^Bearer /, ''));
      keep(request.headers.get('signature'));
      const sent = await request.clone().text();
      for (const [name, value] of new URLSearchParams(sent)) if (/secret|token|code/.test(name)) keep(value);
      const response = await fetch(request);
      const text = await response.clone().text();
      for (const name of ['access_token', 'refresh_token']) keep(/"[a-z_]+":/.test(text) ? (JSON.parse(text) as Record<string, string>)[name] : undefined);
      return response;
    };
    try {
      const app = sandbox.registerClient();
      keep(app.clientSecret);
      const card = validCard({ card_default_pin: '975318' });
      keep(card.card_default_pin as string);
      const { ob } = clientFor(sandbox, app, { fetch: recording });
      instrument(ob, { tracerProvider, meterProvider });
      // Retried (503 then 201), then refused with an answer that quotes what the call sent.
      sandbox.faults.inject({ path: '/openapi/v1/cards', times: 1, fault: { type: 'status', status: 503 } });
      await ob.cards.create(card);
      const quoted = `PIN ${card.card_default_pin as string} is too easy to guess`;
      sandbox.faults.inject({ path: '/openapi/v1/cards', times: 1, fault: { type: 'response', status: 400, body: JSON.stringify({ status: 'error', message: quoted }) } });
      await expect(ob.cards.create(card)).rejects.toMatchObject({ status: 400 });
      // A customer session whose token is due: refreshed, then used.
      const issued = sandbox.issueTokens({ clientId: app.clientId, scope: 'accounts.list.readonly', kind: 'customer' });
      keep(issued.access_token);
      keep(issued.refresh_token);
      const session = ob.forCustomer({ ...issued, expires_at: Math.floor(Date.now() / 1000) - 10 });
      await session.accounts.list();
      await tracerProvider.forceFlush();
      await reader.forceFlush();

      // The client secret, the PIN, four signatures, three access and two refresh tokens.
      expect(secrets.size).toBeGreaterThanOrEqual(10);
      const exported = receiver.raw.join('\n');
      expect(receiver.spans.map((s) => s.name)).toEqual(expect.arrayContaining(['cards.create', 'oauth2 refresh_token', 'POST /oauth/token', 'accounts.list']));
      expect(exported).toContain('http.client.request.duration');
      expect([...secrets].filter((secret) => exported.includes(secret))).toEqual([]);
    } finally {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      await receiver.close();
    }
  });
});
