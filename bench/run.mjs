// `npm run bench`: the SDK against hand-written fetch code, the node:http floor and ky, on loopback.
//
//   node bench/run.mjs [--rounds 3] [--only fetch,sdk] [--sdk-base ../other/dist/index.js,…] [--profile]
//
// The API server runs in its own process; every variant runs in a fresh child process, one after
// another, and the order rotates each round. Figures are medians over the rounds; ratios are taken
// within each round (same machine state) and their median is reported. The last line gives the
// SDK's ratios to raw fetch. `--sdk-base` adds other builds of the SDK (say, the last release's
// dist/index.js) as variants `sdk@<folder>`, for before/after figures from one run. `--profile` instead
// records a CPU profile of each variant and shows where its time goes, per call.
import { fork } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureBuild, root } from './build.mjs';
import { PHASES } from './fixtures.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const bases = flag('--sdk-base', undefined)?.split(',').map((file) => resolve(file));
if (bases) process.env.BENCH_SDK_BASE = bases.join(','); // read by variants.mjs, here and in the children
const { VARIANTS } = await import('./variants.mjs');
const rounds = Number(flag('--rounds', process.env.BENCH_ROUNDS ?? 3));
const only = flag('--only', undefined)?.split(',');
for (const name of only ?? []) if (!VARIANTS[name]) throw new Error(`unknown variant ${name}: ${Object.keys(VARIANTS).join(', ')}`);
const names = Object.keys(VARIANTS).filter((n) => (only ? only.includes(n) : !VARIANTS[n].extra));
const profile = args.includes('--profile');

function startServer() {
  const server = fork(join(import.meta.dirname, 'server.mjs'), [], { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((ok, fail) => {
    server.once('message', ({ port }) => ok({ server, origin: `http://127.0.0.1:${port}` }));
    server.once('exit', (code) => fail(new Error(`the bench server exited (${code})`)));
  });
}

function runClient(name, origin, execArgv = []) {
  const child = fork(join(import.meta.dirname, 'client.mjs'), [name, origin], {
    cwd: root,
    execArgv: ['--expose-gc', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((ok, fail) => {
    let result;
    child.on('message', (message) => (result = message));
    child.on('exit', (code) => (result && code === 0 ? ok(result) : fail(new Error(`${name}: the client exited with code ${code}`))));
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (value, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mb = (bytes) => `${bytes >= 0 ? '+' : ''}${fmt(bytes / 2 ** 20, 2)}`;

async function bench(origin) {
  const results = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    process.stdout.write(`round ${round + 1}/${rounds}:`);
    for (const name of order) {
      process.stdout.write(` ${name}`);
      results[name].push(await runClient(name, origin));
    }
    process.stdout.write('\n');
  }
  return results;
}

function report(results) {
  const metrics = ['coldMs', 'p50Us', 'p99Us', 'seqCpuUs', 'concCallsPerSec', 'concCpuUs', 'heapGrowthBytes'];
  const med = Object.fromEntries(
    Object.entries(results).map(([name, runs]) => [name, Object.fromEntries(metrics.map((m) => [m, median(runs.map((r) => r[m]))]))]),
  );
  const rows = [
    ['variant', 'cold ms', 'p50 µs', 'p99 µs', 'CPU µs/call', 'calls/s @32', 'CPU µs/call @32', '429 phase ok / attempts / 429s / violations', 'heap Δ MB'],
  ];
  for (const [name, runs] of Object.entries(results)) {
    const m = med[name];
    const r = runs.reduce(
      (acc, run) => ({ ok: acc.ok + run.retry.calls - run.retry.failed, calls: acc.calls + run.retry.calls, attempts: acc.attempts + run.retry.attempts, refused: acc.refused + run.retry.refused, violations: acc.violations + run.retry.violations }),
      { ok: 0, calls: 0, attempts: 0, refused: 0, violations: 0 },
    );
    rows.push([
      VARIANTS[name].label,
      fmt(m.coldMs, 1),
      fmt(m.p50Us),
      fmt(m.p99Us),
      fmt(m.seqCpuUs),
      fmt(m.concCallsPerSec),
      fmt(m.concCpuUs),
      `${fmt(r.ok)}/${fmt(r.calls)} · ${fmt(r.attempts)} · ${fmt(r.refused)} · ${r.violations}`,
      mb(m.heapGrowthBytes),
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const line = (row) => `| ${row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(' | ')} |`;
  console.log();
  console.log(`Node ${process.version}, ${rounds} round(s), medians. Phases per process: cold first call, warm-up ${PHASES.warmupSequential + PHASES.warmupConcurrent}, ` +
    `${PHASES.sequential} sequential, ${PHASES.concurrent} at concurrency ${PHASES.concurrency}, ${PHASES.retry} with 10 % 429s, heap over ${PHASES.heap}.`);
  console.log(line(rows[0]));
  console.log(`|${widths.map((w, c) => (c === 0 ? ':' : '') + '-'.repeat(w + 1) + (c === 0 ? '' : ':')).join('|')}|`);
  for (const row of rows.slice(1)) console.log(line(row));

  const problems = [];
  for (const [name, runs] of Object.entries(results)) {
    for (const run of runs) {
      if (run.failures > 0) problems.push(`${name}: ${run.failures} failed call(s), first: ${run.firstFailure}`);
      if (run.retry.violations > 0) problems.push(`${name}: ${run.retry.violations} attempt(s) changed key, signature or body`);
    }
  }

  if (!results.fetch) return problems;
  // Ratios within each round, then their median.
  const ratio = (name, metric) => median(results[name].map((run, i) => run[metric] / results.fetch[i][metric]));
  console.log();
  for (const name of Object.keys(results).filter((n) => n !== 'fetch')) {
    console.log(`${VARIANTS[name].label.padEnd(widths[0])}  × raw fetch: CPU/call ${fmt(ratio(name, 'seqCpuUs'), 2)} · CPU/call @32 ${fmt(ratio(name, 'concCpuUs'), 2)} · p50 ${fmt(ratio(name, 'p50Us'), 2)} · calls/s @32 ${fmt(ratio(name, 'concCallsPerSec'), 2)} · cold ${fmt(ratio(name, 'coldMs'), 2)}`);
  }
  for (const p of problems) console.log(`PROBLEM ${p}`);
  if (results.sdk && results['ky-same']) {
    // DESIGN.md: the SDK's own cost, against ky driven the way the SDK drives it (the same retry and timeout options).
    const vsKy = (metric) => median(results.sdk.map((run, i) => run[metric] / results['ky-same'][i][metric]));
    console.log(`sdk / ky driven the same way: CPU/call seq ${fmt(vsKy('seqCpuUs'), 2)}× (≤ 1.20) · CPU/call @32 ${fmt(vsKy('concCpuUs'), 2)}× (≤ 1.20) · p50 ${fmt(vsKy('p50Us'), 2)}×`);
  }
  if (results.sdk) {
    const runs = results.sdk;
    const violations = runs.reduce((n, run) => n + run.retry.violations, 0);
    const ok = runs.reduce((n, run) => n + run.retry.calls - run.retry.failed, 0);
    const calls = runs.reduce((n, run) => n + run.retry.calls, 0);
    console.log(
      `sdk / raw fetch: CPU/call seq ${fmt(ratio('sdk', 'seqCpuUs'), 2)}× (guard ≤ 1.8) · CPU/call @32 ${fmt(ratio('sdk', 'concCpuUs'), 2)}× (guard ≤ 2.2) · ` +
        `p50 ${fmt(ratio('sdk', 'p50Us'), 2)}× · heap ${mb(med.sdk.heapGrowthBytes)} MB after ${fmt(PHASES.heap)} calls (≤ 3) · ` +
        `429 phase ${fmt(ok)}/${fmt(calls)} ok, ${violations} violations`,
    );
  }
  if (results.sdk && results['sdk-otel']) {
    // What instrument(ob) costs: the traced client against the plain one, within each round.
    const extra = (metric) => median(results['sdk-otel'].map((run, i) => run[metric] - results.sdk[i][metric]));
    const times = (metric) => median(results['sdk-otel'].map((run, i) => run[metric] / results.sdk[i][metric]));
    console.log(`instrument(ob), no-op exporters: CPU/call seq +${fmt(extra('seqCpuUs'))} µs (${fmt(times('seqCpuUs'), 2)}× the plain client) · CPU/call @32 +${fmt(extra('concCpuUs'))} µs (${fmt(times('concCpuUs'), 2)}×) · p50 +${fmt(extra('p50Us'))} µs`);
  }
  return problems;
}

/** Self time per call by where the code lives, from a V8 CPU profile. */
function summariseProfile(file, calls) {
  const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const where = (url, fn) => {
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(program)' || fn === '(idle)' || fn === '(root)') return null;
    if (url.includes('/node_modules/ky/')) return 'ky';
    if (url.includes('/node_modules/zod/')) return 'zod';
    if (url.includes('/node_modules/uuid/')) return 'uuid';
    if (url.includes('/node_modules/oauth4webapi/')) return 'oauth4webapi';
    if (url.includes('/dist/')) return 'openbanking-ng';
    if (url.includes('/bench/')) return 'bench harness';
    if (url.includes('internal/deps/undici')) return 'undici (fetch)';
    if (url.includes('internal/webstreams')) return 'web streams';
    if (url.includes('abort_controller') || url.includes('event_target')) return 'AbortSignal, EventTarget';
    if (url === '') return 'native (socket I/O, builtins)';
    if (url.startsWith('node:')) return 'node internals (JS)';
    return 'other';
  };
  const totals = {};
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]);
    const key = where(node.callFrame.url, node.callFrame.functionName);
    if (key) totals[key] = (totals[key] ?? 0) + timeDeltas[i];
  }
  return Object.fromEntries(Object.entries(totals).map(([k, us]) => [k, us / calls]));
}

async function profileRun(origin) {
  const dir = join(root, '.tmp', 'bench-profile');
  const calls = 1 + PHASES.warmupSequential + PHASES.warmupConcurrent + PHASES.sequential + PHASES.concurrent + PHASES.retry + PHASES.heap;
  const table = {};
  for (const name of names) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    console.log(`profiling ${name}…`);
    await runClient(name, origin, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    table[name] = summariseProfile(join(dir, file), calls);
  }
  rmSync(dir, { recursive: true, force: true });
  const categories = [...new Set(Object.values(table).flatMap((t) => Object.keys(t)))].sort((a, b) => (table[names.at(-1)][b] ?? 0) - (table[names.at(-1)][a] ?? 0));
  console.log(`\nCPU self time per call (µs) by where the code lives, all phases (${fmt(calls)} calls):`);
  console.log(`| where | ${names.join(' | ')} |`);
  console.log(`|:--|${names.map(() => '--:').join('|')}|`);
  for (const c of categories) console.log(`| ${c} | ${names.map((n) => fmt(table[n][c] ?? 0, 1)).join(' | ')} |`);
  console.log(`| total | ${names.map((n) => fmt(Object.values(table[n]).reduce((a, b) => a + b, 0), 1)).join(' | ')} |`);
}

ensureBuild();
const { server, origin } = await startServer();
try {
  if (profile) await profileRun(origin);
  else {
    const problems = report(await bench(origin));
    if (problems.length > 0) process.exitCode = 1;
  }
} finally {
  server.disconnect();
}
