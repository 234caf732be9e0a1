import { describe, expect, it } from 'vitest';
import { OAuthError, OpenBanking, ResponseValidationError, ValidationError, normaliseRegistration } from '../../src/index.js';
import { AUTH, http, HttpResponse, record, type Recorded, useMsw } from '../support/msw.js';

// Reading an app's registration (dynamic client registration) from the identity host.

const server = useMsw();
const REDIRECT = 'https://app.example.com/callback';

describe('OpenBanking.fetchRegistration', () => {
  const approved = {
    status: 'APPROVED',
    client_credentials: {
      client_id: 'cid-1',
      client_secret: 'csecret-1',
      client_name: 'My App',
      redirect_url: REDIRECT,
      participant_id: 'PART1',
      connection_id: 'CONN1',
      auth_base_url: 'https://identity.sparkle.fyi',
      api_base_url: 'https://api.sparkle.fyi',
    },
  };

  it('sends HTTP Basic to GET {authUrl}/dcr and flattens the answer', async () => {
    const seen: Recorded[] = [];
    server.use(
      http.get(`${AUTH}/dcr`, async ({ request }) => {
        await record(request, seen);
        return HttpResponse.json(approved);
      }),
    );
    const creds = await OpenBanking.fetchRegistration({ authUrl: AUTH, username: 'ada', password: 'pässword:1' });
    expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ada:pässword:1', 'utf8').toString('base64')}`);
    // Exactly the flat shape of the contract: the service's client_name is not part of it.
    expect(creds).toEqual({
      status: 'APPROVED',
      client_id: 'cid-1',
      client_secret: 'csecret-1',
      redirect_urls: [REDIRECT],
      participant_id: 'PART1',
      connection_id: 'CONN1',
      auth_base_url: 'https://identity.sparkle.fyi',
      api_base_url: 'https://api.sparkle.fyi',
    });
  });

  it('returns null credentials while approval is pending', async () => {
    server.use(
      http.get(`${AUTH}/dcr`, () =>
        HttpResponse.json({
          status: 'PENDING_APPROVAL',
          client_credentials: { client_id: null, client_secret: null, client_name: 'My App', redirect_url: REDIRECT, participant_id: null, connection_id: null },
        }),
      ),
    );
    const creds = await OpenBanking.fetchRegistration({ authUrl: AUTH, username: 'ada', password: 'pw' });
    expect(creds).toEqual({ status: 'PENDING_APPROVAL', client_id: null, client_secret: null, redirect_urls: [REDIRECT], participant_id: null, connection_id: null });
  });

  it('uses a custom fetch', async () => {
    const calls: string[] = [];
    const creds = await OpenBanking.fetchRegistration({
      authUrl: 'http://127.0.0.1:9',
      username: 'ada',
      password: 'pw',
      fetch: async (input) => {
        // The same contract as API calls: a custom fetch receives the complete Request.
        calls.push(input instanceof Request ? `${input.method} ${input.url} ${input.headers.get('authorization')}` : String(input));
        return Response.json(approved);
      },
    });
    expect(calls).toEqual([`GET http://127.0.0.1:9/dcr Basic ${btoa('ada:pw')}`]);
    expect(creds.client_id).toBe('cid-1');
  });

  it('turns a 401 into OAuthError invalid_client without the password', async () => {
    server.use(http.get(`${AUTH}/dcr`, () => HttpResponse.json({ message: 'Bad credentials' }, { status: 401 })));
    const error = (await OpenBanking.fetchRegistration({ authUrl: AUTH, username: 'ada', password: 'sentinel-password' }).catch((e: unknown) => e)) as OAuthError;
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.error).toBe('invalid_client');
    expect(error.status).toBe(401);
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('sentinel-password');
  });

  it('masks secret parameters a 401 message quotes, as in every other server message', async () => {
    server.use(http.get(`${AUTH}/dcr`, () => HttpResponse.json({ message: 'login failed for password=hunter2-sentinel' }, { status: 401 })));
    const error = (await OpenBanking.fetchRegistration({ authUrl: AUTH, username: 'ada', password: 'pw' }).catch((e: unknown) => e)) as OAuthError;
    expect(error).toMatchObject({ name: 'OAuthError', error: 'invalid_client', status: 401 });
    expect(error.errorDescription).toMatch(/^login failed for password=/);
    expect(`${error.message} ${error.errorDescription} ${JSON.stringify(error)}`).not.toContain('hunter2-sentinel');
  });

  it('rejects bad input with ValidationError and insecure hosts too', async () => {
    await expect(OpenBanking.fetchRegistration({ authUrl: 'http://identity.example.com', username: 'a', password: 'b' })).rejects.toBeInstanceOf(ValidationError);
    await expect(OpenBanking.fetchRegistration({ authUrl: AUTH, username: '', password: 'b' })).rejects.toBeInstanceOf(ValidationError);
    await expect(OpenBanking.fetchRegistration(undefined as never)).rejects.toBeInstanceOf(ValidationError);
  });

  it('normaliseRegistration accepts base_url, redirect_urls and a flat body, and refuses answers without status', () => {
    expect(
      normaliseRegistration({ status: 'APPROVED', client_credentials: { client_id: 'a', client_secret: 'b', redirect_urls: ['https://x/cb'], base_url: 'https://api.x' } }),
    ).toEqual({ status: 'APPROVED', client_id: 'a', client_secret: 'b', redirect_urls: ['https://x/cb'], api_base_url: 'https://api.x' });
    expect(normaliseRegistration({ status: 'APPROVED', client_id: 'a', client_secret: 'b', redirect_url: 'https://x/cb' }).redirect_urls).toEqual(['https://x/cb']);
    expect(() => normaliseRegistration({ client_credentials: {} })).toThrow(ResponseValidationError);
    let error: unknown;
    try {
      normaliseRegistration({ status: 'APPROVED', client_credentials: { client_secret: 'leaky-secret' } }, JSON.stringify({ client_secret: 'leaky-secret' }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(JSON.stringify(error)).not.toContain('leaky-secret');
  });
});
