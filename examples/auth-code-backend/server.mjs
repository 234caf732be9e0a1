// A backend for the authorization-code flow with PKCE, on node:http and nothing else.
//
// It serves the single-page app of examples/spa-pkce (built with esbuild when the server starts),
// tells it the public settings (GET /config.json), and when the customer comes back from the
// consent page, takes the code and the PKCE verifier from the page (POST /api/exchange),
// exchanges them for the customer's tokens with the client secret, makes a call for the customer
// and answers with the result. The tokens stay here, in memory, under an HttpOnly session cookie.
//
//   node examples/auth-code-backend/server.mjs              # http://127.0.0.1:3000, its own sandbox
//   PORT=0 node examples/auth-code-backend/server.mjs       # a free port
//   OB_SANDBOX_URL=http://127.0.0.1:4010 node examples/auth-code-backend/server.mjs
//                                                           # the sandbox of `npx openbanking-ng-sandbox --port 4010`
//
// Then open the printed address, press "Connect bank" and approve on the sandbox's consent page.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { OpenBanking, isOAuthError, isOpenBankingError } from 'openbanking-ng';
import { startSandboxServer } from 'openbanking-ng/testing';
import { buildSpa } from '../spa-pkce/build.mjs';

const HOST = '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
/** What the app asks the customer for: reading their cards. */
const SCOPE = 'cards.list';

/** @typedef {import('openbanking-ng').TokenSet} TokenSet */
/** @typedef {import('node:http').IncomingMessage} IncomingMessage */
/** @typedef {import('node:http').ServerResponse} ServerResponse */

// The identity host and API: a sandbox of our own unless one is given.
const sandbox = process.env.OB_SANDBOX_URL ? undefined : await startSandboxServer();
const sandboxUrl = sandbox?.url ?? process.env.OB_SANDBOX_URL ?? '';

const spa = await buildSpa();
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

/**
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
async function route(req, res) {
  const { pathname } = new URL(req.url ?? '/', origin);
  if (req.method === 'GET' && (pathname === '/' || pathname === '/callback')) {
    return send(res, 200, 'text/html; charset=utf-8', await readFile(`${spa.root}index.html`));
  }
  if (req.method === 'GET' && pathname === '/app.js') {
    return send(res, 200, 'text/javascript; charset=utf-8', await readFile(spa.bundle));
  }
  if (req.method === 'GET' && pathname === '/config.json') {
    // Public settings only: never the client secret.
    return sendJson(res, 200, { authUrl: ob.authUrl, clientId: ob.clientId, redirectUri, scope: SCOPE });
  }
  if (req.method === 'POST' && pathname === '/api/exchange') return exchange(req, res);
  return sendJson(res, 404, { error: 'not_found' });
}

/**
 * POST /api/exchange { code, codeVerifier }: the code for the customer's tokens, then a call for
 * the customer with them.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
async function exchange(req, res) {
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
  try {
    // POST {auth_url}/oauth/token with the client secret, the code, the redirect URI and the verifier.
    const tokens = await ob.auth.exchangeCode({ code: body.code, codeVerifier: body.codeVerifier });
    const sessionId = randomUUID();
    sessions.set(sessionId, tokens);

    // Calls for the customer carry their token; it is refreshed when needed and every new set is saved.
    const customer = ob.forCustomer(tokens, { onTokens: (fresh) => void sessions.set(sessionId, fresh) });
    /** @type {{ cards: import('openbanking-ng').Card[] }} */
    const { cards } = await customer.request({ method: 'GET', path: '/cards' });

    res.setHeader('set-cookie', `session=${sessionId}; HttpOnly; SameSite=Lax; Path=/`);
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
console.log('  Open it in a browser and press "Connect bank". Ctrl+C stops it.');
