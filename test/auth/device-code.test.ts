import { describe, expect, it } from 'vitest';
import { AbortError, OAuthError, OpenBanking, ValidationError, type DeviceAuthorization } from '../../src/index.js';
import { echoKit } from '../support/leak-clients.js';
import { AUTH, BASE, CLIENT_ID, http, HttpResponse, record, type Recorded, SECRET, testClient, tokenSet, useMsw } from '../support/msw.js';

// The device authorization grant (RFC 8628): the code request, then polling the token endpoint at
// the interval the server asks for, until approval, refusal, expiry or an abort.

const server = useMsw();

const form = (r: Recorded) => Object.fromEntries(new URLSearchParams(r.body));

describe('device code', () => {
  const deviceResponse = {
    device_code: 'req_id_0987654321',
    user_code: 'BZ4K8',
    verification_uri: 'https://identity.test.example/device',
    interval: 5,
    expires_in: 900,
    obn_custom_metadata: { consent_validation_method: 'OAUTH2', consent_message: 'Dial *123# to approve', consent_status: 'PENDING_VALIDATION' },
  };

  function deviceEndpoints(seen: { device: Recorded[]; polls: Recorded[] }, answers: Array<() => Response>) {
    return [
      http.post(`${AUTH}/oauth2/device/code`, async ({ request }) => {
        await record(request, seen.device);
        return HttpResponse.json(deviceResponse);
      }),
      http.post(`${AUTH}/oauth2/token`, async ({ request }) => {
        await record(request, seen.polls);
        return answers[Math.min(seen.polls.length - 1, answers.length - 1)]!();
      }),
    ];
  }
  const pending = () => HttpResponse.json({ error: 'authorization_pending' }, { status: 400 });
  const slowDown = () => HttpResponse.json({ error: 'slow_down' }, { status: 400 });

  it('requests a device code with client_id, scope and target_connection_id, keeping obn_custom_metadata', async () => {
    const seen = { device: [] as Recorded[], polls: [] as Recorded[] };
    server.use(...deviceEndpoints(seen, []));
    const { ob } = testClient();
    const device = await ob.auth.deviceCode(['accounts', 'transactions'], { targetConnectionId: 'CONN0987654321' });
    expect(form(seen.device[0]!)).toEqual({ client_id: CLIENT_ID, scope: 'accounts transactions', target_connection_id: 'CONN0987654321' });
    expect(device).toEqual(deviceResponse);
    expect(device.obn_custom_metadata?.consent_message).toBe('Dial *123# to approve');
  });

  it('is approved after two authorization_pending polls, waiting the interval before each poll', async () => {
    const seen = { device: [] as Recorded[], polls: [] as Recorded[] };
    server.use(...deviceEndpoints(seen, [pending, pending, () => HttpResponse.json(tokenSet(1))]));
    const { ob, sleeps } = testClient();
    const device = await ob.auth.deviceCode('accounts');
    const tokens = await ob.auth.pollDeviceToken(device);
    expect(tokens.access_token).toBe('access-1');
    expect(seen.polls).toHaveLength(3);
    expect(sleeps).toEqual([5000, 5000, 5000]);
    expect(form(seen.polls[0]!)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: 'req_id_0987654321',
      client_id: CLIENT_ID,
      client_secret: SECRET,
    });
  });

  it('widens the interval by 5 s on every slow_down', async () => {
    const seen = { device: [] as Recorded[], polls: [] as Recorded[] };
    server.use(...deviceEndpoints(seen, [pending, slowDown, pending, slowDown, () => HttpResponse.json(tokenSet(1))]));
    const { ob, sleeps } = testClient();
    await ob.auth.pollDeviceToken('req_id_0987654321');
    expect(sleeps).toEqual([5000, 5000, 10_000, 10_000, 15_000]);
  });

  it('takes the interval from the options, else from the response', async () => {
    const seen = { device: [] as Recorded[], polls: [] as Recorded[] };
    server.use(...deviceEndpoints(seen, [pending, () => HttpResponse.json(tokenSet(1))]));
    const { ob, sleeps } = testClient();
    await ob.auth.pollDeviceToken({ ...deviceResponse, interval: 2 });
    await ob.auth.pollDeviceToken('req_id_0987654321', { interval: 1 });
    expect(sleeps).toEqual([2000, 2000, 1000]);
  });

  for (const code of ['access_denied', 'expired_token']) {
    it(`rejects with OAuthError('${code}') and stops polling`, async () => {
      const seen = { device: [] as Recorded[], polls: [] as Recorded[] };
      server.use(...deviceEndpoints(seen, [pending, () => HttpResponse.json({ error: code, error_description: 'nope' }, { status: 400 })]));
      const { ob } = testClient();
      await expect(ob.auth.pollDeviceToken('req_id_0987654321')).rejects.toMatchObject({ name: 'OAuthError', error: code });
      expect(seen.polls).toHaveLength(2);
    });
  }

  it('stops locally once the device code has expired', async () => {
    const seen = { device: [] as Recorded[], polls: [] as Recorded[] };
    server.use(...deviceEndpoints(seen, [pending]));
    const { ob } = testClient();
    const stale: DeviceAuthorization = { ...deviceResponse, expires_in: 0 };
    await expect(ob.auth.pollDeviceToken(stale)).rejects.toMatchObject({ error: 'expired_token' });
    expect(seen.polls).toHaveLength(0);
  });

  it('stops with AbortError when the signal fires between polls', async () => {
    const seen = { device: [] as Recorded[], polls: [] as Recorded[] };
    server.use(...deviceEndpoints(seen, [pending]));
    const controller = new AbortController();
    let waits = 0;
    const { ob } = testClient({
      sleep: async () => {
        if (++waits === 3) controller.abort();
      },
    });
    await expect(ob.auth.pollDeviceToken('req_id_0987654321', { signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
    expect(seen.polls).toHaveLength(2);
  });

  it('rejects bad input with ValidationError', async () => {
    const { ob } = testClient();
    await expect(ob.auth.deviceCode([])).rejects.toBeInstanceOf(ValidationError);
    await expect(ob.auth.deviceCode('accounts', { targetConnectionId: '' })).rejects.toBeInstanceOf(ValidationError);
    await expect(ob.auth.pollDeviceToken('')).rejects.toBeInstanceOf(ValidationError);
    await expect(ob.auth.pollDeviceToken({} as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(ob.auth.pollDeviceToken('dc', { interval: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(ob.auth.pollDeviceToken('dc', { signal: 'no' as never })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('device polling', () => {
  it('floors the interval at 1 s whatever the server says', async () => {
    const sleeps: number[] = [];
    let polls = 0;
    server.use(
      http.post(`${AUTH}/oauth2/token`, () => {
        polls++;
        return polls < 3 ? HttpResponse.json({ error: 'authorization_pending' }, { status: 400 }) : HttpResponse.json({ access_token: 'a', token_type: 'Bearer', expires_in: 60 });
      }),
    );
    const ob = new OpenBanking({ clientId: 'c', clientSecret: 's', baseUrl: BASE, authUrl: AUTH, logLevel: 'off', sleep: async (ms) => void sleeps.push(ms) });
    await ob.auth.pollDeviceToken({ device_code: 'd', user_code: 'u', verification_uri: 'https://v', expires_in: 600, interval: 0 });
    expect(sleeps).toEqual([1000, 1000, 1000]);
  });
});

describe('device-code polling never waits past the code’s expiry', () => {
  const { client } = echoKit;
  const device = (extra: Record<string, unknown>) => ({ device_code: 'dc_THIRD_0001', user_code: 'QX7PL', verification_uri: `${AUTH}/device`, expires_in: 300, ...extra });

  it('interval 31536000 with expires_in 300: waits at most 300 s, then rejects with expired_token without a poll', async () => {
    let polls = 0;
    server.use(
      http.post(`${AUTH}/oauth2/device/code`, () => HttpResponse.json(device({ interval: 31_536_000 }))),
      http.post(`${AUTH}/oauth2/token`, () => (polls++, HttpResponse.json({ error: 'authorization_pending' }, { status: 400 }))),
    );
    const sleeps: number[] = [];
    const ob = client({ sleep: async (ms) => void sleeps.push(ms) });
    const authorization = await ob.auth.deviceCode('accounts');
    const error = await ob.auth.pollDeviceToken(authorization).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).error).toBe('expired_token');
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThanOrEqual(300_000);
    expect(polls).toBe(0);
  });

  it('a slow_down that takes the interval past what is left ends the wait at the deadline', async () => {
    let polls = 0;
    server.use(
      http.post(`${AUTH}/oauth2/device/code`, () => HttpResponse.json(device({ interval: 100, expires_in: 150 }))),
      http.post(`${AUTH}/oauth2/token`, () => (polls++, HttpResponse.json({ error: 'slow_down' }, { status: 400 }))),
    );
    let clock = Date.now();
    const sleeps: number[] = [];
    const ob = client({ now: () => clock, sleep: async (ms) => void (sleeps.push(ms), (clock += ms)) });
    const authorization = await ob.auth.deviceCode('accounts');
    await expect(ob.auth.pollDeviceToken(authorization)).rejects.toMatchObject({ name: 'OAuthError', error: 'expired_token' });
    expect(polls).toBe(1);
    expect(sleeps).toEqual([100_000, 50_000]);
  });
});
