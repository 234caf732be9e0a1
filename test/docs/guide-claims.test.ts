// The guides' claims, run. Each test quotes a sentence of a guide (it must still be there, so a reworded
// claim comes back here) and then does what the sentence says against the sandbox. Claims about other
// runtimes are run by `npm run test:runtimes`; `sandboxHandlers` without msw by scripts/consumer-smoke.mjs.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as sdk from '../../src/index.js';
import { aesCbcCipher, aesGcmCipher, OpenBanking, plaintextCipher, type FieldCipher, type Logger } from '../../src/index.js';
import { tripleDesCipher } from '../../src/node.js';
import { parseAuthorizationCallback } from '../../src/pkce.js';
import { createManualClock, createSandbox } from '../../src/testing.js';
import { validCard } from '../support/cards.js';

const root = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
/** The guide, with every run of white space as one space (claims wrap across lines). */
const flat = (file: string) => read(file).replace(/\s+/g, ' ');
const claim = (file: string, sentence: string) => expect(flat(file), `${file} no longer says: ${sentence}`).toContain(sentence);
const CARD = validCard();
const app = { clientId: 'guide-app', clientSecret: 'guide-secret' };
const catchError = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

function client(sandbox: ReturnType<typeof createSandbox>, options: Partial<ConstructorParameters<typeof OpenBanking>[0]> = {}) {
  return new OpenBanking({ ...app, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logLevel: 'off', retryDelay: 0, sleep: async () => {}, ...options });
}

describe('docs/testing.md', () => {
  it("judges a customer token's freshness by the client's `now`: a shared clock makes the session refresh before its call, without a 401", async () => {
    claim('docs/testing.md', "The SDK judges a customer token's freshness by the client's `now` option");
    claim('docs/testing.md', "advancing it past the token's lifetime makes the session refresh before its next call, without a 401");
    const clock = createManualClock();
    const sandbox = createSandbox({ clients: [app], now: clock.now });
    const ob = client(sandbox, { now: clock.now });
    const tokens = sandbox.issueTokens({ clientId: app.clientId, scope: ['cards.list'], expiresIn: 600 });
    const session = ob.forCustomer(tokens);
    await session.request({ method: 'GET', path: '/cards' });
    const refreshes = () => sandbox.requests.list().filter((r) => r.path.endsWith('/oauth/token')).length;
    expect(refreshes()).toBe(0);

    clock.advance(601_000);
    await session.request({ method: 'GET', path: '/cards' });
    expect(refreshes()).toBe(1);
    expect(sandbox.requests.list().map((r) => r.status)).not.toContain(401);
  });
});

describe('docs/errors.md', () => {
  it('every failure of a call rejects its promise, bad input included', async () => {
    claim('docs/errors.md', 'Every failure of a call — bad input included — rejects the returned promise');
    const sandbox = createSandbox({ clients: [app] });
    const pending = client(sandbox).cards.create({ ...CARD, card_expiry: { month: '13', year: '29' } });
    expect(await catchError(pending)).toBeInstanceOf(sdk.ValidationError);
    expect(sandbox.requests.list()).toEqual([]);
  });

  it('what throws synchronously: the constructor, parseAuthorizationCallback, the cipher factories, createSandbox', () => {
    claim('docs/errors.md', 'the `OpenBanking` constructor (and `OpenBanking.fromRegistration`, which calls it): `ValidationError`');
    expect(() => new OpenBanking({ clientId: 'a', clientSecret: '' })).toThrow(sdk.ValidationError);
    claim('docs/errors.md', 'the pure helper `parseAuthorizationCallback`: `OAuthError`');
    expect(() => parseAuthorizationCallback('https://app.example/cb?code=x&state=other', { expectedState: 'expected-state-value' })).toThrow(sdk.OAuthError);
    claim('docs/errors.md', 'the cipher factories `aesGcmCipher`, `aesCbcCipher` and `tripleDesCipher`: `CipherError` when the secret is not a non-empty string');
    for (const factory of [aesGcmCipher, aesCbcCipher, tripleDesCipher]) expect(() => factory('')).toThrow(sdk.CipherError);
    claim('docs/errors.md', 'in `openbanking-ng/testing`, `createSandbox` (`ValidationError` for bad options)');
    expect(() => createSandbox({ clients: 'none' } as never)).toThrow(sdk.ValidationError);
  });
});

describe('docs/retries-and-idempotency.md and the README: repeating a call with a stored key', () => {
  const secret = app.clientSecret;
  const cases: [string, () => FieldCipher][] = [
    ['plaintextCipher', () => plaintextCipher],
    ['tripleDesCipher', () => tripleDesCipher(secret)],
    ['aesGcmCipher', () => aesGcmCipher(secret)],
    ['aesCbcCipher', () => aesCbcCipher(secret)],
  ];

  it('in the same process, every cipher replays the first answer', async () => {
    claim('docs/retries-and-idempotency.md', 'same bytes: the client re-sends the ciphertext it sent under that key');
    claim('README.md', 'Within one process the client re-sends the very bytes it sent under that key, encrypted fields included.');
    for (const [, make] of cases) {
      const cipher = make();
      const sandbox = createSandbox({ clients: [app], cipher });
      const ob = client(sandbox, { cipher });
      const first = await ob.cards.create(CARD, { idempotencyKey: 'order-1' });
      const again = await ob.cards.create(CARD, { idempotencyKey: 'order-1' });
      expect(again.card_id).toBe(first.card_id);
      expect(sandbox.cards()).toHaveLength(1);
    }
  });

  it('from another process, deterministic ciphers replay and random-IV ciphers are refused, never a second card', async () => {
    claim('README.md', 'From another process the body is the same only if the cipher is deterministic (`plaintextCipher`, the default, and `tripleDesCipher`)');
    claim('docs/retries-and-idempotency.md', 'a new ciphertext: refused with `IDEMPOTENCY_KEY_REUSED`, never a second card');
    for (const [name, make] of cases) {
      const sandbox = createSandbox({ clients: [app], cipher: make() });
      const first = await client(sandbox, { cipher: make() }).cards.create(CARD, { idempotencyKey: 'order-2' });
      // Another process: another client, with its own cipher instance and its own memory.
      const repeat = client(sandbox, { cipher: make() }).cards.create(CARD, { idempotencyKey: 'order-2' });
      if (name === 'plaintextCipher' || name === 'tripleDesCipher') {
        expect((await repeat).card_id, name).toBe(first.card_id);
      } else {
        const error = await catchError(repeat);
        expect(error, name).toBeInstanceOf(sdk.BadRequestError);
        expect((error as sdk.BadRequestError).errorCode, name).toBe('IDEMPOTENCY_KEY_REUSED');
      }
      expect(sandbox.cards(), name).toHaveLength(1);
    }
  });
});

describe('README.md', () => {
  const section = (marker: string) => {
    const text = read('README.md');
    const start = text.indexOf(`<!-- ${marker}:`);
    const end = text.indexOf(`<!-- /${marker} -->`);
    expect(start, `README.md has no <!-- ${marker}: --> section`).toBeGreaterThanOrEqual(0);
    return text.slice(start, end);
  };

  it('"Typed operations" names every namespace of the client and each of its methods', () => {
    const typed = section('typed-operations');
    const ob = new OpenBanking({ clientId: 'a', clientSecret: 'b' });
    const classes = (Object.values(sdk) as unknown[]).filter((value): value is new () => unknown => typeof value === 'function' && typeof value.prototype === 'object');
    const namespaces = Object.entries(ob).filter(([name, value]) => name !== 'auth' && classes.some((c) => c !== Object && value instanceof c));
    expect(namespaces.map(([name]) => name)).toContain('cards');
    for (const [name, value] of namespaces) {
      expect(typed, `the README's Typed operations section does not name ${name}`).toContain(`**${name}**`);
      const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(value)).filter((m) => m !== 'constructor' && !m.startsWith('_'));
      for (const method of methods) expect(typed, `it does not name ob.${name}.${method} (or session.${name}.${method})`).toMatch(new RegExp(`(ob|session)\\.${name}\\.${method}\\b`));
    }
  });

  it('"Runtimes" lists the versions the runtime matrix installs', () => {
    const table = section('runtimes');
    const pins = JSON.parse(read('scripts/runtimes/versions.json')) as Record<string, { version: string }>;
    for (const [name, pin] of Object.entries(pins)) if (!name.startsWith('$')) expect(table, `${name} ${pin.version}`).toContain(pin.version);
    expect(table).toContain(process.versions.node);
  });

  describe('Logging', () => {
    const saved = process.env.OPENBANKING_LOG;
    afterEach(() => {
      if (saved === undefined) delete process.env.OPENBANKING_LOG;
      else process.env.OPENBANKING_LOG = saved;
    });

    function recorder() {
      const lines: { level: string; message: string; details?: object }[] = [];
      const at = (level: string) => (message: string, details?: object) => lines.push({ level, message, ...(details ? { details } : {}) });
      const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
      return { lines, logger };
    }

    it('at debug, one line per attempt with the idempotency key, and no secret in any line', async () => {
      claim('README.md', 'At `debug`, one line per attempt: method, path, status, attempt number, idempotency key, elapsed time');
      const sandbox = createSandbox({ clients: [app] });
      sandbox.faults.inject({ path: '/openapi/v1/cards', method: 'POST', times: 1, fault: { type: 'status', status: 503 } });
      const { lines, logger } = recorder();
      const { idempotencyKey } = await client(sandbox, { logger, logLevel: 'debug' }).cards.create(CARD).withResponse();
      const attempts = lines.filter((l) => l.level === 'debug' && /POST \S*cards/.test(l.message));
      expect(attempts.map((l) => l.message)).toEqual([expect.stringContaining('503'), expect.stringContaining('201')]);
      for (const line of attempts) expect(JSON.stringify(line.details)).toContain(idempotencyKey);
      expect(lines.some((l) => l.level === 'info')).toBe(true); // the retry
      const all = JSON.stringify(lines);
      expect(all).not.toContain(app.clientSecret);
      expect(all).not.toMatch(/card_default_pin\W+1234/);
    });

    it('OPENBANKING_LOG sets the level when logLevel is not given', async () => {
      claim('README.md', 'or set the `OPENBANKING_LOG` environment variable to a level');
      process.env.OPENBANKING_LOG = 'debug';
      const sandbox = createSandbox({ clients: [app] });
      const { lines, logger } = recorder();
      await new OpenBanking({ ...app, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logger }).cards.list();
      expect(lines.filter((l) => l.level === 'debug').length).toBeGreaterThan(0);
    });
  });
});
