import { describe, expect, it } from 'vitest';
import { OPERATION_SCOPES } from '../../src/index.js';
import { parseAuthorizationCallback } from '../../src/pkce.js';
import { runCli } from '../../src/bin/cli.js';
import { clientFor, validCard } from './support.js';

describe('the openbanking-ng-sandbox command', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
  };

  it('serves on 127.0.0.1, prints the URLs, never the secret', async () => {
    const { out, io: sink } = io();
    const server = await runCli(['--port', '0', '--client-id', 'cli-app', '--client-secret', 'cli-secret-value', '--redirect-uri', 'http://127.0.0.1:3000/cb', '--rate-limits', '-v'], sink);
    if (typeof server === 'number') throw new Error(`exit ${server}`);
    try {
      expect(out.join('\n')).toContain(`authUrl  ${server.authUrl}`);
      expect(out.join('\n')).toContain(`baseUrl  ${server.baseUrl}`);
      expect(out.join('\n')).toContain('rate limits: 100/min, burst 200');
      const { ob } = clientFor(server, { clientId: 'cli-app', clientSecret: 'cli-secret-value' });
      await ob.cards.create(validCard());
      expect(server.cards()).toHaveLength(1);
      expect(out.some((l) => /POST \/openapi\/v1\/cards → 201/.test(l))).toBe(true);
      expect(out.join('\n')).not.toContain('cli-secret-value');
    } finally {
      await server.close();
    }
  });

  it('prints help, and refuses bad arguments with exit code 2', async () => {
    const help = io();
    expect(await runCli(['--help'], help.io)).toBe(0);
    expect(help.out[0]).toContain('Usage: openbanking-ng-sandbox');
    for (const args of [['--port', 'abc'], ['--environment', 'staging'], ['--client-id', 'x'], ['--what'], ['--client-secret', 'cli-secret-value'], ['--client-id', 'x', '--client-secret', 'cli-secret-value', '--port', 'abc', '--redirect-uri', 'nope']]) {
      const bad = io();
      expect(await runCli(args, bad.io)).toBe(2);
      expect(bad.err[0]).toMatch(/^openbanking-ng-sandbox: /);
      expect([...bad.err, ...bad.out].join('\n')).not.toContain('cli-secret-value');
    }
    expect(help.out[0]).toMatch(/--seed <value>.*predictable/s);
  });

  it('--auto-approve: a script gets a customer consented through the authorize URL and a device code, without the consent page', async () => {
    const { out, io: sink } = io();
    const redirectUri = 'http://127.0.0.1:3000/cb';
    const server = await runCli(['--port', '0', '--client-id', 'cli-app', '--client-secret', 'cli-secret-value', '--redirect-uri', redirectUri, '--auto-approve'], sink);
    if (typeof server === 'number') throw new Error(`exit ${server}`);
    try {
      expect(out[0]).toContain('consents approved automatically');
      const { ob } = clientFor(server, { clientId: 'cli-app', clientSecret: 'cli-secret-value' }, { redirectUri });
      const scope = [...OPERATION_SCOPES['accounts.list']];
      const request = await ob.auth.authorizationUrl({ scope });
      const answer = await fetch(request.url, { redirect: 'manual' });
      expect(answer.status).toBe(302);
      const { code } = parseAuthorizationCallback(answer.headers.get('location')!, { expectedState: request.state });
      const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier });
      const { accounts } = await ob.forCustomer(tokens).accounts.list();
      expect(accounts!.length).toBeGreaterThan(0);

      const device = await ob.auth.deviceCode(scope);
      const polled = await ob.auth.pollDeviceToken(device, { interval: 1 });
      expect(polled.scope).toBe(scope.join(' '));
      expect((await ob.forCustomer(polled).accounts.list()).accounts!.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('without --auto-approve the authorize URL shows the consent page and redirects nowhere', async () => {
    const { io: sink } = io();
    const redirectUri = 'http://127.0.0.1:3000/cb';
    const server = await runCli(['--port', '0', '--client-id', 'cli-app', '--client-secret', 'cli-secret-value', '--redirect-uri', redirectUri], sink);
    if (typeof server === 'number') throw new Error(`exit ${server}`);
    try {
      const { ob } = clientFor(server, { clientId: 'cli-app', clientSecret: 'cli-secret-value' }, { redirectUri });
      const request = await ob.auth.authorizationUrl({ scope: ['accounts.list.readonly'] });
      const answer = await fetch(request.url, { redirect: 'manual' });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('<form');
    } finally {
      await server.close();
    }
  });
});
