import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
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
async function startReceiver(): Promise<{ url: string; spans: OtlpSpan[]; contentTypes: string[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, contentTypes, close: () => new Promise((resolve) => server.close(() => resolve())) };
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
});
