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

/** Wraps a full result as an {@link APIPromise}. */
export function makeAPIPromise<Data>(full: Promise<WithResponse<Data>>): APIPromise<Data> {
  const promise = full.then((result) => result.data) as APIPromise<Data>;
  promise.withResponse = () => {
    // The caller reads the full result; the data-only promise must not report an unhandled rejection.
    promise.catch(() => undefined);
    return full;
  };
  return promise;
}
