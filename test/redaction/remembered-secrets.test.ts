import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type ApiError, isApiError, OpenBanking, type TokenSet } from '../../src/index.js';
import { redactionWork } from '../../src/errors/redact.js';
import { echoKit } from '../support/leak-clients.js';
import { surfaces } from '../support/leaks.js';
import { AUTH, BASE, http, HttpResponse, useMsw, validCard } from '../support/msw.js';

// What a client remembers to mask belongs to it and its sessions, for as long as they live: no
// number of other clients, sessions or logins in the process evicts a client secret, and a call
// masks its own bearer token and its client's secret whatever else is remembered. (Before, one
// process-wide memory of 64 secrets and 512 tokens was shared by every client: each code verifier
// took a secret's slot, each session's tokens a token's slot.)

const SECRET = 'client-secret-SENTINEL-7c1e55aa';
const REDIRECT = 'https://app.example/callback';
const server = useMsw();

const client = (clientSecret = SECRET, clientId = 'memory-app') =>
  new OpenBanking({ clientId, clientSecret, baseUrl: BASE, authUrl: AUTH, retryDelay: 0, sleep: async () => undefined, logLevel: 'off' });

/** Everything a user could print of an error: message, stack, JSON, util.inspect, causes. */
const printed = (error: unknown) => [...surfaces(error), inspect(error, { depth: 50 }), JSON.stringify(error)].join('\n');

const tokenOk = http.post(`${AUTH}/oauth2/token`, () => HttpResponse.json({ access_token: 'memory-client-access-0001', token_type: 'Bearer', expires_in: 3600, scope: 'cards.create' }));
/** The API refuses a card and quotes, in its message, data and raw body, what it was told. */
const cardsQuoting = (quoted: () => string) =>
  http.post(`${BASE}/cards`, () => HttpResponse.json({ status: '01', message: `refused: ${quoted()} is not allowed here`, data: { echo: `seen ${quoted()}` } }, { status: 400 }));

describe('a client secret stays masked, whatever else the process remembers', () => {
  it('after 65 logins (code exchanges, each with its code verifier), util.inspect of an ApiError quoting the client secret does not show it', async () => {
    server.use(tokenOk, cardsQuoting(() => SECRET), http.post(`${AUTH}/oauth/token`, () => HttpResponse.json({ error: 'invalid_grant' }, { status: 400 })));
    const ob = client();
    for (let i = 0; i < 65; i++) {
      const codeVerifier = `login-${String(i).padStart(3, '0')}-verifier-${'v'.repeat(40)}`;
      await ob.auth.exchangeCode({ code: `login-code-${i}-abcdefgh`, codeVerifier, redirectUri: REDIRECT }).catch(() => undefined);
    }
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
    expect(isApiError(error)).toBe(true);
    expect(error.message).toContain('[REDACTED]');
    expect(printed(error)).not.toContain(SECRET);
  });

  it('with 100 other clients in the process (other secrets), the first client’s secret is still masked in its own errors', async () => {
    server.use(tokenOk, cardsQuoting(() => SECRET));
    const ob = client();
    const others = Array.from({ length: 100 }, (_, i) => client(`other-client-secret-${i}-0123456789`, `other-app-${i}`));
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
    expect(isApiError(error)).toBe(true);
    expect(printed(error)).not.toContain(SECRET);
    expect(others).toHaveLength(100); // still alive: they remember their own secrets meanwhile
  });
});

describe('a customer session’s tokens stay masked while it lives, whatever the number of other customers', () => {
  it('with 300 other customers in the process, customer 0’s own ApiError quoting its access and refresh tokens shows neither', async () => {
    const later = Math.floor(Date.now() / 1000) + 3600;
    const tokensOf = (n: number): TokenSet => ({ access_token: `customer-${n}-access-token-0123`, refresh_token: `customer-${n}-refresh-token-4567`, token_type: 'Bearer', expires_in: 3600, expires_at: later });
    server.use(
      http.get(`${BASE}/accounts`, ({ request }) => {
        const bearer = (request.headers.get('authorization') ?? '').replace(/^Bearer /, '');
        return HttpResponse.json({ status: '02', message: `token ${bearer} (refresh ${tokensOf(0).refresh_token}) has no consent`, data: {} }, { status: 403 });
      }),
    );
    const ob = client();
    const customer0 = ob.forCustomer(tokensOf(0));
    const others = Array.from({ length: 300 }, (_, i) => ob.forCustomer(tokensOf(i + 1)));
    const error = (await customer0.request({ method: 'GET', path: '/accounts' }).catch((e: unknown) => e)) as ApiError;
    expect(isApiError(error)).toBe(true);
    expect(error.status).toBe(403);
    const out = printed(error);
    expect(out).toContain('[REDACTED]');
    expect(out).not.toContain(tokensOf(0).access_token);
    expect(out).not.toContain(tokensOf(0).refresh_token);
    expect(others).toHaveLength(300);
  });
});

describe('remembering more costs no more: one pass, one probe per distinct length', () => {
  it('an answer quoting, 2,000 times, the prefix every remembered token shares costs as many comparisons with 2,000 tokens remembered as with 20', async () => {
    const later = Math.floor(Date.now() / 1000) + 3600;
    const jwt = (n: number) => `eyJhbGciOiJIUzI1NiJ9.${String(n).padStart(6, '0')}.signature`;
    const body = JSON.stringify({ status: '01', message: 'bad', data: { seen: Array.from({ length: 2_000 }, (_, i) => `eyJhbGciOiJIUzI1NiJ9.not-a-token-${i}`) } });
    server.use(tokenOk, http.post(`${BASE}/cards`, () => new HttpResponse(body, { status: 400, headers: { 'content-type': 'application/json' } })));
    const ob = client();
    const work = async () => {
      const before = { ...redactionWork };
      expect(isApiError(await ob.cards.create(validCard()).catch((e: unknown) => e))).toBe(true);
      return redactionWork.comparisons - before.comparisons;
    };
    const sessions = Array.from({ length: 10 }, (_, i) => ob.forCustomer({ access_token: jwt(2 * i), refresh_token: jwt(2 * i + 1), token_type: 'Bearer', expires_in: 3600, expires_at: later }));
    const few = await work();
    for (let i = 10; i < 1_000; i++) sessions.push(ob.forCustomer({ access_token: jwt(2 * i), refresh_token: jwt(2 * i + 1), token_type: 'Bearer', expires_in: 3600, expires_at: later }));
    const many = await work();
    expect(few).toBeGreaterThan(0);
    expect(many).toBeLessThanOrEqual(few + 10);
    expect(sessions).toHaveLength(1_000);
  });
});

describe('redaction costs one pass, whatever the number of remembered secrets', () => {
  // A client and token endpoint of its own (the echo kit's), in place of the file's.
  const { client, tokenOk } = echoKit;
  const bigBody = () => {
    const items = Array.from({ length: 60_000 }, (_, i) => `"short string ${i}"`);
    return `{"status":"01","message":"bad","data":{"items":[${items.join(',')}]}}`;
  };

  async function workOfOneError(ob: OpenBanking): Promise<{ passes: number; comparisons: number }> {
    const before = { ...redactionWork };
    const error = (await ob.cards.create(validCard()).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(400);
    return { passes: redactionWork.passes - before.passes, comparisons: redactionWork.comparisons - before.comparisons };
  }

  it('the same passes and no more comparisons with 1,000 more tokens remembered', async () => {
    const body = bigBody();
    server.use(tokenOk, http.post(`${BASE}/cards`, () => new HttpResponse(body, { status: 400, headers: { 'content-type': 'application/json' } })));
    const ob = client();
    const few = await workOfOneError(ob);
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 1000; i++) ob.forCustomer({ access_token: `remembered-access-token-${i}`, refresh_token: `remembered-refresh-token-${i}`, token_type: 'Bearer', expires_in: 3600, expires_at: now + 3600 });
    const many = await workOfOneError(ob);
    expect(few.passes).toBeGreaterThan(0);
    expect(many.passes).toBe(few.passes);
    // Candidates are compared only where a secret's first characters hash alike: none here.
    expect(many.comparisons).toBeLessThanOrEqual(few.comparisons + 10);
  });
});
