// DESIGN "Errors": every error class extends OpenBankingError, with `name` set to its class name, in the
// package as it ships: bundled the way tsup bundles it (esbuild, code splitting, no name-keeping), where a
// class that refers to itself in its own body is renamed (`class _ApiError`).
import { mkdirSync, rmSync } from 'node:fs';
import { inspect } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Under the project, so that the external dependencies resolve from its node_modules.
const outdir = `${root}node_modules/.cache/openbanking-ng-error-classes-${process.pid}`;

/** Each error class the package exports, with its parent. */
const CLASSES: Array<[string, string]> = [
  ['OpenBankingError', 'Error'],
  ['ApiError', 'OpenBankingError'],
  ['BadRequestError', 'ApiError'],
  ['AuthenticationError', 'ApiError'],
  ['PermissionDeniedError', 'ApiError'],
  ['NotFoundError', 'ApiError'],
  ['RateLimitError', 'ApiError'],
  ['InternalServerError', 'ApiError'],
  ['ValidationError', 'OpenBankingError'],
  ['ResponseValidationError', 'OpenBankingError'],
  ['OAuthError', 'OpenBankingError'],
  ['ConsentEndedError', 'OAuthError'],
  ['ConnectionError', 'OpenBankingError'],
  ['TimeoutError', 'ConnectionError'],
  ['AbortError', 'OpenBankingError'],
  ['CipherError', 'OpenBankingError'],
  ['TransferPendingError', 'OpenBankingError'],
  ['ResponseTooLargeError', 'OpenBankingError'],
];

type ErrorClass = (new (...args: never[]) => Error) & { from?: (init: unknown) => Error };
let built: Record<string, ErrorClass>;

beforeAll(async () => {
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: { index: `${root}src/index.ts` },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    outdir,
    logLevel: 'silent',
    external: ['ky', 'oauth4webapi', 'uuid', 'node:*'],
  });
  built = (await import(pathToFileURL(`${outdir}/index.js`).href)) as Record<string, ErrorClass>;
}, 60_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('error classes in the bundled package', () => {
  it('the list below is every error class the entry exports', () => {
    const exported = Object.keys(built).filter((name) => /^[A-Z]\w*Error$/.test(name) && typeof built[name] === 'function');
    expect(exported.sort()).toEqual(CLASSES.map(([name]) => name).sort());
  });

  it.each(CLASSES)('%s keeps its class name and extends %s', (name, parent) => {
    const cls = built[name]!;
    expect(cls.name).toBe(name);
    expect(Object.getPrototypeOf(cls).name).toBe(parent);
  });

  it('an ApiError for a status without a subclass is an ApiError by name, class and inspection', () => {
    const ApiError = built.ApiError!;
    const error = ApiError.from!({ status: 409, body: { status: '96', message: 'Conflict' }, rawBody: '{}', headers: new Headers() });
    expect(error.name).toBe('ApiError');
    expect(error.constructor).toBe(ApiError);
    expect(error.name).toBe(error.constructor.name);
    expect(inspect(error).split('\n')[0]).toBe('ApiError: Conflict');
  });
});

describe('every class in the bundled package', () => {
  it('keeps its name, the client included (`OpenBanking.fromRegistration` once renamed it `_OpenBanking`)', () => {
    const classes = Object.entries(built).filter(([name, value]) => /^[A-Z]/.test(name) && typeof value === 'function');
    expect(classes.map(([name]) => name)).toContain('OpenBanking');
    for (const [name, cls] of classes) expect(`${name}: ${cls.name}`).toBe(`${name}: ${name}`);
  });
});
