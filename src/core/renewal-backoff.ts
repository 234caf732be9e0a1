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
