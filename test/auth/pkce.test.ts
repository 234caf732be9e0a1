import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { createAuthorizationRequest, OAuthError, parseAuthorizationCallback, ValidationError } from '../../src/pkce.js';

const base = {
  authUrl: 'https://identity.test.example',
  clientId: 'client-abc',
  redirectUri: 'https://app.example.com/callback',
  scope: ['accounts', 'transactions'] as const,
};

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

describe('createAuthorizationRequest', () => {
  it('builds the authorize URL with every parameter of the spec, in order', async () => {
    const req = await createAuthorizationRequest({ ...base, scope: ['accounts', 'transactions'] });
    const url = new URL(req.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://identity.test.example/oauth/authorize');
    expect([...url.searchParams.keys()]).toEqual([
      'client_id',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
      'code_challenge',
      'code_challenge_method',
    ]);
    expect(url.searchParams.get('client_id')).toBe('client-abc');
    expect(url.searchParams.get('redirect_uri')).toBe('https://app.example.com/callback');
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('scope')).toBe('accounts transactions');
    expect(url.searchParams.get('state')).toBe(req.state);
    expect(url.searchParams.get('code_challenge')).toBe(req.codeChallenge);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('derives the S256 challenge from a random 43-character verifier', async () => {
    const req = await createAuthorizationRequest(base);
    expect(req.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(req.codeChallenge).toBe(s256(req.codeVerifier));
    expect(req.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await createAuthorizationRequest(base);
    expect(again.codeVerifier).not.toBe(req.codeVerifier);
    expect(again.state).not.toBe(req.state);
  });

  it('uses a given verifier and state, and the RFC 7636 test vector', async () => {
    const codeVerifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const req = await createAuthorizationRequest({ ...base, codeVerifier, state: 'xyz-0123456789abcdef' });
    expect(req.codeVerifier).toBe(codeVerifier);
    expect(req.codeChallenge).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(req.state).toBe('xyz-0123456789abcdef');
    expect(new URL(req.url).searchParams.get('state')).toBe('xyz-0123456789abcdef');
  });

  it('takes a space-separated scope string, drops duplicates, and a custom authorize path', async () => {
    const req = await createAuthorizationRequest({ ...base, authUrl: 'http://127.0.0.1:8080/', scope: 'accounts  payments accounts', authorizePath: '/auth' });
    const url = new URL(req.url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:8080/auth');
    expect(url.searchParams.get('scope')).toBe('accounts payments');
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['a short verifier', { codeVerifier: 'too-short' }, 'codeVerifier'],
    ['a verifier with reserved characters', { codeVerifier: `${'a'.repeat(42)}+/` }, 'codeVerifier'],
    ['a 129-character verifier', { codeVerifier: 'a'.repeat(129) }, 'codeVerifier'],
    ['plain http to a remote host', { authUrl: 'http://identity.example.com' }, 'authUrl'],
    ['an auth URL without a scheme', { authUrl: 'identity.example.com' }, 'authUrl'],
    ['a relative redirect URI', { redirectUri: '/callback' }, 'redirectUri'],
    ['no scope', { scope: [] }, 'scope'],
    ['a scope with a quote', { scope: ['acc"ounts'] }, 'scope'],
    ['a missing client id', { clientId: undefined }, 'clientId'],
    ['an empty state', { state: '' }, 'state'],
    ['an authorize path without a slash', { authorizePath: 'oauth/authorize' }, 'authorizePath'],
  ];
  for (const [name, override, path] of bad) {
    it(`rejects ${name} with ValidationError`, async () => {
      const promise = createAuthorizationRequest({ ...base, ...override } as never);
      await expect(promise).rejects.toBeInstanceOf(ValidationError);
      const error = (await promise.catch((e: unknown) => e)) as ValidationError;
      expect(error.issues.map((i) => i.path)).toContain(path);
    });
  }

  it('rejects (never throws) when called without parameters', async () => {
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = createAuthorizationRequest(undefined as never);
    }).not.toThrow();
    await expect(promise).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('parseAuthorizationCallback', () => {
  const cb = (query: string) => `https://app.example.com/callback?${query}`;

  it('returns the code and state of a successful callback', () => {
    expect(parseAuthorizationCallback(cb('code=abc123&state=s1'), { expectedState: 's1' })).toEqual({ code: 'abc123', state: 's1' });
    expect(parseAuthorizationCallback(new URL(cb('state=s1&code=c&iss=https%3A%2F%2Fid')), { expectedState: 's1' }).code).toBe('c');
  });

  for (const code of ['access_denied', 'invalid_scope', 'invalid_client', 'invalid_redirect_uri', 'invalid_grant', 'server_error']) {
    it(`turns error=${code} into OAuthError('${code}') with the description`, () => {
      let caught: unknown;
      try {
        parseAuthorizationCallback(cb(`error=${code}&error_description=The+customer+said+no&state=s1`), { expectedState: 's1' });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(OAuthError);
      expect((caught as OAuthError).error).toBe(code);
      expect((caught as OAuthError).errorDescription).toBe('The customer said no');
    });
  }

  it('refuses a state mismatch before anything else, without echoing either state', () => {
    const attempt = (query: string) => () => parseAuthorizationCallback(cb(query), { expectedState: 'expected-state-value' });
    for (const query of ['code=abc&state=forged-state-value', 'code=abc', 'error=access_denied&state=other']) {
      expect(attempt(query)).toThrow(OAuthError);
      try {
        attempt(query)();
      } catch (error) {
        expect((error as OAuthError).error).toBe('state_mismatch');
        expect((error as OAuthError).message).not.toContain('expected-state-value');
        expect((error as OAuthError).message).not.toContain('forged-state-value');
      }
    }
  });

  it('refuses a callback with no code', () => {
    expect(() => parseAuthorizationCallback(cb('state=s1'), { expectedState: 's1' })).toThrow(expect.objectContaining({ name: 'OAuthError', error: 'missing_code' }));
  });

  it('refuses a repeated parameter', () => {
    expect(() => parseAuthorizationCallback(cb('code=a&code=b&state=s1'), { expectedState: 's1' })).toThrow(expect.objectContaining({ error: 'invalid_response' }));
  });

  it("reads the callback with oauth4webapi's own checks: an implicit or hybrid answer and a JARM response are refused", () => {
    for (const query of ['code=a&state=s1&id_token=eyJ.x.y', 'code=a&state=s1&token=t', 'state=s1&response=eyJ.x.y', 'code=a&state=s1&error=access_denied&error=login_required']) {
      expect(() => parseAuthorizationCallback(cb(query), { expectedState: 's1' }), query).toThrow(expect.objectContaining({ name: 'OAuthError', error: 'invalid_response' }));
    }
    expect(() => parseAuthorizationCallback(cb('state=s1&error=access_denied&error_description=the%20customer%20said%20no'), { expectedState: 's1' })).toThrow(
      expect.objectContaining({ error: 'access_denied', errorDescription: 'the customer said no' }),
    );
    const issuer = 'https://identity.example.com';
    expect(parseAuthorizationCallback(cb(`code=a&state=s1&iss=${encodeURIComponent(issuer)}`), { expectedState: 's1', expectedIssuer: issuer })).toEqual({ code: 'a', state: 's1' });
    expect(parseAuthorizationCallback(cb('code=a&state=s1&iss=https%3A%2F%2Fother.example'), { expectedState: 's1' })).toEqual({ code: 'a', state: 's1' });
  });

  it('throws ValidationError for a non-URL or a missing expected state', () => {
    expect(() => parseAuthorizationCallback('not a url', { expectedState: 's1' })).toThrow(ValidationError);
    expect(() => parseAuthorizationCallback(cb('code=a&state=s1'), {} as never)).toThrow(ValidationError);
    expect(() => parseAuthorizationCallback(cb('code=a&state=s1'), undefined as never)).toThrow(ValidationError);
  });
});

describe('the openbanking-ng/pkce bundle', () => {
  it('stays within 4 096 B gzip and carries no HTTP client, schema library, cipher or pipeline', async () => {
    const result = await build({
      entryPoints: ['src/pkce.ts'],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const size = gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
    expect(size).toBeLessThanOrEqual(4096); // DESIGN `sizes`
    const inputs = Object.keys(result.metafile.inputs);
    for (const heavy of ['node_modules/ky/', 'node_modules/zod/', 'node_modules/uuid/', 'src/crypto/', 'src/core/call', 'src/options', 'src/client']) {
      expect(inputs.filter((i) => i.includes(heavy))).toEqual([]);
    }
  });
});

describe('OPERATION_SCOPES from openbanking-ng/pkce', () => {
  it('is the very table of the main entry, and gives each operation the scopes its declaration asks for', async () => {
    const pkce = await import('../../src/pkce.js');
    const main = await import('../../src/index.js');
    const { operations } = await import('../../src/schemas.js');
    expect(pkce.OPERATION_SCOPES).toBe(main.OPERATION_SCOPES);
    expect(Object.keys(pkce.OPERATION_SCOPES).sort()).toEqual(Object.keys(operations).sort());
    for (const [name, op] of Object.entries(operations)) expect(pkce.OPERATION_SCOPES[name as keyof typeof pkce.OPERATION_SCOPES]).toEqual(op.scopes);
  });
});

describe('callback checks (RFC 9207, state length)', () => {
  const cb = (query: string) => `https://app.example/cb?${query}`;
  it('refuses a callback from another issuer, accepts one without iss', () => {
    const expected = { expectedState: 's'.repeat(20), expectedIssuer: 'https://identity.example' };
    expect(() => parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}&iss=https%3A%2F%2Fevil.example`), expected)).toThrow(OAuthError);
    try {
      parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}&iss=https%3A%2F%2Fevil.example`), expected);
    } catch (error) {
      expect((error as OAuthError).error).toBe('issuer_mismatch');
    }
    expect(parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}&iss=https%3A%2F%2Fidentity.example`), expected).code).toBe('c');
    expect(parseAuthorizationCallback(cb(`code=c&state=${'s'.repeat(20)}`), expected).code).toBe('c');
  });
  it('an error callback without state reports state_mismatch', () => {
    expect(() => parseAuthorizationCallback(cb('error=access_denied'), { expectedState: 's'.repeat(20) })).toThrow(/state_mismatch/);
  });
  it('a caller-given state shorter than 16 characters is refused', async () => {
    const base = { authUrl: 'https://identity.example', clientId: 'c', redirectUri: 'https://app.example/cb', scope: ['accounts'] as never };
    await expect(createAuthorizationRequest({ ...base, state: 'short-state' })).rejects.toBeInstanceOf(ValidationError);
    await expect(createAuthorizationRequest({ ...base, state: '0123456789abcdef' })).resolves.toBeDefined();
  });
});
