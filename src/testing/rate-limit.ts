/**
 * Token buckets per client, as the service's published limits describe them: `burst` requests
 * may arrive at once, and the bucket refills at `rate` per minute on the sandbox's clock.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; updated: number }>();

  constructor(
    private readonly limits: { rate: number; burst: number },
    private readonly now: () => number,
  ) {}

  /**
   * Takes one request's budget for `key`. Returns undefined when allowed, or the whole seconds
   * to wait (for `Retry-After`) when the bucket is empty.
   */
  take(key: string): number | undefined {
    const now = this.now();
    const { rate, burst } = this.limits;
    const bucket = this.#buckets.get(key) ?? { tokens: burst, updated: now };
    // Multiply before dividing so that whole intervals refill whole tokens exactly (6 000 ms at 10/min is 1).
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.updated) * rate) / 60_000);
    bucket.updated = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1 - 1e-9) {
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      return undefined;
    }
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / rate));
  }

  clear(): void {
    this.#buckets.clear();
  }
}
