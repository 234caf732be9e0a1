

/** The longest delay a JavaScript timer can hold (2^31 − 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Waits `ms` milliseconds; rejects with the signal's reason if it fires first. @group Client */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The real timer-based sleep of the SDK's own waits (the rate limiter, polling); tests pass their own through the client's `sleep` option. Waits
 * longer than a timer can hold (a rate limiter with `maxWait: Infinity` and a tiny rate) are
 * waited in steps instead of firing at once.
 */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const forever = ms === Infinity;
    let left = forever ? 0 : Math.max(0, ms || 0);
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const step = () => {
      const chunk = forever ? MAX_TIMER_MS : Math.min(left, MAX_TIMER_MS);
      left -= forever ? 0 : chunk;
      timer = setTimeout(() => {
        if (forever || left > 0) return step();
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, chunk);
    };
    step();
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Backoff base: the first retry waits about this long. */
export const BACKOFF_BASE_MS = 500;
/** Backoff ceiling before jitter. */
export const BACKOFF_CAP_MS = 8_000;
/** Share of the delay that jitter may remove. */
export const JITTER = 0.25;

/** Statuses worth another attempt with the same idempotency key: 408, 429 and every 5xx (ky's `retry.statusCodes`). */
export const RETRY_STATUSES: number[] = [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];

/** The first wait after a freshly renewed token was refused (ms). */
export const RENEWAL_BACKOFF_FIRST = 30_000;
/** The longest wait between renewals while fresh tokens keep being refused (ms). */
export const RENEWAL_BACKOFF_MAX = 300_000;

/**
 * How often one token source may renew after 401s. A 401 drops the token, gets a new one and
 * tries once more; when a token obtained by such a renewal is refused too (a wrong
 * `signatureEncoding` or wrong credentials make the server refuse every call), further renewals
 * wait at least 30 s after the last one, doubling up to 5 min while fresh tokens keep being
 * refused. Any success resets it. Calls inside the wait fail with their 401 at once, with the
 * token they have: the storm of token requests (and of rotated refresh tokens) is bounded, and
 * nothing is locked out for longer than the wait.
 */
export class RenewalBackoff {
  /** Fresh tokens refused in a row. */
  #refusals = 0;
  /** When the last renewal started (ms, the client's clock). */
  #lastRenewal = Number.NEGATIVE_INFINITY;
  /** The last refused fresh token: calls that shared one renewal count its refusal once. */
  #lastRefused: string | undefined;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** The wait (ms) between renewals now: 0 until a fresh token has been refused. */
  get wait(): number {
    return this.#refusals === 0 ? 0 : Math.min(RENEWAL_BACKOFF_FIRST * 2 ** (this.#refusals - 1), RENEWAL_BACKOFF_MAX);
  }

  /** True when a fresh token has been refused and the source is inside its wait. */
  get refusing(): boolean {
    return this.#refusals > 0;
  }

  /** True when a renewal may start now; records it as the last one when it may. */
  tryRenew(): boolean {
    const now = this.#now();
    if (this.#refusals > 0 && now - this.#lastRenewal < this.wait) return false;
    this.#lastRenewal = now;
    return true;
  }

  /** `token`, obtained by a renewal, was refused too. */
  freshRefused(token: string): void {
    if (token === this.#lastRefused) return;
    this.#lastRefused = token;
    this.#refusals++;
  }

  /** A call with this source succeeded: renewals are free again. */
  succeeded(): void {
    this.#refusals = 0;
    this.#lastRenewal = Number.NEGATIVE_INFINITY;
    this.#lastRefused = undefined;
  }
}

/** 401 renewals per token source (a customer session's gate counts as the source it wraps): bounded once fresh tokens are refused too. */
export const renewalBackoffs = new WeakMap<object, RenewalBackoff>();

/** The renewal backoff of `bearer`. */
export function renewalBackoff(bearer: { readonly source?: object | undefined }, now: () => number): RenewalBackoff {
  const source = bearer.source ?? bearer;
  let backoff = renewalBackoffs.get(source);
  if (backoff === undefined) renewalBackoffs.set(source, (backoff = new RenewalBackoff(now)));
  return backoff;
}
