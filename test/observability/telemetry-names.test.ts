import { describe, expect, it } from 'vitest';
import { type ClientEvents, ValidationError } from '../../src/index.js';
import { instrument } from '../../src/otel.js';
import { echoKit } from '../support/leak-clients.js';
import { BASE, http, HttpResponse, useMsw } from '../support/msw.js';
import { telemetry } from './support.js';

// Span names, url.template, metric attributes and call events never carry a caller's values:
// ob.request is named by the typed operation its path matches, else /{path}.

const server = useMsw();

describe('ob.request names a path by a typed template, else /{path}, never by its values', () => {
  const { client, tokenOk } = echoKit;
  it('a path with a PAN and a PIN: span name, url.template, metric attributes and events read /{path}, for a refused call too', async () => {
    const t = telemetry();
    server.use(tokenOk, http.get(`${BASE}/cards/:pan/pin/:pin`, () => HttpResponse.json({ status: '01', message: 'no' }, { status: 404 })));
    const ob = client();
    const off = instrument(ob, { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider });
    const starts: ClientEvents['callStart'][] = [];
    ob.on('callStart', (e) => void starts.push(e));
    await ob.request({ method: 'GET', path: '/cards/5399838383838381/pin/4321' }).catch(() => undefined);
    await expect(ob.request({ method: 'GET', path: '/cards/5399838383838381/pin/4321', body: { x: 1 } })).rejects.toBeInstanceOf(ValidationError);
    const everything = JSON.stringify([
      starts,
      t.finished().map((s) => [s.name, s.attributes]),
      (await t.allMetrics()).map((m) => m.dataPoints.map((p) => p.attributes)),
    ]);
    expect(starts.map((s) => s.urlTemplate)).toEqual(['/{path}', '/{path}']);
    expect(t.finished().some((s) => s.name === 'GET /{path}')).toBe(true);
    expect(everything).not.toContain('5399838383838381');
    expect(everything).not.toContain('4321');
    off();
    await t.shutdown();
  });

  it('a path that matches a typed operation is named by its template, the same method first', async () => {
    server.use(
      tokenOk,
      http.get(`${BASE}/accounts/:n/balances`, () => HttpResponse.json({ status: '00', message: 'ok', data: {} })),
      http.post(`${BASE}/transactions/enquiry`, () => HttpResponse.json({ status: '00', message: 'ok', data: {} })),
    );
    const ob = client();
    const starts: string[] = [];
    ob.on('callStart', (e) => void starts.push(e.urlTemplate));
    await ob.request({ method: 'GET', path: '/accounts/0123456789/balances' });
    await ob.request({ method: 'POST', path: '/transactions/enquiry', body: {} });
    await ob.request({ method: 'GET', path: '/accounts/0123456789/balances', urlTemplate: '/accounts/{n}/balances' });
    expect(starts).toEqual(['/accounts/{account_number}/balances', '/transactions/enquiry', '/accounts/{n}/balances']);
  });
});
