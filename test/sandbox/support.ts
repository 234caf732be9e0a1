import { createHash } from 'node:crypto';
import { OpenBanking, type ClientOptions } from '../../src/index.js';
import type { SandboxClient, SandboxControls } from '../../src/testing.js';
import { validCard } from '../support/cards.js';
import { skipRetryWaits } from '../support/retry-waits.js';

export { validCard };

/** The SDK client for `app` against `sandbox`, recording every wait (retries' and the `sleep` option's) and never waiting. */
export function clientFor(sandbox: Pick<SandboxControls, 'baseUrl' | 'authUrl'>, app: Pick<SandboxClient, 'clientId' | 'clientSecret'>, overrides: Partial<ClientOptions> = {}) {
  const sleeps: number[] = [];
  const ob = new OpenBanking({
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    logLevel: 'off',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  skipRetryWaits(ob, sleeps);
  return { ob, sleeps };
}

export const sha256 = (input: string, encoding: 'hex' | 'base64' = 'hex') => createHash('sha256').update(input, 'utf8').digest(encoding);

/** A client-credentials token straight from the sandbox's token endpoint. */
export async function tokenFor(fetcher: typeof fetch, authUrl: string, app: Pick<SandboxClient, 'clientId' | 'clientSecret'>, scope: string): Promise<string> {
  const response = await fetcher(`${authUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret, scope }),
  });
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}

/** A `POST /cards` by hand, with exactly the headers given. */
export async function postCard(fetcher: typeof fetch, baseUrl: string, headers: Record<string, string>, body: unknown = validCard()) {
  const response = await fetcher(`${baseUrl}/cards`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Headers of a correctly signed API call. */
export function signed(token: string, secret: string, key: string, encoding: 'hex' | 'base64' = 'hex'): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'idempotency-key': key, signature: sha256(`${secret};${key}`, encoding) };
}
