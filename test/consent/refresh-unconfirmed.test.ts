import { describe, expect, it } from 'vitest';
import { type ConsentEndedError, OpenBanking, type TokenSet } from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxFault } from '../../src/testing.js';

// One process, no fleet: a refresh grant that was sent and got no answer saying how it ended may
// have rotated the refresh token at the provider. The session ends (refresh_unconfirmed), every
// session of the client holding that token ends with it (onConsentEnded once each), and the
// token is never sent again; the sandbox counts every grant per refresh token. Only a grant that
// provably did not rotate it (connection refused, 429, a well-formed OAuth refusal) is tried again.

const APP = { clientId: 'unconfirmed-app', clientSecret: 'unconfirmed-secret-0123456789' };
const GRANT = { path: '/oauth/token', method: 'POST' } as const;

function setup(fetchFor?: (sandbox: Sandbox) => typeof fetch) {
  const sandbox = createSandbox({ clients: [APP], seed: 'unconfirmed' });
  const ob = new OpenBanking({ ...APP, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: fetchFor?.(sandbox) ?? sandbox, logLevel: 'off', retryDelay: 0, sleep: async () => undefined });
  const tokens: TokenSet = { ...sandbox.issueTokens({ clientId: APP.clientId, scope: ['customers.readonly'], kind: 'customer' }), expires_at: Math.floor(Date.now() / 1000) - 10 };
  const session = (endings: string[]) => ob.forCustomer(tokens, { onConsentEnded: (e) => void endings.push(e.reason) });
  return { sandbox, ob, tokens, session };
}

const settle = (promise: Promise<unknown>): Promise<{ value?: unknown; error?: ConsentEndedError }> => promise.then((value) => ({ value }), (error: unknown) => ({ error: error as ConsentEndedError }));

describe('a refresh grant whose answer was lost or cut after the provider rotated the token (one process, no fleet)', () => {
  const faults: [string, SandboxFault][] = [
    ['the answer lost after the provider rotated (connection dropped)', { type: 'drop', when: 'after' }],
    ['the answer cut off half-way after the provider rotated', { type: 'truncate' }],
  ];
  for (const [name, fault] of faults) {
    it(`${name}: both sessions holding the token end (refresh_unconfirmed, onConsentEnded once each), and the token was sent once`, async () => {
      const { sandbox, tokens, session } = setup();
      const [first, second] = [[], []] as string[][];
      const a = session(first!);
      const b = session(second!);
      sandbox.faults.inject({ ...GRANT, fault });

      const waiting = await Promise.all(Array.from({ length: 5 }, () => settle(a.customers.retrieve())));
      // Later calls of either session reject unsent: the token may be spent at the provider.
      const later = [await settle(a.customers.retrieve()), await settle(b.customers.retrieve()), await settle(b.refresh())];
      expect(sandbox.requests.refreshGrants(tokens.refresh_token!)).toBe(1);
      expect(sandbox.requests.count(GRANT)).toBe(1);
      for (const result of [...waiting, ...later]) expect(result).toMatchObject({ error: { name: 'ConsentEndedError', reason: 'refresh_unconfirmed' } });
      expect(first).toEqual(['refresh_unconfirmed']);
      expect(second).toEqual(['refresh_unconfirmed']);
      expect([a.consent.state, b.consent.state]).toEqual(['ended', 'ended']);
    });
  }
});

describe('which answers give the claim up (the token is tried again) and which end the session', () => {
  /** The failed grant's answer, and whether it provably left the token unspent. */
  const answers: [string, SandboxFault | 'refused', 'retried' | 'ended'][] = [
    ['connection refused before the request was written', 'refused', 'retried'],
    ['429', { type: 'status', status: 429, retryAfter: 1 }, 'retried'],
    ['400 invalid_request (a well-formed OAuth error)', { type: 'response', status: 400, body: { error: 'invalid_request' } }, 'retried'],
    ['401 invalid_client (a well-formed OAuth error)', { type: 'response', status: 401, body: { error: 'invalid_client' } }, 'retried'],
    ['502 before it could', { type: 'status', status: 502 }, 'ended'],
    ['503 with an OAuth error body', { type: 'response', status: 503, body: { error: 'temporarily_unavailable' } }, 'ended'],
    ['200 with token_type MAC', { type: 'response', status: 200, body: { access_token: 'mac-token-0001', token_type: 'MAC', expires_in: 3600 } }, 'ended'],
    ['200 with an HTML page, after the provider rotated', { type: 'html' }, 'ended'],
    ['a redirect', { type: 'response', status: 302, headers: { location: 'https://elsewhere.example/' } }, 'ended'],
    ['the connection dropped before the request ran', { type: 'drop' }, 'ended'],
  ];

  it('only a grant that provably did not rotate the token gives the claim up: connection refused, 429, a well-formed OAuth refusal; every other answer ends the session and the token is sent once', async () => {
    const seen: Record<string, string> = {};
    const wanted: Record<string, string> = {};
    for (const [name, fault, expected] of answers) {
      let refuse = fault === 'refused';
      const refused = () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) }));
      const { sandbox, tokens, session } = setup((sandbox) => (input, init) => (refuse && new Request(input, init).url.includes('/oauth/') ? ((refuse = false), refused()) : sandbox(input, init)));
      if (fault !== 'refused') sandbox.faults.inject({ ...GRANT, fault });
      const endings: string[] = [];
      const first = await settle(session(endings).customers.retrieve());
      // A second session holding the same tokens: it redeems them only if the claim was given up.
      const second = await settle(session(endings).customers.retrieve());
      const grants = sandbox.requests.refreshGrants(tokens.refresh_token!);
      const outcome = (r: { error?: ConsentEndedError }) => (r.error === undefined ? 'ok' : `${r.error.name}${r.error.reason ? ` ${r.error.reason}` : ''}`);
      seen[name] = `${outcome(first)}; then ${outcome(second)}; sent ${grants}×; ended ${endings.join(',') || 'never'}`;
      wanted[name] =
        expected === 'retried'
          ? `${fault === 'refused' ? 'ConnectionError' : 'OAuthError'}; then ok; sent ${fault === 'refused' ? 1 : 2}×; ended never`
          : 'ConsentEndedError refresh_unconfirmed; then ConsentEndedError refresh_unconfirmed; sent 1×; ended refresh_unconfirmed,refresh_unconfirmed';
    }
    expect(seen).toEqual(wanted);
  });
});
