import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';

// The five instruments of DESIGN's "OpenTelemetry metrics" row.

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
