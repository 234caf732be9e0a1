import { inspect } from 'node:util';
import { OpenBanking } from '../../src/index.js';
import { surfaces } from './leaks.js';
import { AUTH, BASE, http, HttpResponse } from './msw.js';

// Clients of msw's gateway for the tests that make an answer quote secrets back. Each kit has a
// client secret and an access token of its own to look for in what a test prints; the two differ
// in the scope their token grants and in how much of an error `printed` reads.

/** A client of msw's gateway, its secret, a token endpoint that always grants, and what a test reads of an error. */
export interface LeakKit {
  /** The client secret, to look for in what is printed. */
  SECRET: string;
  /** A client of msw's hosts that never waits and logs nothing unless `extra` says so. */
  client: (extra?: Partial<ConstructorParameters<typeof OpenBanking>[0]>) => OpenBanking;
  /** `POST {auth}/oauth2/token` granting the kit's access token. */
  tokenOk: ReturnType<typeof http.post>;
  /** Everything a user could print of an error, as one text. */
  printed: (error: unknown) => string;
}

function leakKit(clientId: string, secret: string, token: { access_token: string; scope: string }, printed: (error: unknown) => string): LeakKit {
  return {
    SECRET: secret,
    client: (extra = {}) =>
      new OpenBanking({ clientId, clientSecret: secret, baseUrl: BASE, authUrl: AUTH, retryDelay: 0, sleep: async () => undefined, logLevel: 'off', ...extra }),
    tokenOk: http.post(`${AUTH}/oauth2/token`, () => HttpResponse.json({ access_token: token.access_token, token_type: 'Bearer', expires_in: 3600, scope: token.scope })),
    printed,
  };
}

/** A token with scope `x`; `printed` is every surface of the error (message, stack, JSON, inspect, causes). */
export const surfacesKit = leakKit('review', 'sec_REVIEW_client_secret_41c2', { access_token: 'tok_REVIEW_access_9d1e', scope: 'x' }, (error) => surfaces(error).join('\n'));

/** A token with scope `cards.create`; `printed` adds `util.inspect` 50 levels deep and `JSON.stringify` to every surface. */
export const echoKit = leakKit(
  'third-review',
  'sec_THIRD_review_client_secret_77b1',
  { access_token: 'tok_THIRD_access_51f0', scope: 'cards.create' },
  (error) => [...surfaces(error), inspect(error, { depth: 50 }), JSON.stringify(error)].join('\n'),
);
