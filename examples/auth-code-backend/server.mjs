// A backend for the authorization-code flow with PKCE, on node:http and nothing else.
//
// The default, backend-driven flow (docs/authentication.md): GET /login builds the authorize URL
// with ob.auth.authorizationUrl(), keeps the state and the PKCE verifier here under an HttpOnly
// cookie, and sends the customer to the consent page; GET /callback checks the state against that
// cookie's login, exchanges the code with the client secret and calls the API for the customer.
// Nothing of the flow passes through the page, so no other site can slip its own code in.
//
// The single-page-app variant (`--spa`: examples/spa-pkce, built with esbuild when the server starts): the
// page builds the request itself and posts the code and its verifier to POST /api/exchange, which
// answers only to this origin, with a JSON body and the CSRF token of GET /config.json (login CSRF).
// The tokens stay here, in memory, under an HttpOnly session cookie.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/auth-code-backend/server.mjs         # the backend-driven flow, http://127.0.0.1:3000
//   npm install esbuild                                                              # for the single-page app, bundled on start:
//   node node_modules/openbanking-ng/examples/auth-code-backend/server.mjs --spa
//
// PORT=0 picks a free port; OB_SANDBOX_URL=http://127.0.0.1:4010 uses the sandbox of
// `npx openbanking-ng-sandbox --port 4010` instead of its own. Then open the printed address, press
// "Connect bank" and approve on the sandbox's consent page.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { OpenBanking, isOAuthError, isOpenBankingError } from 'openbanking-ng';
import { parseAuthorizationCallback } from 'openbanking-ng/pkce';
import { startSandboxServer } from 'openbanking-ng/testing';

const HOST = '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
/** What the app asks the customer for: reading their cards. */
const SCOPE = 'cards.list';
/** The page of the backend-driven flow: one link to GET /login. */
const LOGIN_PAGE = '<!DOCTYPE html><meta charset="utf-8"><title>Connect your bank</title><p><a href="/login">Connect bank</a></p>';

/** @typedef {import('openbanking-ng').TokenSet} TokenSet */
/** @typedef {import('node:http').IncomingMessage} IncomingMessage */
/** @typedef {import('node:http').ServerResponse} ServerResponse */

// The identity host and API: a sandbox of our own unless one is given.
const sandbox = process.env.OB_SANDBOX_URL ? undefined : await startSandboxServer();
const sandboxUrl = sandbox?.url ?? process.env.OB_SANDBOX_URL ?? '';

// The single-page app only with --spa: bundling it needs esbuild, which the backend flow does not.
const spa = process.argv.includes('--spa') ? await (await import('../spa-pkce/build.mjs')).buildSpa() : undefined;
const server = createServer((req, res) => {
  route(req, res).catch((error) => {
    console.error('Request failed:', error instanceof Error ? error.message : error);
    if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
    else res.destroy();
  });
});
await new Promise((resolve) => server.listen(PORT, HOST, () => resolve(undefined)));
const address = server.address();
const origin = `http://${HOST}:${typeof address === 'object' && address ? address.port : PORT}`;
const redirectUri = `${origin}/callback`;

// Register the application with its redirect URI (in production this happens once, ahead of time,
// and the credentials come from your secret store).
const registration = await OpenBanking.register({
  authUrl: sandboxUrl,
  username: `my-fintech-${randomUUID()}`,
  password: 'not-a-real-password',
  app_name: 'My Fintech',
  redirect_url: redirectUri,
});
const ob = OpenBanking.fromRegistration(registration, { redirectUri });

// Something for the customer to see: a card created with the application's own token.
await ob.cards.create({
  account_number: '0123456789',
  card_holder_name: 'Ada Obi',
  card_status: 'ACTIVE',
  card_default_pin: '1234',
  card_expiry: { month: '09', year: '2029' },
});

/** Customer token sets by session id. A real app keeps them in its database, encrypted. */
const sessions = new Map(/** @type {[string, TokenSet][]} */ ([]));
/** Logins under way (backend-driven flow): state and verifier by login id, for ten minutes. */
const logins = new Map(/** @type {[string, { state: string; codeVerifier: string; expires: number }][]} */ ([]));
/** CSRF tokens minted here, by the browser session that asked for them (single-page-app flow), for ten minutes. */
const csrfTokens = new Map(/** @type {[string, { token: string; expires: number }][]} */ ([]));

// Production serves this over https (directly, or behind a proxy that says so in X-Forwarded-Proto):
// there every cookie is `Secure` and named `__Host-…` (https only, this host only, Path=/), so no
// plain-http page or sibling subdomain can read or plant it. Plain http is for this local demo only.
/** @param {IncomingMessage} req */
const isHttps = (req) => origin.startsWith('https:') || req.headers['x-forwarded-proto'] === 'https';

/**
 * The name a cookie goes by on this request: `__Host-<name>` over https.
 * @param {IncomingMessage} req
 * @param {string} name
 */
const cookieName = (req, name) => (isHttps(req) ? `__Host-${name}` : name);

/**
 * `Set-Cookie` for `name`: HttpOnly, with `Secure` and the `__Host-` prefix over https (which needs Path=/).
 * @param {IncomingMessage} req
 * @param {string} name
 * @param {string} value
 * @param {string} attributes e.g. 'SameSite=Lax; Path=/callback; Max-Age=600'
 */
function setCookie(req, name, value, attributes) {
  const secure = isHttps(req);
  const attrs = secure ? `${attributes.replace(/Path=[^;]*/, 'Path=/')}; Secure` : attributes;
  return `${cookieName(req, name)}=${value}; HttpOnly; ${attrs}`;
}

/**
 * @param {IncomingMessage} req
 * @param {string} name
 */
function cookie(req, name) {
  const wanted = cookieName(req, name);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === wanted) return value.join('=');
  }
  return undefined;
}
const LOGIN_COOKIE = 'ob_login';

/**
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
async function route(req, res) {
  const { pathname } = new URL(req.url ?? '/', origin);
  if (req.method === 'GET' && pathname === '/login') return login(req, res);
  // The redirect URI serves both variants: a pending backend login (its cookie) is finished here;
  // otherwise the page is the single-page app, which reads the callback itself.
  const pending = pathname === '/callback' ? cookie(req, LOGIN_COOKIE) : undefined;
  if (req.method === 'GET' && pending !== undefined) return callback(req, res, pending);
  if (req.method === 'GET' && (pathname === '/' || pathname === '/callback')) {
    return send(res, 200, 'text/html; charset=utf-8', spa ? await readFile(`${spa.root}index.html`) : LOGIN_PAGE);
  }
  if (req.method === 'GET' && pathname === '/app.js' && spa) {
    return send(res, 200, 'text/javascript; charset=utf-8', await readFile(spa.bundle));
  }
  if (req.method === 'GET' && pathname === '/config.json') {
    // Public settings only: never the client secret. The CSRF token is minted here for a new browser
    // session (never taken from a cookie, which another site could have planted) and kept here; the
    // exchange wants the page to echo it, which a page on another site cannot read.
    const csrfToken = randomUUID();
    const csrfSession = randomUUID();
    csrfTokens.set(csrfSession, { token: csrfToken, expires: Date.now() + 600_000 });
    res.setHeader('set-cookie', setCookie(req, 'csrf_session', csrfSession, 'SameSite=Strict; Path=/; Max-Age=600'));
    return sendJson(res, 200, { authUrl: ob.authUrl, clientId: ob.clientId, redirectUri, scope: SCOPE, csrfToken });
  }
  if (req.method === 'POST' && pathname === '/api/exchange') return exchange(req, res);
  return sendJson(res, 404, { error: 'not_found' });
}

/**
 * GET /login: the backend-driven flow starts here. The state and the verifier never leave the server.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
async function login(req, res) {
  const { url, state, codeVerifier } = await ob.auth.authorizationUrl({ scope: SCOPE });
  const id = randomUUID();
  logins.set(id, { state, codeVerifier, expires: Date.now() + 600_000 });
  // SameSite=Lax: the cookie comes back on the identity host's top-level redirect to /callback.
  res.writeHead(302, { location: url, 'set-cookie': setCookie(req, LOGIN_COOKIE, id, 'SameSite=Lax; Path=/callback; Max-Age=600'), 'cache-control': 'no-store' });
  res.end();
}

/**
 * GET /callback with the login cookie: the state must be the one this browser's login sent.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {string} loginId
 */
async function callback(req, res, loginId) {
  const pending = logins.get(loginId);
  logins.delete(loginId); // one use, whatever happens
  res.setHeader('set-cookie', setCookie(req, LOGIN_COOKIE, '', 'SameSite=Lax; Path=/callback; Max-Age=0'));
  if (!pending || pending.expires < Date.now()) return sendJson(res, 400, { error: 'no_login', description: 'no login in progress in this browser: start again at /login' });
  let code;
  try {
    ({ code } = parseAuthorizationCallback(new URL(req.url ?? '/', origin), { expectedState: pending.state }));
  } catch (error) {
    if (isOAuthError(error)) return sendJson(res, 400, { error: error.error, description: error.errorDescription });
    throw error;
  }
  return connect(req, res, code, pending.codeVerifier);
}

/**
 * POST /api/exchange { code, codeVerifier } (single-page-app variant): the code for the customer's
 * tokens, then a call for the customer with them. Only from this origin, as JSON, with the CSRF token.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
async function exchange(req, res) {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return sendJson(res, 415, { error: 'invalid_request', description: 'the body must be application/json' });
  if (req.headers.origin !== origin) return sendJson(res, 403, { error: 'forbidden', description: 'cross-origin exchange refused' });
  const csrfSession = cookie(req, 'csrf_session');
  const minted = csrfSession === undefined ? undefined : csrfTokens.get(csrfSession);
  if (!minted || minted.expires < Date.now() || req.headers['x-csrf-token'] !== minted.token) {
    return sendJson(res, 403, { error: 'forbidden', description: 'missing or wrong CSRF token' });
  }
  /** @type {{ code?: unknown; codeVerifier?: unknown }} */
  let body;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    return sendJson(res, 400, { error: 'invalid_request', description: 'the body must be JSON' });
  }
  if (typeof body.code !== 'string' || typeof body.codeVerifier !== 'string') {
    return sendJson(res, 400, { error: 'invalid_request', description: 'code and codeVerifier are required' });
  }
  return connect(req, res, body.code, body.codeVerifier);
}

/**
 * The code for the customer's tokens, a session cookie, and a call for the customer.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {string} code
 * @param {string} codeVerifier
 */
async function connect(req, res, code, codeVerifier) {
  try {
    // POST {auth_url}/oauth/token with the client secret, the code, the redirect URI and the verifier.
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier });
    const sessionId = randomUUID();
    sessions.set(sessionId, tokens);

    // Calls for the customer carry their token; it is refreshed when needed and every new set is saved.
    const customer = ob.forCustomer(tokens, { onTokens: (fresh) => void sessions.set(sessionId, fresh) });
    /** @type {{ cards: import('openbanking-ng').Card[] }} */
    const { cards } = await customer.request({ method: 'GET', path: '/cards' });

    res.setHeader('set-cookie', setCookie(req, 'session', sessionId, 'SameSite=Lax; Path=/'));
    return sendJson(res, 200, {
      scope: tokens.scope,
      expiresAt: tokens.expires_at,
      cards: cards.map((card) => ({
        cardId: card.card_id,
        holder: card.card_holder_name ?? '',
        status: card.card_status,
        last4: card.card_number?.slice(-4) ?? '',
      })),
    });
  } catch (error) {
    // A used, expired or unknown code, or a wrong verifier: invalid_grant. Start the consent again.
    if (isOAuthError(error)) return sendJson(res, 400, { error: error.error, description: error.errorDescription });
    if (isOpenBankingError(error)) return sendJson(res, 502, { error: error.name, description: error.message });
    throw error;
  }
}

/** @param {IncomingMessage} req */
async function readBody(req) {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 10_000) throw new Error('body too large');
  }
  return text;
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {string} type
 * @param {string | Uint8Array} body
 */
function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {unknown} value
 */
function sendJson(res, status, value) {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

async function shutdown() {
  server.close();
  server.closeAllConnections();
  await sandbox?.close();
}
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.once(signal, () => void shutdown());

console.log(`My Fintech is listening on ${origin}`);
console.log(`  identity host ${ob.authUrl}, API ${ob.baseUrl}, redirect URI ${redirectUri}`);
console.log(`  Open ${origin}/login to connect through the backend (the default), or ${origin}/ for the single-page app. Ctrl+C stops it.`);
