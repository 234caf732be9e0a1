// `npm run size`: what the SDK costs in a browser bundle and at a cold start.
//
//   node bench/size.mjs [--runs 41] [--sdk-base ../other/dist/index.js]
//
// 1. gzip (level 9) of esbuild browser bundles (minified, ESM, platform browser) of the
//    `openbanking-ng/pkce` entry and of the full client making one call (bench/size/*.js), with
//    the share of each package in the minified output; then the client built with code splitting
//    (bench/size/split.mjs): every chunk, and the chunks loaded before the first `cards.create` is
//    sent. size-limit checks the pkce entry and both split figures in CI (.size-limit.json).
//    For reference: bench/size/deps-floor.js bundles the dependencies alone doing the same work,
//    bench/size/call-path.js a client limited to the call path (no OAuth flows, customer sessions
//    or registration), and each bundle is measured again without ky and oauth4webapi and without
//    any dependency, to show what each part of the contract costs.
// 2. Cold import: the median of many `node --input-type=module -e "await import('openbanking-ng')"`
//    runs against bare `node -e ""`, interleaved, reported as a ratio. `--sdk-base` adds the import
//    of another build (say, the previous release) to the same interleaved runs.
// 3. Source lines (bench/lines.mjs, `npm run size:lines`): its one-line summary, last.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ensureBuild, root } from './build.mjs';
import { countLines, summaryLine } from './lines.mjs';
import { builtPackage, splitSizes } from './size/split.mjs';

const BUDGETS = { pkce: 4_096 }; // DESIGN.md `sizes`: room for oauth4webapi's own callback checks
/**
 * DESIGN.md `sizes`: with code splitting, what loads before the first `cards.create` is sent, and the whole
 * client, and what the namespaces after `cards` add to that first load.
 */
const SPLIT_BUDGETS = { firstCall: 69_632, whole: 69_632 + 1_024, namespaces: 1_024 };
const REFERENCES = ['full-client', 'deps-floor', 'call-path']; // measured for comparison, no budget
const WITHOUT = { 'without ky, oauth4webapi': ['ky', 'oauth4webapi'], 'own code only': ['ky', 'oauth4webapi', 'zod', 'uuid'] };
const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const runs = Number(flag('--runs') ?? 41);
const base = flag('--sdk-base');


async function bundle(name, external = []) {
  const result = await build({
    plugins: [builtPackage],
    external,
    entryPoints: [join(import.meta.dirname, 'size', `${name}.js`)],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const code = result.outputFiles[0].contents;
  const shares = {};
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? (input.includes('bench/size/') ? 'entry' : input.startsWith('src/schemas/') ? 'card schemas' : 'openbanking-ng');
      shares[pkg] = (shares[pkg] ?? 0) + bytesInOutput;
    }
  }
  return { minified: code.length, gzip: gzipSync(code, { level: 9 }).length, shares };
}

function time(args) {
  const started = process.hrtime.bigint();
  const { status, stderr } = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  if (status !== 0) throw new Error(`node ${args.join(' ')} failed: ${stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const fmt = (n, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

ensureBuild();

console.log('Browser bundles (esbuild: minified, ESM, platform browser; gzip level 9):');
const sizes = {};
for (const name of [...Object.keys(BUDGETS), ...REFERENCES]) {
  const size = (sizes[name] = await bundle(name));
  const parts = Object.entries(size.shares)
    .sort((a, b) => b[1] - a[1])
    .map(([pkg, bytes]) => `${pkg} ${fmt(bytes)}`)
    .join(' · ');
  const budget = BUDGETS[name] ? `budget ${fmt(BUDGETS[name])} B` : 'reference';
  console.log(`  ${name.padEnd(12)} ${fmt(size.gzip).padStart(6)} B gzip (${budget}) · ${fmt(size.minified)} B minified: ${parts}`);
}
const split = await splitSizes(builtPackage);
console.log(`Code splitting (esbuild splitting: true; gzip summed over chunks): the whole client ${fmt(split.whole)} B in ${split.chunks} chunks (budget ${fmt(SPLIT_BUDGETS.whole)} B);`);
console.log(`  loaded before the first cards.create is sent: ${fmt(split.firstCall)} B in ${split.firstChunks} chunks (budget ${fmt(SPLIT_BUDGETS.firstCall)} B)`);
const ns = JSON.parse(spawnSync(process.execPath, [join(import.meta.dirname, 'size', 'namespaces.mjs')], { cwd: root, encoding: 'utf8' }).stdout.trim().split('\n').pop());
console.log(`  the namespaces after cards add ${fmt(ns.added)} B to it (from the sources: ${fmt(ns.all)} B with every namespace, ${fmt(ns.cardsOnly)} B with cards alone; budget ${fmt(SPLIT_BUDGETS.namespaces)} B)`);
console.log('Left out of the bundle (marked external), gzip:');
for (const name of ['full-client', 'call-path']) {
  const rows = [];
  for (const [what, external] of Object.entries(WITHOUT)) rows.push(`${what} ${fmt((await bundle(name, external)).gzip)} B`);
  console.log(`  ${name.padEnd(12)} ${rows.join(' · ')}`);
}

const cold = {
  bare: ['-e', ''],
  'openbanking-ng': ['--input-type=module', '-e', "await import('openbanking-ng')"],
  'openbanking-ng/pkce': ['--input-type=module', '-e', "await import('openbanking-ng/pkce')"],
  'require(openbanking-ng)': ['-e', "require('openbanking-ng')"],
  'zod/mini alone': ['--input-type=module', '-e', "await import('zod/mini')"], // reference: a dependency the main entry imports
};
if (base) cold['--sdk-base build'] = ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(resolve(base)).href)})`];
const times = Object.fromEntries(Object.keys(cold).map((k) => [k, []]));
for (const args of Object.values(cold)) time(args); // warm the file system cache
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(cold)) times[name].push(time(args));
const bare = median(times.bare);
console.log(`\nCold start (median of ${runs} runs each, interleaved; Node ${process.version}):`);
for (const [name, list] of Object.entries(times)) {
  const m = median(list);
  console.log(`  ${name.padEnd(24)} ${fmt(m, 1).padStart(6)} ms${name === 'bare' ? ' (node -e "")' : `  ${fmt(m / bare, 2)}× bare node, +${fmt(m - bare, 1)} ms`}`);
}

const ratio = median(times['openbanking-ng']) / bare;
console.log(
  `\nsize: pkce ${fmt(sizes.pkce.gzip)} B gzip (≤ ${fmt(BUDGETS.pkce)}) · first call ${fmt(split.firstCall)} B (≤ ${fmt(SPLIT_BUDGETS.firstCall)}) · namespaces after cards +${fmt(ns.added)} B (≤ ${fmt(SPLIT_BUDGETS.namespaces)}) · whole client ${fmt(split.whole)} B (≤ ${fmt(SPLIT_BUDGETS.whole)}) · one bundle ${fmt(sizes['full-client'].gzip)} B · cold import ${fmt(ratio, 2)}× bare node (≤ 1.8)`,
);
console.log(summaryLine(countLines()));
if (sizes.pkce.gzip > BUDGETS.pkce || split.firstCall > SPLIT_BUDGETS.firstCall || split.whole > SPLIT_BUDGETS.whole || ns.added > SPLIT_BUDGETS.namespaces) process.exitCode = 1;
