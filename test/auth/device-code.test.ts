import { describe, expect, it } from 'vitest';
import { AbortError, ValidationError, type DeviceAuthorization } from '../../src/index.js';
import { AUTH, CLIENT_ID, http, HttpResponse, type Recorded, SECRET, testClient, useMsw } from '../support/msw.js';

// The device authorization grant (RFC 8628): the code request, then polling the token endpoint at
// the interval the server asks for, until approval, refusal, expiry or an abort.

const server = useMsw();

const record = async (request: Request, into: Recorded[]) => {
  const body = await request.text();
  into.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
  return new URLSearchParams(body);
};

const tokenSet = (n: number, extra: Record<string, unknown> = {}) => ({
  access_token: `access-${n}`,
  token_type: 'Bearer',
  expires_in: 3600,
  refresh_token: `refresh-${n}`,
  scope: 'accounts transactions',
  ...extra,
});

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
