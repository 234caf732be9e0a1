/**
 * The sandbox's answers, in the shapes the spec gives: the `{status, message, data}` envelope and
 * error bodies for the API, RFC 6749 JSON for OAuth, HTML for pages a person sees. No answer ever
 * repeats a secret the request carried.
 */

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

/** A successful API answer: the `{status: '00', message, data}` envelope. */
export function ok(message: string, data: unknown, status = 200): Response {
  return json(status, { status: '00', message, data });
}

/**
 * The ISO 8583-style `status` code the sandbox writes into an error body for an HTTP status:
 * the spec gives 01 (400), 02 (401), 03 (403) and 05 (500); it shows no body for 404 and 429,
 * for which the sandbox uses 04 and 91.
 */
export function responseCodeFor(httpStatus: number): string {
  switch (httpStatus) {
    case 400:
      return '01';
    case 401:
      return '02';
    case 403:
      return '03';
    case 404:
    case 405:
      return '04';
    case 429:
      return '91';
    default:
      return httpStatus >= 500 ? '05' : '96';
  }
}

/** An API error with the spec's body: `{status, message, data}`, plus `error_code` on a 400. */
export function apiError(
  httpStatus: number,
  message: string,
  options: { errorCode?: string; data?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Response {
  const body: Record<string, unknown> = { status: responseCodeFor(httpStatus) };
  if (options.errorCode !== undefined) body.error_code = options.errorCode;
  body.message = message;
  body.data = options.data ?? {};
  return json(httpStatus, body, options.headers);
}

/** 400 with `error_code` and the field it is about. */
export function badRequest(errorCode: string, message: string, field?: string): Response {
  return apiError(400, message, { errorCode, data: field === undefined ? {} : { field } });
}

/** 404 for a path the sandbox does not serve. */
export function notFound(method: string, path: string, hint?: string): Response {
  return apiError(404, `No route for ${method} ${path}${hint ? ` (${hint})` : ''}`);
}

/** 405 with the `Allow` header. */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): Response {
  return apiError(405, `${method} is not allowed on ${path}`, { data: { allowed: [...allowed] }, headers: { allow: allowed.join(', ') } });
}

/** 429 with `Retry-After` (seconds) when given. */
export function tooManyRequests(retryAfter: number | string | undefined, message = 'Too many requests: rate limit exceeded'): Response {
  const headers: Record<string, string> = {};
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  return apiError(429, message, { headers, data: typeof retryAfter === 'number' ? { retry_after: retryAfter } : {} });
}

/** An RFC 6749 §5.2 error from a token-like endpoint. `Cache-Control: no-store` as the RFC asks. */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return json(status, { error, error_description: description }, { 'cache-control': 'no-store', pragma: 'no-cache', ...headers });
}

/** A token response oauth4webapi accepts: JSON, `token_type: 'Bearer'`, `expires_in`, `scope`. */
export function tokenResponse(body: { access_token: string; expires_in: number; scope: string; refresh_token?: string }): Response {
  const out: Record<string, unknown> = { access_token: body.access_token, token_type: 'Bearer', expires_in: body.expires_in };
  if (body.refresh_token !== undefined) out.refresh_token = body.refresh_token;
  out.scope = body.scope;
  return json(200, out, { 'cache-control': 'no-store', pragma: 'no-cache' });
}

/** A redirect (303 See Other after a form, 302 after a GET) to `location`. */
export function redirect(location: string, status: 302 | 303 = 302): Response {
  return new Response(null, { status, headers: { location, 'cache-control': 'no-store' } });
}

/** An HTML page a browser shows; framing refused, nothing cached, no scripts. */
export function htmlPage(status: number, page: string): Response {
  return new Response(page, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
    },
  });
}
