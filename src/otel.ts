/**
 * openbanking-ng/otel: OpenTelemetry traces and metrics of a client, through `@opentelemetry/api`
 * (an optional peer dependency of this entry only).
 * @module openbanking-ng/otel
 */
export { instrument, type InstrumentOptions } from './otel/instrument.js';
