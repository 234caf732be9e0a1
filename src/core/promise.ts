// What every API method returns: the data-resolving promise with `.withResponse()`, and the paged
// promise that iterates every item of every page.

/** The `{status, message, data}` envelope as the server sent it. @group Client */
export interface Envelope<Data> {
  /** ISO 8583-style response code (`'00'`) or `'success'`. */
  status: string;
  /** Human-readable text; never branch on it (pages reuse each other's messages). */
  message: string;
  /** The operation's result. */
  data: Data;
  /** Members the service may add. */
  [extra: string]: unknown;
}

/**
 * Everything about one call's answer: the validated `data`, the envelope as sent, the fetch
 * `Response` and the idempotency key that was used.
 * @group Client
 */
export interface WithResponse<Data> {
  /** The validated `data`, secret fields decrypted: what the promise itself resolves to. */
  data: Data;
  /** The parsed `{status, message, data}` as the server sent it (undefined for bodies without one). */
  envelope: Envelope<Data> | undefined;
  /** The fetch `Response` of the final attempt (its body already read). */
  response: Response;
  /** The idempotency key every attempt carried. */
  idempotencyKey: string;
}

/**
 * The promise every API method returns: it resolves to `data`, and `.withResponse()` gives the
 * envelope, the `Response` and the idempotency key as well.
 * @group Client
 */
export interface APIPromise<Data> extends Promise<Data> {
  /** Resolves to `{ data, envelope, response, idempotencyKey }`. */
  withResponse(): Promise<WithResponse<Data>>;
}

/**
 * What a paged operation returns: awaiting it gives the first page's `data` (and `.withResponse()`
 * its envelope and `Response`), `for await` over it yields **every item of every page**, and
 * `.pages()` yields each page's `data`. Each page is its own logical call (its own idempotency key,
 * signature and retries). Iteration stops after the last page (`summary.pages`), on an empty page,
 * or after 1,000 pages (a safety cap); an error on any page rejects the iteration and no later page is asked for.
 *
 * @example
 * ```ts
 * declare const session: import('openbanking-ng').CustomerSession;
 * for await (const tx of session.accounts.transactions.list('0123456789', { from: '2024-01-01', to: '2024-01-31' })) {
 *   console.log(tx.reference, tx.amount);
 * }
 * ```
 * @group Client
 */
export interface PagePromise<Page, Item> extends APIPromise<Page>, AsyncIterable<Item> {
  /** Yields each page's `data`, from the first page asked for to the last. */
  pages(): AsyncIterableIterator<Page>;
}

/** How many pages an iteration follows at most, whatever `summary.pages` says. */
export const MAX_PAGES = 1_000;

/** How to walk a paged operation. */
export interface Paging<Page, Item> {
  /** The page number of the first call. */
  first: number;
  /** Sends the call for page `n` (a new logical call each time). */
  fetch(page: number, isFirst: boolean): Promise<WithResponse<Page>>;
  /** The items of a page. */
  items(page: Page): readonly Item[];
  /** How many pages there are, as the page says; undefined when it does not say. */
  total(page: Page): number | undefined;
}

/** `summary.pages` as a positive integer (a numeric string is read as a number), or undefined. */
export function summaryPages(page: unknown): number | undefined {
  const pages = (page as { summary?: { pages?: unknown } } | null | undefined)?.summary?.pages;
  const n = typeof pages === 'string' && pages.trim() !== '' ? Number(pages) : pages;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
