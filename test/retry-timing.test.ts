import { describe, expect, it } from 'vitest';
import { RETRY_STATUSES } from '../src/core/retry-timing.js';
import { parseRetryAfterMs } from '../src/errors/api.js';

// The timing the SDK hands to ky's retry (DESIGN "defaults", "what is retried"); the backoff itself is ky's, seen in test/defaults.test.ts.

describe('backoff before a retry', () => {
  it('reads Retry-After as seconds or as an HTTP date against the given clock', () => {
    const now = Date.UTC(2030, 0, 1);
    expect(parseRetryAfterMs('2', now)).toBe(2000);
    expect(parseRetryAfterMs(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfterMs(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfterMs(new Date(now - 7000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    // Date.parse reads these as days of 2001; they are neither delay-seconds nor an HTTP date.
    for (const odd of ['-3', '+5', '.5', '3.', '1e3']) expect(parseRetryAfterMs(odd, now), odd).toBeUndefined();
    expect(parseRetryAfterMs('Tue, 01 Jan 2030 00:00:09 GMT', now)).toBe(9000);
  });

  it('retries 408, 429 and every 5xx, and nothing else', () => {
    expect(RETRY_STATUSES).toEqual(expect.arrayContaining([408, 429, 500, 503, 599]));
    for (const status of [400, 401, 403, 404, 409, 413, 422, 499, 600]) expect(RETRY_STATUSES).not.toContain(status);
  });
});
