// Runs every TypeScript and JavaScript block of README.md and docs/*.md that talks to the API,
// against the local sandbox, the way a reader pastes it into a file: each block a module of its own,
// in a process of its own, importing the package by name (the built dist/, through the package's
// own exports). What a block `declare`s (the reader's own tokens, database, session) comes from
// scripts/doc-blocks/harness.mjs, which also points the provider's hosts at the sandbox.
//
// A block that cannot run says why in a marker on the line before it, which this script prints:
//   <!-- not run: browser-only: location and sessionStorage -->
//
//   node scripts/doc-blocks/run.mjs [file…]      # after npm run build
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative, resolve } from 'node:path';
import { transform } from 'esbuild';

const root = resolve(import.meta.dirname, '../..');
const out = join(root, '.tmp', 'doc-run');
const TIMEOUT_MS = 30_000;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const filters = process.argv.slice(2);
const sources = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))].filter(
  (file) => filters.length === 0 || filters.some((f) => file.includes(f)),
);

/** The ts/js blocks of a Markdown file, with the marker line before each. */
function blocksOf(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript|js|javascript)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    const marker = /^<!--\s*not run:\s*(.+?)\s*-->$/.exec(lines[i - 1]?.trim() ?? '')?.[1];
    found.push({ where: `${relative(root, file)}:${i + 1}`, lang: open[1], code: lines.slice(i + 1, end).join('\n'), skip: marker });
    i = end;
  }
  return found;
}

/** `declare const name: Type` and `declare function name(…)` at the start of a line: `[{ name, type }]`. */
function declaredNames(code) {
  return [...code.matchAll(/^declare (?:const|let|function) (\w+)\s*([^;\n]*)/gm)].map((m) => ({ name: m[1], type: m[2] }));
}

/** The block as a module: TypeScript stripped, the declared names bound by the harness. */
async function moduleOf(block) {
  const js = block.lang.startsWith('t') ? (await transform(block.code, { loader: 'ts', format: 'esm', target: 'esnext' })).code : block.code;
  const declared = declaredNames(block.code);
  const prelude = declared.length === 0 ? '' : `const { ${declared.map((d) => d.name).join(', ')} } = await globalThis.__docBlock.bind(${JSON.stringify(declared)});\n`;
  return `${prelude}${js}\nexport {};\n`;
}

/** A redis-server for the blocks that connect to REDIS_URL, when the machine has one. */
function redisBinary() {
  const candidates = process.env.OPENBANKING_REDIS_SERVER ? [process.env.OPENBANKING_REDIS_SERVER] : ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'redis-server'))];
  return candidates.find((p) => existsSync(p));
}

function run(file, env) {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', join(import.meta.dirname, 'harness.mjs'), join(import.meta.dirname, 'entry.mjs'), file], { cwd: root, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ ok: code === 0, output: output + (signal ? `\n(killed: ${signal}, after ${TIMEOUT_MS / 1000} s)` : '') });
    });
  });
}

const blocks = (await Promise.all(sources.map(async (file) => blocksOf(file)))).flat();
const skipped = blocks.filter((b) => b.skip);
const runnable = blocks.filter((b) => !b.skip);
let redis;
const env = {};
if (runnable.some((b) => /REDIS_URL/.test(b.code))) {
  const binary = redisBinary();
  if (binary) {
    const { startRedis } = await import('../redis-server.mjs');
    redis = await startRedis();
    env.REDIS_URL = `redis://127.0.0.1:${redis.port}`;
  } else if (process.env.CI) throw new Error('redis-server is missing: the guide blocks that use REDIS_URL run against a real one');
}
const withoutRedis = env.REDIS_URL ? [] : runnable.filter((b) => /REDIS_URL/.test(b.code));

let failed = 0;
const queue = runnable.filter((b) => !withoutRedis.includes(b)).map((block, i) => ({ block, file: join(out, `${block.where.replace(/[^a-zA-Z0-9]+/g, '_')}_${i}.mjs`) }));
for (const item of queue) writeFileSync(item.file, await moduleOf(item.block));
const results = [];
const workers = Array.from({ length: 2 }, async () => {
  for (let item = queue.shift(); item; item = queue.shift()) results.push({ ...item, ...(await run(item.file, env)) });
});
await Promise.all(workers);
await redis?.stop();
results.sort((a, b) => a.block.where.localeCompare(b.block.where, 'en', { numeric: true }));
for (const { block, ok, output } of results) {
  if (ok) continue;
  failed++;
  console.log(`✗ ${block.where}\n${output.trim().replace(/^/gm, '    ')}`);
}
console.log(`${results.length - failed} of ${results.length} guide blocks ran against the local sandbox${failed ? `, ${failed} failed` : ''}; ${skipped.length} marked not run:`);
for (const b of skipped) console.log(`  - ${b.where}: ${b.skip}`);
if (withoutRedis.length > 0) console.log(`not run: ${withoutRedis.map((b) => b.where).join(', ')} need a redis-server (none on this machine); CI runs them`);
if (failed > 0) process.exitCode = 1;
