// The real OpenTelemetry SDK in memory, for the instrumentation tests: spans through an in-memory
// exporter, metrics through an in-memory metric exporter, the active context in AsyncLocalStorage.
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, type DataPoint, type Histogram, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

let contextManager: AsyncLocalStorageContextManager | undefined;

/** The AsyncLocalStorage context manager, registered once per test file (what the Node SDK does). */
export function useAsyncContext(): void {
  if (contextManager) return;
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
}

/** A tracer provider and a meter provider that keep what they record in memory. */
export function telemetry() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });

  /** The data points of metric `name`, read now. */
  async function points(name: string): Promise<DataPoint<number | Histogram>[]> {
    metricExporter.reset();
    await reader.forceFlush();
    const found = metricExporter
      .getMetrics()
      .flatMap((r) => r.scopeMetrics)
      .flatMap((s) => s.metrics)
      .filter((m) => m.descriptor.name === name);
    return found.flatMap((m) => m.dataPoints as DataPoint<number | Histogram>[]);
  }

  /** Every metric of the last read, with its data points' attributes (for the secrets sweep). */
  async function allMetrics() {
    metricExporter.reset();
    await reader.forceFlush();
    return metricExporter.getMetrics().flatMap((r) => r.scopeMetrics).flatMap((s) => s.metrics);
  }

  /** The instrumentation scopes of the metrics read now. */
  async function scopes() {
    metricExporter.reset();
    await reader.forceFlush();
    return metricExporter.getMetrics().flatMap((r) => r.scopeMetrics).map((s) => ({ ...s.scope }));
  }

  const finished = (): ReadableSpan[] => spans.getFinishedSpans();
  const named = (name: string): ReadableSpan[] => finished().filter((s) => s.name === name);
  const one = (name: string): ReadableSpan => {
    const found = named(name);
    if (found.length !== 1) throw new Error(`expected one span named ${name}, got ${found.length}: ${finished().map((s) => s.name).join(', ')}`);
    return found[0]!;
  };
  const childrenOf = (parent: ReadableSpan): ReadableSpan[] => finished().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);

  return {
    tracerProvider,
    meterProvider,
    spans,
    finished,
    named,
    one,
    childrenOf,
    points,
    allMetrics,
    scopes,
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
