// Runs every TypeScript and JavaScript block of README.md and docs/*.md the way a reader runs it:
// saved under the file name its first line gives (`// first-card.mjs`), in a project whose
// package.json is what `npm init -y` writes ("type": "commonjs" with npm 11), with the package
// installed (node_modules/openbanking-ng is this checkout, built: run `npm run build` first) beside
// the other packages the block imports, and run with `node first-card.mjs`, or for TypeScript
// `node --import scripts/doc-blocks/ts-hooks.mjs first-card.mts` (esbuild strips the types, as tsx
// does). Nothing else is added: no environment of the provider, no stand-ins for undeclared names.
// Each block runs against the local sandbox it starts itself; a block that does not end by itself
// within 30 s fails. A block without a file name fails too.
//
// A block that cannot run says why in a marker on the line before it, which this script prints:
//   <!-- not run: browser-only: location and sessionStorage -->
//
//   node scripts/doc-blocks/run.mjs [guide…]     # after npm run build; `authentication` runs docs/authentication.md
//   node scripts/doc-blocks/run.mjs other.md     # the blocks of another Markdown file
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { programBlocks } from './blocks.mjs';

const root = resolve(import.meta.dirname, '../..');
const out = join(root, '.tmp', 'doc-run');
const TIMEOUT_MS = 30_000;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// Arguments: parts of guide names (`authentication`), or paths of other Markdown files to run instead.
const filters = process.argv.slice(2);
const files = filters.filter((f) => f.endsWith('.md') && existsSync(f)).map((f) => resolve(f));
const guides = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))];
const sources = files.length > 0 ? files : guides.filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));

// The package.json of a fresh project, written by npm itself.
const fresh = join(out, 'my-app');
mkdirSync(fresh);
execFileSync('npm', ['init', '-y'], { cwd: fresh, stdio: 'ignore' });
const manifest = readFileSync(join(fresh, 'package.json'), 'utf8');

/** The packages a block imports by name (`redis`, `@opentelemetry/api`), without their subpaths. */
function packagesOf(code) {
  const names = [...code.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]([^'"./][^'"]*)['"]/g)].map((m) => m[1]);
  return [...new Set(names.filter((n) => !n.startsWith('node:')).map((n) => n.split('/').slice(0, n.startsWith('@') ? 2 : 1).join('/')))];
}

/** A project of its own for the block: package.json, the block under its name, node_modules linked. */
function project(block, index) {
  const dir = join(out, String(index).padStart(3, '0'));
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), manifest);
  writeFileSync(join(dir, block.file), `${block.code}\n`);
  for (const name of packagesOf(block.code)) {
    const link = join(dir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(name === 'openbanking-ng' ? root : join(root, 'node_modules', name), link, 'dir');
  }
  return dir;
}

function run(block, dir, env) {
  const typescript = /\.[mc]?ts$/.test(block.file);
  const args = typescript ? ['--import', join(import.meta.dirname, 'ts-hooks.mjs'), block.file] : [block.file];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ ok: code === 0, output: output + (signal ? `\n(killed: ${signal}: it did not end within ${TIMEOUT_MS / 1000} s)` : '') });
    });
  });
}

const blocks = sources.flatMap((file) => programBlocks(file).map((b) => ({ ...b, where: `${relative(root, file)}:${b.line}` })));
const unnamed = blocks.filter((b) => b.problem);
const skipped = blocks.filter((b) => !b.problem && b.skip);
const runnable = blocks.filter((b) => !b.problem && !b.skip);

// The reader's shell: none of the provider's settings, the redis-server of the blocks that use one.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OB_') && !name.startsWith('npm_')));
env.NO_COLOR = '1';
let redis;
const wantRedis = runnable.filter((b) => /REDIS_URL/.test(b.code));
// OPENBANKING_REDIS_SERVER names the binary; else Debian's, else the first on PATH (as vitest.config.ts).
const named = process.env.OPENBANKING_REDIS_SERVER;
const tried = named ? [named] : ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'redis-server'))];
const redisSearch = { found: tried.find((p) => existsSync(p)), tried, fromVariable: Boolean(named) };
if (wantRedis.length > 0 && redisSearch.found) {
  const { startRedis } = await import('../redis-server.mjs');
  redis = await startRedis();
  env.REDIS_URL = `redis://127.0.0.1:${redis.port}`;
} else if (wantRedis.length > 0 && process.env.CI) throw new Error('redis-server is missing: the guide blocks that use REDIS_URL run against a real one');
const withoutRedis = env.REDIS_URL ? [] : wantRedis;

const queue = runnable.filter((b) => !withoutRedis.includes(b)).map((block, i) => ({ block, dir: project(block, i) }));
const results = [];
const workers = Array.from({ length: 2 }, async () => {
  for (let item = queue.shift(); item; item = queue.shift()) results.push({ ...item, ...(await run(item.block, item.dir, env)) });
});
await Promise.all(workers);
await redis?.stop();

results.sort((a, b) => a.block.where.localeCompare(b.block.where, 'en', { numeric: true }));
let failed = unnamed.length;
for (const b of unnamed) console.log(`✗ ${b.where}: ${b.problem}`);
for (const { block, dir, ok, output } of results) {
  if (ok) continue;
  failed++;
  console.log(`✗ ${block.where}: ${block.file} (in ${relative(root, dir)})\n${output.trim().replace(/^/gm, '    ')}`);
}
const okCount = results.filter((r) => r.ok).length;
console.log(`${okCount} of ${results.length + unnamed.length} guide blocks ran under their file names in an \`npm init -y\` project, against the local sandbox${failed ? `, ${failed} failed` : ''}; ${skipped.length} marked not run:`);
for (const b of skipped) console.log(`  - ${b.where} (${b.file}): ${b.skip}`);
if (withoutRedis.length > 0) {
  const where = redisSearch.fromVariable ? `OPENBANKING_REDIS_SERVER names ${redisSearch.tried[0]}, which does not exist` : `none was found at ${redisSearch.tried.join(', ')}`;
  console.log(`not run: ${withoutRedis.map((b) => b.where).join(', ')} need a redis-server (${where}); CI runs them`);
}
if (failed > 0) process.exitCode = 1;
