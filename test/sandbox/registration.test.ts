import { describe, expect, it } from 'vitest';
import { fetchRegistration } from '../../src/auth/registration.js';
import {
  ConnectionError,
  InternalServerError,
  OAuthError,
  OpenBanking,
  ResponseValidationError,
  ValidationError,
} from '../../src/index.js';
import { createSandbox } from '../../src/testing.js';
import { validCard } from './support.js';

const fields = {
  username: 'ada',
  password: 'pa55:word',
  app_name: 'Ada Pay',
  app_description: 'Payments for Ada',
  app_developer_name: 'Ada Obi',
  app_developer_address: '1 Marina, Lagos',
  app_developer_contact_email: 'ada@ada-pay.example',
  app_developer_contact_phone: '+2348012345678',
  redirect_url: 'https://ada-pay.example/callback',
};

describe('OpenBanking.register against the sandbox', () => {
  it('sandbox environment: APPROVED at once, normalised to the flat shape', async () => {
    const sandbox = createSandbox();
    const registration = await OpenBanking.register({ ...fields, authUrl: sandbox.authUrl, fetch: sandbox });
    expect(registration).toEqual({
      status: 'APPROVED',
      client_id: expect.stringMatching(/^sbx_client_/),
      client_secret: expect.stringMatching(/^sbx_secret_/),
      redirect_urls: ['https://ada-pay.example/callback'],
      participant_id: expect.stringMatching(/^PART\d{10}$/),
      connection_id: expect.stringMatching(/^CONN\d{10}$/),
      auth_base_url: sandbox.authUrl,
      api_base_url: sandbox.baseUrl,
    });
    const ob = OpenBanking.fromRegistration(registration, { fetch: sandbox, logLevel: 'off' });
    expect(ob.baseUrl).toBe(sandbox.baseUrl);
    expect(ob.clientId).toBe(registration.client_id);
    await ob.cards.create(validCard());
    expect(sandbox.cards()[0]!.clientId).toBe(registration.client_id);
  });

  it('sends the connection and participant ids from the registration as headers', async () => {
    const sandbox = createSandbox();
    const seen: Headers[] = [];
    const spy: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      seen.push(request.headers);
      return sandbox(request);
    };
    const registration = await OpenBanking.register({ username: 'u', password: 'p', app_name: 'A', redirect_url: 'https://a.example/cb', authUrl: sandbox.authUrl, fetch: spy });
    await OpenBanking.fromRegistration(registration, { fetch: spy, logLevel: 'off' }).cards.create(validCard());
    const api = seen.at(-1)!;
    expect(api.get('connection-id')).toBe(registration.connection_id);
    expect(api.get('x-participant-id')).toBe(registration.participant_id);
  });

  it('production: PENDING_APPROVAL with null credentials (a result, not an error), then approved and fetched with Basic', async () => {
    const sandbox = createSandbox({ environment: 'production' });
    const pending = await OpenBanking.register({ ...fields, authUrl: sandbox.authUrl, fetch: sandbox });
    expect(pending).toMatchObject({ status: 'PENDING_APPROVAL', client_id: null, client_secret: null, participant_id: null, connection_id: null });
    expect(() => OpenBanking.fromRegistration(pending)).toThrow(ValidationError);
    expect(() => OpenBanking.fromRegistration(pending)).toThrow(/PENDING_APPROVAL/);

    const stillPending = await fetchRegistration({ authUrl: sandbox.authUrl, username: 'ada', password: 'pa55:word', fetch: sandbox });
    expect(stillPending.status).toBe('PENDING_APPROVAL');

    const approved = sandbox.approveRegistration('ada');
    const fetched = await fetchRegistration({ authUrl: sandbox.authUrl, username: 'ada', password: 'pa55:word', fetch: sandbox });
    expect(fetched).toMatchObject({ status: 'APPROVED', client_id: approved.clientId, client_secret: approved.clientSecret });

    const wrong = await fetchRegistration({ authUrl: sandbox.authUrl, username: 'ada', password: 'nope', fetch: sandbox }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OAuthError);
    expect((wrong as OAuthError).status).toBe(401);
    expect(String((wrong as Error).message)).not.toContain('nope');
  });

  it('rejects bad input with ValidationError and sends nothing', async () => {
    const sandbox = createSandbox();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ username: 'u', password: 'p', app_name: 'A' }, ['redirect_url']],
      [{ ...fields, redirect_url: '/relative' }, ['redirect_url']],
      [{ ...fields, app_developer_contact_email: 'not-an-email', extra: 1 }, ['app_developer_contact_email', 'extra']],
      [{ ...fields, authUrl: 'http://identity.example' }, ['authUrl']],
      [{ ...fields, environment: 'production', authUrl: undefined }, ['authUrl']],
      [{ ...fields, app_developer_contact_phone: 'call me' }, ['app_developer_contact_phone']],
      [{ ...fields, app_developer_contact_phone: '+234 80' }, ['app_developer_contact_phone']],
    ];
    for (const [params, paths] of cases) {
      const error = (await OpenBanking.register({ authUrl: sandbox.authUrl, fetch: sandbox, ...params } as never).catch((e: unknown) => e)) as ValidationError;
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.issues.map((i) => i.path).sort()).toEqual(paths.sort());
      expect(error.message).not.toContain('pa55');
    }
    expect(sandbox.requests.count()).toBe(0);
  });

  it('takes phone numbers as people write them', async () => {
    const sandbox = createSandbox();
    for (const [i, phone] of ['+2348012345678', '+234 801 234 5678', '0801-234-5678', '(01) 234 5678'].entries()) {
      const registration = await OpenBanking.register({ authUrl: sandbox.authUrl, fetch: sandbox, ...fields, username: `phone-${i}`, app_developer_contact_phone: phone });
      expect(registration.status).toBe('APPROVED');
    }
    expect(sandbox.requests.count()).toBe(4);
  });

  it('maps refusals and failures to typed errors', async () => {
    const sandbox = createSandbox();
    await OpenBanking.register({ ...fields, authUrl: sandbox.authUrl, fetch: sandbox });
    const taken = (await OpenBanking.register({ ...fields, authUrl: sandbox.authUrl, fetch: sandbox }).catch((e: unknown) => e)) as OAuthError;
    expect(taken).toBeInstanceOf(OAuthError);
    expect(taken.error).toBe('invalid_client_metadata');
    expect(taken.status).toBe(400);

    sandbox.faults.inject({ path: '/dcr', fault: { type: 'html', status: 502 } });
    const html = await OpenBanking.register({ ...fields, username: 'b', authUrl: sandbox.authUrl, fetch: sandbox }).catch((e: unknown) => e);
    expect(html).toBeInstanceOf(InternalServerError);

    sandbox.faults.inject({ path: '/dcr', fault: { type: 'malformed-json' } });
    const broken = await OpenBanking.register({ ...fields, username: 'c', authUrl: sandbox.authUrl, fetch: sandbox }).catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(ResponseValidationError);
    expect((broken as ResponseValidationError).rawBody).not.toContain('sbx_secret_');

    sandbox.faults.inject({ path: '/dcr', fault: { type: 'drop' } });
    const dropped = await OpenBanking.register({ ...fields, username: 'd', authUrl: sandbox.authUrl, fetch: sandbox }).catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(ConnectionError);
  });

  it('the DCR endpoint refuses incomplete or malformed registrations', async () => {
    const sandbox = createSandbox();
    const post = (body: unknown, type = 'application/json') =>
      sandbox(`${sandbox.authUrl}/dcr`, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    expect(await post({ username: 'u', password: 'p', app_name: 'A' })).toEqual({ status: 400, body: { error: 'invalid_client_metadata', error_description: 'redirect_url is required' } });
    expect((await post({ ...fields, redirect_url: 'https://a.example/cb#frag' })).body.error).toBe('invalid_redirect_uri');
    expect((await post({ ...fields, app_name: 42 })).body.error).toBe('invalid_client_metadata');
    expect((await post(fields, 'text/plain')).status).toBe(400);
  });
});
