import { readFileSync } from 'node:fs';
import { metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/index.js';
import { instrument } from '../../src/otel.js';
import { createManualClock, type SandboxClient, type SandboxServer, startSandboxServer } from '../../src/testing.js';
import { startRecordingProxy } from '../e2e/support.js';
import { clientFor, validCard } from '../sandbox/support.js';
import { telemetry, useAsyncContext } from './support.js';

const CARDS = '/openapi/v1/cards';

describe('instrument(ob): spans and metrics with the OpenTelemetry SDK, against the sandbox', () => {
  let server: SandboxServer;
  let app: SandboxClient;
  let t: ReturnType<typeof telemetry>;
  beforeAll(async () => {
    useAsyncContext();
    server = await startSandboxServer({ seed: 'otel' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    app = server.registerClient();
    t = telemetry();
  });
  afterEach(() => t.shutdown());

  const instrumented = (overrides = {}, options = {}) => {
    const { ob, sleeps } = clientFor(server, app, overrides);
    const off = instrument(ob, { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider, ...options });
    return { ob, sleeps, off };
  };

  it('503 then 201: one call span, two attempt spans (resend count 1 on the second), one retry counted', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 503 } });
    const { ob } = instrumented();
    const { idempotencyKey } = await ob.cards.create(validCard()).withResponse();

    const call = t.one('cards.create');
    // INTERNAL: its HTTP requests are the CLIENT children, so span-derived HTTP metrics count each once.
    expect(call.kind).toBe(SpanKind.INTERNAL);
    expect(call.attributes).toMatchObject({
      'openbanking.operation': 'cards.create',
      'openbanking.idempotency_key': idempotencyKey,
      'http.request.method': 'POST',
      'url.template': '/cards',
      'server.address': '127.0.0.1',
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);

    const attempts = t.childrenOf(call).filter((s) => s.name === 'POST /cards');
    expect(attempts).toHaveLength(2);
    expect(attempts.map((s) => s.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);
    expect(attempts.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 201]);
    expect(attempts[0]!.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': Number(new URL(server.baseUrl).port), 'url.full': `${server.baseUrl}/cards` });
    expect(attempts[0]!.attributes['http.request.resend_count']).toBeUndefined();
    expect(attempts[1]!.attributes['http.request.resend_count']).toBe(1);
    expect(attempts[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempts[0]!.attributes['error.type']).toBe('503');
    expect(attempts[1]!.status.code).toBe(SpanStatusCode.UNSET);

    // The token request the call caused is its child.
    const token = t.one('oauth2 client_credentials');
    expect(token.kind).toBe(SpanKind.INTERNAL);
    expect(token.parentSpanContext?.spanId).toBe(call.spanContext().spanId);

    const retries = await t.points('openbanking.client.retries');
    expect(retries).toEqual([expect.objectContaining({ value: 1, attributes: { 'openbanking.operation': 'cards.create', 'openbanking.retry.reason': 'status' } })]);
    const perAttempt = await t.points('http.client.request.duration');
    expect(perAttempt.map((p) => [p.attributes['http.response.status_code'], p.attributes['error.type'], (p.value as { count: number }).count])).toEqual(
      expect.arrayContaining([
        [503, '503', 1],
        [201, undefined, 1],
      ]),
    );
    const cardsPoint = perAttempt.find((p) => p.attributes['url.template'] === '/cards');
    expect(cardsPoint!.attributes).toMatchObject({ 'http.request.method': 'POST', 'server.address': '127.0.0.1', 'server.port': Number(new URL(server.baseUrl).port) });
    expect(cardsPoint!.attributes['url.full']).toBeUndefined(); // a URL is no metric attribute
    const perCall = await t.points('openbanking.client.call.duration');
    expect(perCall.map((p) => [p.attributes, (p.value as { count: number }).count])).toEqual([[{ 'openbanking.operation': 'cards.create', 'openbanking.outcome': 'ok' }, 1]]);
    const tokens = await t.points('openbanking.client.token.requests');
    expect(tokens.map((p) => [p.attributes, p.value])).toEqual([[{ 'openbanking.grant': 'client_credentials', 'openbanking.outcome': 'ok' }, 1]]);
  });

  it('each request to the identity host is a CLIENT child of its oauth2 span, with a duration point', async () => {
    const { ob } = instrumented();
    await ob.cards.create(validCard());
    const token = t.one('oauth2 client_credentials');
    const [post, ...more] = t.childrenOf(token);
    expect(more).toEqual([]);
    const port = Number(new URL(server.authUrl).port);
    expect(post!.name).toBe('POST /oauth2/token');
    expect(post!.kind).toBe(SpanKind.CLIENT);
    expect(post!.attributes).toEqual({
      'http.request.method': 'POST',
      'url.full': `${server.authUrl}/oauth2/token`,
      'url.template': '/oauth2/token',
      'server.address': '127.0.0.1',
      'server.port': port,
      'http.response.status_code': 200,
    });
    expect(post!.status.code).toBe(SpanStatusCode.UNSET);
    const points = await t.points('http.client.request.duration');
    const grantPoints = points.filter((p) => p.attributes['url.template'] === '/oauth2/token');
    expect(grantPoints.map((p) => [p.attributes, (p.value as { count: number }).count])).toEqual([
      [{ 'http.request.method': 'POST', 'url.template': '/oauth2/token', 'server.address': '127.0.0.1', 'server.port': port, 'http.response.status_code': 200 }, 1],
    ]);
  });

  it('a refused grant: its request span and point carry the status as error.type, the oauth2 span the error class', async () => {
    const { ob } = instrumented({ clientSecret: 'not-the-secret' });
    await expect(ob.auth.clientCredentials(['cards.list'])).rejects.toMatchObject({ name: 'OAuthError' });
    const token = t.one('oauth2 client_credentials');
    expect(token.attributes['error.type']).toBe('OAuthError');
    const [post] = t.childrenOf(token);
    expect(post!.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': '401' });
    expect(post!.status.code).toBe(SpanStatusCode.ERROR);
    const points = await t.points('http.client.request.duration');
    expect(points.map((p) => [p.attributes['url.template'], p.attributes['http.response.status_code'], p.attributes['error.type']])).toEqual([['/oauth2/token', 401, '401']]);
    expect(JSON.stringify(t.finished().map((s) => [s.name, s.attributes, s.events]))).not.toContain('not-the-secret');
  });

  it("a 429 with Retry-After: the wait is a retry (its delayMs), never the limiter's rate_limit.wait", async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 429, retryAfter: 2 } });
    const { ob, sleeps } = instrumented();
    const retries: number[] = [];
    ob.on('retry', (e) => void retries.push(e.delayMs));
    await ob.cards.create(validCard());
    expect(sleeps).toEqual([2000]);
    expect(retries).toEqual([2000]);
    const call = t.one('cards.create');
    expect(call.events).toEqual([]);
    const [limited, ok] = t.childrenOf(call).filter((s) => s.name === 'POST /cards');
    expect(limited!.attributes).toMatchObject({ 'http.response.status_code': 429, 'error.type': '429' });
    expect(ok!.attributes['http.request.resend_count']).toBe(1);
    expect(await t.points('openbanking.client.rate_limit.wait')).toEqual([]);
    const counted = await t.points('openbanking.client.retries');
    expect(counted.map((p) => [p.attributes, p.value])).toEqual([[{ 'openbanking.operation': 'cards.create', 'openbanking.retry.reason': 'status' }, 1]]);
  });

  it('the tracer and the meter are named openbanking-ng, with the package version and the semantic conventions followed', async () => {
    const { ob } = instrumented();
    await ob.cards.create(validCard());
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const scope = t.one('cards.create').instrumentationScope;
    expect(scope).toEqual({ name: 'openbanking-ng', version, schemaUrl: expect.stringMatching(/^https:\/\/opentelemetry\.io\/schemas\/1\.\d+\.\d+$/) });
    const metricScopes = await t.scopes();
    expect(metricScopes).toContainEqual({ name: 'openbanking-ng', version, schemaUrl: scope.schemaUrl });
  });

  it("the client's own rate limiter: its wait shows on the held call's span", async () => {
    const clock = createManualClock(Date.now()); // the limiter counts on the client's clock, which only the waits move
    const { ob } = instrumented({ rateLimit: { rate: 60, burst: 1 }, now: clock.now, sleep: clock.sleep });
    await ob.cards.create(validCard());
    await ob.cards.create(validCard());
    const [first, second] = t.named('cards.create');
    expect(first!.events).toEqual([]);
    expect(second!.events.map((e) => [e.name, e.attributes])).toEqual([['rate_limit.wait', { 'openbanking.rate_limit.wait_ms': 1000 }]]);
  });

  it("a customer session's refresh is an oauth2 refresh_token span under the call that needed it", async () => {
    const { ob } = instrumented();
    const issued = server.issueTokens({ clientId: app.clientId, scope: 'accounts.list.readonly', kind: 'customer' });
    const session = ob.forCustomer({ ...issued, expires_at: Math.floor(Date.now() / 1000) - 10 });
    await session.accounts.list();
    const call = t.one('accounts.list');
    const refresh = t.one('oauth2 refresh_token');
    expect(refresh.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(refresh.status.code).toBe(SpanStatusCode.UNSET);
    expect(t.childrenOf(call).map((s) => s.name).sort()).toEqual(['GET /accounts', 'oauth2 refresh_token']);
    const tokens = await t.points('openbanking.client.token.requests');
    expect(tokens.map((p) => [p.attributes, p.value])).toEqual([[{ 'openbanking.grant': 'refresh_token', 'openbanking.outcome': 'ok' }, 1]]);
  });

  it('a rejected call: status ERROR with error.type on the call span (and on its attempt, the status)', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 404 } });
    const { ob } = instrumented();
    await expect(ob.cards.create(validCard())).rejects.toBeInstanceOf(NotFoundError);
    const call = t.one('cards.create');
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes['error.type']).toBe('NotFoundError');
    const [attempt] = t.childrenOf(call).filter((s) => s.name === 'POST /cards');
    expect(attempt!.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempt!.attributes['error.type']).toBe('404');
    const perCall = await t.points('openbanking.client.call.duration');
    expect(perCall.map((p) => p.attributes)).toEqual([{ 'openbanking.operation': 'cards.create', 'openbanking.outcome': 'error' }]);
  });

  it('a refused redirect: the attempt failed, so its span is ERROR with the error class (a 3xx is no 4xx/5xx)', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'response', status: 302, headers: { location: 'https://elsewhere.example/cards' }, body: '' } });
    const { ob } = instrumented();
    await expect(ob.cards.create(validCard())).rejects.toMatchObject({ name: 'ApiError', status: 302 });
    const call = t.one('cards.create');
    expect(call.attributes['error.type']).toBe('ApiError');
    const [attempt] = t.childrenOf(call).filter((s) => s.name === 'POST /cards');
    expect(attempt!.attributes).toMatchObject({ 'http.response.status_code': 302, 'error.type': 'ApiError' });
    expect(attempt!.status.code).toBe(SpanStatusCode.ERROR);
    const perAttempt = await t.points('http.client.request.duration');
    const onCards = perAttempt.filter((p) => p.attributes['url.template'] === '/cards');
    expect(onCards.map((p) => [p.attributes['http.response.status_code'], p.attributes['error.type']])).toEqual([[302, 'ApiError']]);
  });

  it('a call refused before sending: an ERROR call span with the error class and no attempt', async () => {
    const { ob } = instrumented();
    await expect(ob.cards.create({ ...validCard(), card_holder_name: undefined } as never)).rejects.toBeInstanceOf(ValidationError);
    const call = t.one('cards.create');
    expect(call.attributes['error.type']).toBe('ValidationError');
    expect(t.childrenOf(call)).toEqual([]);
  });

  it('an attempt without an answer: ERROR with the error class, then the retry succeeds', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'drop' } });
    const { ob } = instrumented();
    await ob.cards.create(validCard());
    const [lost, ok] = t.childrenOf(t.one('cards.create')).filter((s) => s.name === 'POST /cards');
    expect(lost!.attributes['error.type']).toBe('ConnectionError');
    expect(lost!.attributes['http.response.status_code']).toBeUndefined();
    expect(ok!.attributes['http.response.status_code']).toBe(201);
    const retries = await t.points('openbanking.client.retries');
    expect(retries.map((p) => p.attributes['openbanking.retry.reason'])).toEqual(['network']);
  });

  it("the user's active span is the parent of the call span; ob.auth grants are children of the active span", async () => {
    const { ob } = instrumented();
    const tracer = t.tracerProvider.getTracer('app');
    await tracer.startActiveSpan('checkout', async (span) => {
      await ob.cards.create(validCard());
      await ob.auth.clientCredentials(['cards.list']);
      span.end();
    });
    const checkout = t.one('checkout');
    const call = t.one('cards.create');
    expect(call.parentSpanContext?.spanId).toBe(checkout.spanContext().spanId);
    expect(call.spanContext().traceId).toBe(checkout.spanContext().traceId);
    const grants = t.named('oauth2 client_credentials');
    expect(grants.map((g) => g.parentSpanContext?.spanId)).toEqual([call.spanContext().spanId, checkout.spanContext().spanId]);
  });

  it('concurrent calls sharing one token request: its span is the child of the first call', async () => {
    const { ob } = instrumented();
    const tracer = t.tracerProvider.getTracer('app');
    const first = tracer.startActiveSpan('first', (span) => ob.cards.create(validCard()).finally(() => span.end()));
    const second = tracer.startActiveSpan('second', (span) => ob.cards.create(validCard()).finally(() => span.end()));
    await Promise.all([first, second]);
    const token = t.one('oauth2 client_credentials');
    const firstCall = t.named('cards.create').find((s) => s.parentSpanContext?.spanId === t.one('first').spanContext().spanId)!;
    expect(token.parentSpanContext?.spanId).toBe(firstCall.spanContext().spanId);
  });

  it('propagate: true sends a traceparent naming the attempt span to the API, and never to the identity host', async () => {
    const proxy = await startRecordingProxy(server.url);
    try {
      const { ob } = instrumented({ baseUrl: `${proxy.url}/openapi/v1`, authUrl: proxy.url }, { propagate: true });
      server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 503 } });
      await ob.cards.create(validCard());
      const attempts = t.childrenOf(t.one('cards.create')).filter((s) => s.name === 'POST /cards');
      const api = proxy.relayed.filter((r) => r.path.startsWith(CARDS));
      expect(api.map((r) => r.requestHeaders.traceparent)).toEqual(attempts.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`));
      const identity = proxy.relayed.filter((r) => r.path.startsWith('/oauth'));
      expect(identity).toHaveLength(1);
      expect(identity[0]!.requestHeaders.traceparent).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('without propagate no traceparent is sent; uninstrument() stops the spans', async () => {
    const proxy = await startRecordingProxy(server.url);
    try {
      const { ob, off } = instrumented({ baseUrl: `${proxy.url}/openapi/v1`, authUrl: proxy.url });
      await ob.cards.create(validCard());
      expect(proxy.relayed.map((r) => r.requestHeaders.traceparent)).toEqual([undefined, undefined]);
      expect(t.named('cards.create')).toHaveLength(1);
      off();
      await ob.cards.create(validCard());
      expect(t.named('cards.create')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('with no provider given, the global ones are used', async () => {
    const { ob } = clientFor(server, app);
    trace.setGlobalTracerProvider(t.tracerProvider);
    metrics.setGlobalMeterProvider(t.meterProvider);
    try {
      const off = instrument(ob);
      await ob.cards.create(validCard());
      off();
      expect(t.named('cards.create')).toHaveLength(1);
      const perCall = await t.points('openbanking.client.call.duration');
      expect(perCall.map((p) => p.attributes)).toEqual([{ 'openbanking.operation': 'cards.create', 'openbanking.outcome': 'ok' }]);
    } finally {
      trace.disable();
      metrics.disable();
    }
  });

  it('the five instruments: names, kinds and units as DESIGN lists them (durations in seconds)', async () => {
    server.faults.inject({ path: CARDS, times: 1, fault: { type: 'status', status: 503 } });
    const clock = createManualClock(Date.now()); // the limiter's hold (rate_limit.wait) on the client's clock
    const { ob } = instrumented({ rateLimit: { rate: 60, burst: 1 }, now: clock.now, sleep: clock.sleep });
    await ob.cards.create(validCard());
    const found = (await t.allMetrics()).map((m) => [m.descriptor.name, m.dataPointType, m.descriptor.unit]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['http.client.request.duration', DataPointType.HISTOGRAM, 's'],
        ['openbanking.client.call.duration', DataPointType.HISTOGRAM, 's'],
        ['openbanking.client.retries', DataPointType.SUM, expect.any(String)],
        ['openbanking.client.rate_limit.wait', DataPointType.HISTOGRAM, 's'],
        ['openbanking.client.token.requests', DataPointType.SUM, expect.any(String)],
      ]),
    );
    expect(found).toHaveLength(5);
  });

  it('instrument refuses what is not a client', () => {
    expect(() => instrument({} as never)).toThrow(TypeError);
  });
});
