/**
 * What the sandbox does with one request, before a transport turns it into bytes: answer it,
 * cut the connection without an answer, or send the status line and part of the body and then
 * cut the connection.
 */
export type Outcome =
  | { kind: 'respond'; response: Response }
  | { kind: 'drop' }
  | { kind: 'truncate'; response: Response };

/** The error fetch rejects with when the other side closes the connection. */
export function connectionClosedError(): TypeError {
  const cause = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  return new TypeError('fetch failed', { cause });
}

/**
 * A response whose body stops half-way with the error fetch gives for a connection cut while
 * the body was being read.
 */
export async function truncatedResponse(response: Response): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const half = bytes.slice(0, Math.floor(bytes.length / 2));
  let sent = half.length === 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(half);
        return;
      }
      const cause = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
      controller.error(new TypeError('terminated', { cause }));
    },
  });
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
