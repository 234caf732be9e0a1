import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOpenBankingError, OpenBanking } from '../../src/index.js';
import { startSandboxServer, type SandboxFault, type SandboxServer } from '../../src/testing.js';
import { capturingLogger, SANDBOX_SECRET_PATTERNS, sweep } from '../support/leaks.js';
import { table, validCard } from './support.js';

// Sentinels: values the SDK handles on the OAuth flows and must never print or throw.
const S = {
  secret: 'sec_OAUTH_SENTINEL_83d1f0',
  password: 'pw_OAUTH_SENTINEL_27c9e4',
  verifier: `cv_OAUTH_SENTINEL_${'v'.repeat(30)}`,
  pin: '48201937',
};
/** The sandbox's own secrets: tokens, codes, device codes and the secrets it issues on registration. */
const PATTERNS = [...SANDBOX_SECRET_PATTERNS, /req_id_[0-9A-Za-z]{8}/, /sbx_secret_[0-9A-Za-z]{8}/];
const REDIRECT = 'https://app.example/callback';

/** Every fault an identity endpoint can throw at a flow, and none. */
const FAULTS: Array<[string, SandboxFault | undefined]> = [
  ['none', undefined],
  ['status 500', { type: 'status', status: 500 }],
  ['HTML 502', { type: 'html', status: 502 }],
  ['cut-off JSON', { type: 'malformed-json' }],
  ['HTML on 200', { type: 'html' }],
  ['empty body', { type: 'empty' }],
  ['drop', { type: 'drop' }],
  ['drop after', { type: 'drop', when: 'after' }],
  ['truncated', { type: 'truncate' }],
  ['invalid_client', { type: 'response', status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } }],
];

describe('no secret of the OAuth flows reaches a log line or an error, at debug, under every fault', () => {
  let server: SandboxServer;
  const { logger, lines } = capturingLogger();
  const thrown: unknown[] = [];
  const rows: Array<Record<string, string | number>> = [];
  let scenarios = 0;

  beforeAll(async () => {
    server = await startSandboxServer({ seed: 'oauth-secrets', clients: [{ clientId: 'oauth-app', clientSecret: S.secret, redirectUris: [REDIRECT] }] });
  });
  afterAll(async () => {
    await server.close();
    console.log(`OAuth secrets (flows × faults, at debug):\n${table(rows)}\nOAuth secrets: scenarios ${scenarios}, errors inspected ${thrown.length}, log lines ${lines.length / 3}`);
  });

  const client = (environment: 'sandbox' | 'production' = 'sandbox') =>
    new OpenBanking({ clientId: 'oauth-app', clientSecret: S.secret, baseUrl: server.baseUrl, authUrl: server.authUrl, environment, logger, logLevel: 'debug', retryDelay: 0, sleep: async () => undefined, redirectUri: REDIRECT });

  /** Each flow reaches the faulted endpoint once `inject` is called (after any set-up it needs). */
  const flows: Array<{ name: string; path: string; method?: string; run: (n: number, inject: () => void) => Promise<unknown> }> = [
    {
      name: 'exchangeCode',
      path: '/oauth/token',
      async run(_, inject) {
        const ob = client();
        const { url } = await ob.auth.authorizationUrl({ scope: ['accounts'], codeVerifier: S.verifier });
        const code = new URL(await server.consent(url)).searchParams.get('code')!;
        inject();
        return ob.auth.exchangeCode({ code, codeVerifier: S.verifier });
      },
    },
    {
      name: 'refresh',
      path: '/oauth/token',
      run(_, inject) {
        const tokens = server.issueTokens({ clientId: 'oauth-app', scope: ['accounts'] });
        inject();
        return client().auth.refresh(tokens.refresh_token!);
      },
    },
    {
      name: 'customer session: refresh, then call',
      path: '/oauth/token',
      run(_, inject) {
        const tokens = server.issueTokens({ clientId: 'oauth-app', scope: ['cards.create'] });
        const customer = client().forCustomer({ ...tokens, expires_at: Math.floor(Date.now() / 1000) - 1 });
        inject();
        return customer.request({ method: 'POST', path: '/cards', body: validCard({ card_default_pin: S.pin }) });
      },
    },
    {
      name: 'clientCredentials',
      path: '/oauth2/token',
      run(_, inject) {
        inject();
        return client().auth.clientCredentials(['cards.create']);
      },
    },
    {
      name: 'cards.create (its token)',
      path: '/oauth2/token',
      run(_, inject) {
        inject();
        return client().cards.create(validCard({ card_default_pin: S.pin }));
      },
    },
    {
      name: 'deviceCode',
      path: '/oauth2/device/code',
      run(_, inject) {
        inject();
        return client().auth.deviceCode(['accounts']);
      },
    },
    {
      name: 'pollDeviceToken',
      path: '/oauth2/token',
      async run(_, inject) {
        const ob = client();
        const device = await ob.auth.deviceCode(['accounts']);
        server.approveDeviceCode(device.user_code);
        inject();
        return ob.auth.pollDeviceToken(device.device_code, { interval: 0 });
      },
    },
    {
      name: 'register',
      path: '/dcr',
      run(n, inject) {
        inject();
        return OpenBanking.register({ authUrl: server.authUrl, username: `oauth-user-${n}`, password: S.password, app_name: 'Secrets', redirect_url: REDIRECT });
      },
    },
    {
      name: 'fetchRegistration',
      path: '/dcr',
      method: 'GET',
      async run(n, inject) {
        const username = `oauth-fetch-${n}`;
        await OpenBanking.register({ authUrl: server.authUrl, username, password: S.password, app_name: 'Secrets', redirect_url: REDIRECT });
        inject();
        return OpenBanking.fetchRegistration({ authUrl: server.authUrl, username, password: S.password });
      },
    },
  ];

  for (const flow of flows) {
    it(flow.name, async () => {
      const outcomes: string[] = [];
      const logged = lines.length;
      const errors: unknown[] = [];
      for (const [, fault] of FAULTS) {
        scenarios++;
        server.faults.clear();
        const inject = () => {
          if (fault) server.faults.inject({ path: flow.path, ...(flow.method ? { method: flow.method } : {}), fault });
        };
        const result = await flow.run(scenarios, inject).catch((e: unknown) => e);
        if (result instanceof Error || isOpenBankingError(result)) {
          // Every failure is the SDK's own, typed.
          expect(isOpenBankingError(result), `${flow.name}: ${String(result)}`).toBe(true);
          errors.push(result);
          outcomes.push((result as Error).name);
        } else outcomes.push('ok');
      }
      const row = Object.fromEntries(FAULTS.map(([label], i) => [label, outcomes[i]!]));
      rows.push({ flow: flow.name, ...row });
      expect(row.none).toBe('ok');
      // A connection that closed, before or during the answer, is a ConnectionError on every flow; a
      // customer session's refresh may have spent its refresh token then, so the session ends instead.
      const closed = flow.name.startsWith('customer session') ? 'ConsentEndedError' : 'ConnectionError';
      expect([row.drop, row['drop after'], row.truncated]).toEqual([closed, closed, closed]);
      // No secret of this flow in what it logged (at debug) or in any error it threw, under any fault.
      thrown.push(...errors);
      expect(errors.length).toBeGreaterThan(0);
      expect(sweep(lines.slice(logged), errors, Object.values(S), PATTERNS)).toEqual([]);
    });
  }
});
