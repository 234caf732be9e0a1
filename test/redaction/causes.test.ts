import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConnectionError } from '../../src/index.js';
import { surfacesKit } from '../support/leak-clients.js';
import { testClient, useMsw, validCard } from '../support/msw.js';

// The cause of a grant's error keeps only its class, the start of its masked message and its code:
// a custom fetch whose error carries or quotes the form body (client secret, refresh token, code,
// verifier) leaks none of it.

useMsw();

describe('grant errors keep no raw cause', () => {
  it('a custom fetch error carrying the form body (client_secret) is scrubbed', async () => {
    const leaky = async (_input: unknown, init?: RequestInit) => {
      const error = new TypeError('fetch failed') as TypeError & { request?: unknown };
      error.request = { body: String(init?.body) };
      throw error;
    };
    const { ob } = testClient({ fetch: leaky as typeof fetch });
    const error = (await ob.auth.clientCredentials(['cards.create']).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(JSON.stringify((error as { cause?: unknown }).cause)).not.toContain('client_secret');
    expect(Object.keys((error as { cause?: object }).cause ?? {})).not.toContain('request');
  });
});

describe('a grant cause that quotes the form body is masked', () => {
  const { SECRET, client, printed } = surfacesKit;
  const leaky = (): typeof fetch => async (input, init) => {
    const body = input instanceof Request ? await input.text() : String(init?.body ?? '');
    throw new TypeError(`fetch failed while sending ${body}`);
  };
  const forms = ['client_secret', 'refresh_token', 'code_verifier'];

  it('clientCredentials, refresh and exchangeCode: util.inspect(error) shows no secret, token, code or verifier', async () => {
    const ob = client({ fetch: leaky() });
    const verifier = 'v'.repeat(20) + '_SENTINEL_verifier_000000000';
    const errors = [
      await ob.auth.clientCredentials(['cards.create']).catch((e: unknown) => e),
      await ob.auth.refresh('rt_SENTINEL_refresh_1234').catch((e: unknown) => e),
      await ob.auth.exchangeCode({ code: 'code_SENTINEL_1234', codeVerifier: verifier, redirectUri: 'https://app.example/cb' }).catch((e: unknown) => e),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConnectionError);
      const out = printed(error);
      for (const value of [SECRET, 'rt_SENTINEL_refresh_1234', 'code_SENTINEL_1234', verifier]) expect(out).not.toContain(value);
    }
    // The masked cause still says what it was about.
    expect(inspect(errors[0], { depth: 5 })).toMatch(new RegExp(forms[0]!));
  });

  it('cards.create: its token request\'s cause is masked too', async () => {
    const error = await client({ fetch: leaky() }).cards.create(validCard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(printed(error)).not.toContain(SECRET);
  });
});
