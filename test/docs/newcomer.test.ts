import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesNeedingRedis } from '../support/redis-binary.js';

// What a newcomer meets first: README's top, its scripts table and policies, and a CHANGELOG that
// agrees with the version `npm pack` ships.

const readme = readFileSync('README.md', 'utf8');
const changelog = readFileSync('CHANGELOG.md', 'utf8');
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; scripts: Record<string, string> };

describe('README for a newcomer', () => {
  it('opens with a Try it box: the user’s npm install beside the clone’s two commands, before anything else', () => {
    const sections = readme.split(/^## /m).map((s) => s.split('\n')[0]);
    expect(sections[1]).toBe('Try it');
    const box = readme.split(/^## /m)[1]!;
    expect(box).toContain('npm install openbanking-ng');
    expect(box).toContain('npm ci && npm start');
    expect(box).toContain('npm test');
    expect(box).toContain('npm run test:quick');
  });

  it('lists the faster test subset and the build in its scripts table, each a real script', () => {
    const table = readme.slice(readme.indexOf('## Working on the package'));
    for (const script of ['test:quick', 'build', 'docs:run', 'test:runtimes', 'test:browser']) {
      expect(table).toContain(`npm run ${script}`);
      expect(pkg.scripts[script], script).toBeTypeOf('string');
    }
  });

  it('states which Node lines are supported and what happens at their end of life, matching engines', () => {
    const policy = readme.slice(readme.indexOf('**Node support policy.**')).split('\n\n')[0]!;
    expect(policy).toMatch(/Node 24/);
    expect(policy).toMatch(/Node 22/);
    expect(policy).toMatch(/20\.19/);
    expect(policy).toMatch(/end of\s+life/);
    const engines = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=20.19.0');
  });

  it('links the going-live checklist (docs/security.md)', () => {
    expect(readme).toContain('](docs/security.md)');
  });

  it('no doc comment points to a file the package does not ship (OPERATIONS.md rendered as http://OPERATIONS.md)', () => {
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => readFileSync(`src/${f}`, 'utf8').includes('OPERATIONS.md'))).toEqual([]);
  });
});

describe('npm run test:quick, the contributor’s loop', () => {
  const files = (...args: string[]) =>
    (JSON.parse(execFileSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'list', '--filesOnly', '--json', ...args], { encoding: 'utf8', env: { ...process.env, CI: 'true' } })) as { file: string }[]).map((f) =>
      relative(process.cwd(), f.file),
    );

  it('runs the unit and operation tests, without the fleet, redis, end-to-end or reliability files; npm test runs them all', () => {
    expect(pkg.scripts['test:quick']).toBe('vitest run --config vitest.quick.config.ts');
    const quick = files('--config', 'vitest.quick.config.ts');
    const all = files();
    expect(quick).toEqual(expect.arrayContaining(['test/pipeline.test.ts', 'test/operations/transfers.test.ts', 'test/sandbox/cards.test.ts']));
    expect(quick.filter((f) => /^test\/(fleet|e2e|reliability|stress|browser)\//.test(f) || filesNeedingRedis().includes(f))).toEqual([]);
    expect(quick.filter((f) => !all.includes(f))).toEqual([]);
    expect(all).toEqual(expect.arrayContaining(['test/fleet/faults.test.ts', 'test/mcp/daily.test.ts', 'test/e2e/oauth-sandbox.test.ts', 'test/reliability/fault-matrix.test.ts']));
  });
});

describe('npm ci for a newcomer', () => {
  it('warns about no install script: every locked package that has one is approved or denied in allowScripts', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const allow = (JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect([...new Set(withScripts)].filter((name) => !(name in allow))).toEqual([]);
  });
});

describe('CHANGELOG and the package version', () => {
  const releases = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({ name: m[1]!, date: m[2] }));

  it('starts with Unreleased, then the version package.json ships, dated', () => {
    expect(releases[0]!.name).toBe('Unreleased');
    expect(releases[1]).toEqual({ name: pkg.version, date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  });

  it('gives every release a date and each of its kinds of change once (Keep a Changelog)', () => {
    for (const release of releases.slice(1)) expect(release.date, release.name).toBeDefined();
    const bodies = changelog.split(/^## /m).slice(1);
    for (const body of bodies) {
      const kinds = [...body.matchAll(/^### (.+)$/gm)].map((m) => m[1]!);
      expect(new Set(kinds).size, body.split('\n')[0]).toBe(kinds.length);
      for (const kind of kinds) expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(kind);
    }
  });
});
