import { describe, expect, it } from 'vitest';
import { OpenBankingError } from '../../src/index.js';
import { AUTH, http, HttpResponse, SECRET, testClient, useMsw } from '../support/msw.js';

// Every grant reads the token endpoint's answer through oauth4webapi: a token set, or an
// OAuthError with the code and status the answer stands for (RFC 6749 §5.1, §5.2, RFC 6750 §3),
// never a secret in the error. Each answer goes to the client-credentials grant (the one behind
// every API call) and to the refresh grant.

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => () =>
  new HttpResponse(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const raw = (body: string | null, status: number, headers: Record<string, string> = {}) => () => new HttpResponse(body, { status, headers });
const good = { access_token: 'access-1', token_type: 'Bearer', expires_in: 3600, scope: 'accounts' };

const answers: Array<[string, () => Response, Expected]> = [
  ['a complete answer', json(good), { tokens: { access_token: 'access-1', token_type: 'Bearer', expires_in: 3600, scope: 'accounts' } }],
  ['a lower-case bearer type', json({ ...good, token_type: 'bearer' }), { tokens: { token_type: 'Bearer' } }],
  ['a DPoP type', json({ ...good, token_type: 'DPoP' }), { tokens: { token_type: 'dpop' } }],
  ['expires_in as a numeric string', json({ ...good, expires_in: '1800' }), { tokens: { expires_in: 1800 } }],
  ['no expires_in (an hour assumed)', json({ access_token: 'a', token_type: 'Bearer' }), { tokens: { expires_in: 3600 } }],
  ['a parameter content type', json(good, 200, { 'content-type': 'application/json; charset=utf-8' }), { tokens: { access_token: 'access-1' } }],
  ['an unknown token type', json({ ...good, token_type: 'mac' }), { error: 'server_error' }],
  ['no access_token', json({ token_type: 'Bearer', expires_in: 60 }), { error: 'server_error' }],
  ['an empty access_token', json({ ...good, access_token: '' }), { error: 'server_error' }],
  ['no token_type', json({ access_token: 'a' }), { error: 'server_error' }],
  ['a negative expires_in', json({ ...good, expires_in: -5 }), { error: 'server_error' }],
  ['a non-numeric expires_in', json({ ...good, expires_in: 'soon' }), { error: 'server_error' }],
  ['a numeric scope', json({ ...good, scope: 7 }), { error: 'server_error' }],
  ['an empty refresh_token', json({ ...good, refresh_token: '' }), { error: 'server_error' }],
  ['a JSON array', json([good]), { error: 'server_error' }],
  ['null', json(null), { error: 'server_error' }],
  ['broken JSON declared as JSON', raw('{"access_token":', 200, { 'content-type': 'application/json' }), { error: 'server_error' }],
  ['an empty body declared as JSON', raw('', 200, { 'content-type': 'application/json' }), { error: 'server_error' }],
  ['an HTML page with 200', raw('<html>ok</html>', 200, { 'content-type': 'text/html' }), { error: 'server_error', status: 200 }],
  ['a token set with 201', json(good, 201), { error: 'server_error', status: 201 }],
  ['an OAuth error body', json({ error: 'invalid_scope', error_description: 'no such scope' }, 400), { error: 'invalid_scope', status: 400 }],
  ['an OAuth error body with 401', json({ error: 'invalid_client' }, 401), { error: 'invalid_client', status: 401 }],
  ['an OAuth error body not declared as JSON', raw('{"error":"invalid_scope"}', 400, { 'content-type': 'text/plain' }), { error: 'server_error', status: 400 }],
  ['an empty error code', json({ error: '' }, 400), { error: 'server_error', status: 400 }],
  ['an OAuth error body with 500', json({ error: 'temporarily_unavailable' }, 500), { error: 'server_error', status: 500 }],
  ['an HTML 502', raw('<html>bad gateway</html>', 502, { 'content-type': 'text/html' }), { error: 'server_error', status: 502 }],
  ['a challenge with an error', raw(null, 401, { 'www-authenticate': 'Basic realm="x", error="invalid_client", error_description="bad secret"' }), { error: 'invalid_client', status: 401 }],
  ['a challenge without an error', raw(null, 401, { 'www-authenticate': 'Bearer realm="identity"' }), { error: 'invalid_client', status: 401 }],
  ['a quoted escape in a challenge', raw(null, 401, { 'www-authenticate': 'Bearer error="invalid_\\"token"' }), { error: 'invalid_"token', status: 401 }],
  ['a challenge before an error body', raw('{"error":"invalid_grant"}', 400, { 'www-authenticate': 'Basic error="invalid_client"', 'content-type': 'application/json' }), { error: 'invalid_client', status: 400 }],
  ['a redirect', raw(null, 302, { location: 'https://elsewhere.example/' }), { error: 'unexpected_redirect', status: 302 }],
];

interface Expected {
  tokens?: Record<string, unknown>;
  error?: string;
  status?: number;
}

type Outcome = { tokens: Record<string, unknown> } | { name: string; error: unknown; status: unknown };

async function outcome(grant: Promise<Record<string, unknown>>): Promise<Outcome> {
  try {
    const { access_token, token_type, expires_in, scope } = await grant;
    return { tokens: { access_token, token_type, expires_in, scope } };
  } catch (error) {
    expect(error).toBeInstanceOf(OpenBankingError);
    expect(JSON.stringify(error)).not.toContain(SECRET);
    const e = error as { name: string; error?: unknown; status?: unknown };
    return { name: e.name, error: e.error, status: e.status };
  }
}

const server = useMsw();

describe('token endpoint answers, read by oauth4webapi for every grant', () => {
  it.each(answers)('%s', async (_name, answer, expected) => {
    server.use(http.post(`${AUTH}/oauth2/token`, answer), http.post(`${AUTH}/oauth/token`, answer));
    const { ob } = testClient();
    for (const grant of [ob.auth.clientCredentials(['accounts']), ob.auth.refresh('refresh-0')]) {
      const result = await outcome(grant as unknown as Promise<Record<string, unknown>>);
      if (expected.tokens) expect(result).toMatchObject({ tokens: expected.tokens });
      else expect(result).toMatchObject({ name: 'OAuthError', error: expected.error, ...(expected.status ? { status: expected.status } : {}) });
    }
  });

  it('sends the client-credentials form with client_secret_post and asks for JSON', async () => {
    const seen: Request[] = [];
    server.use(http.post(`${AUTH}/oauth2/token`, ({ request }) => (seen.push(request.clone()), json(good)())));
    const { ob } = testClient();
    await ob.auth.clientCredentials(['accounts', 'cards.create']);
    const request = seen[0]!;
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(request.headers.get('authorization')).toBeNull();
    expect(Object.fromEntries(new URLSearchParams(await request.text()))).toEqual({
      scope: 'accounts cards.create',
      grant_type: 'client_credentials',
      client_id: 'client-abc',
      client_secret: SECRET,
    });
  });
});
