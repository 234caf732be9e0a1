// One variant, in a fresh process: `node --expose-gc bench/client.mjs <variant> <origin>`.
// Runs the phases in order and sends the figures to the parent (bench/run.mjs) over IPC.
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { PHASES } from './fixtures.mjs';
import { VARIANTS } from './variants.mjs';

const started = performance.now();
const [name, origin] = process.argv.slice(2);
const variant = VARIANTS[name];
if (!variant || !origin) throw new Error('usage: client.mjs <variant> <origin>');
if (typeof global.gc !== 'function') throw new Error('run with --expose-gc');

let seq = 0;
let failures = 0;
let firstFailure;

/** Full collections, with a turn of the event loop between them so that pending finalizers run. */
async function collect() {
  for (let i = 0; i < 3; i++) {
    global.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Control requests to the server go through node:http, outside every timed phase. */
function control(path, headers = {}) {
  return new Promise((resolve, reject) => {
    const url = new URL(path, origin);
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}

async function one(call) {
  try {
    const data = await call(++seq);
    if (typeof data?.card_id !== 'string') throw new Error('no card_id in the answer');
  } catch (error) {
    failures++;
    firstFailure ??= String(error?.stack ?? error);
  }
}

async function sequential(call, n, latencies) {
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await one(call);
    if (latencies) latencies[i] = performance.now() - t;
  }
}

async function concurrent(call, n, width) {
  let left = n;
  const worker = async () => {
    while (left > 0) {
      left--;
      await one(call);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}

const cpuMicros = (usage) => usage.user + usage.system;
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function main() {
  // Cold: import, construct, token, first card.
  const call = await variant.setup(origin);
  await one(call);
  const coldMs = performance.now() - started;

  // Warm-up: undici needs a few thousand requests to reach its steady state.
  await sequential(call, PHASES.warmupSequential);
  await concurrent(call, PHASES.warmupConcurrent, PHASES.concurrency);

  // Sequential calls: latency and CPU per call.
  await collect();
  const latencies = new Float64Array(PHASES.sequential);
  let cpu = process.cpuUsage();
  await sequential(call, PHASES.sequential, latencies);
  const seqCpu = cpuMicros(process.cpuUsage(cpu)) / PHASES.sequential;
  latencies.sort();

  // Concurrency 32: throughput and CPU per call.
  await collect();
  cpu = process.cpuUsage();
  let t = performance.now();
  await concurrent(call, PHASES.concurrent, PHASES.concurrency);
  const concWallMs = performance.now() - t;
  const concCpu = cpuMicros(process.cpuUsage(cpu)) / PHASES.concurrent;

  // 429 on a tenth of the attempts: every call must still succeed, with the same key, signature and body on every attempt.
  await control('/__bench/phase', { 'x-refuse-429': '1' });
  const failuresBefore = failures;
  await concurrent(call, PHASES.retry, PHASES.retryConcurrency);
  const retryReport = await control('/__bench/phase');
  const retryFailures = failures - failuresBefore;

  // Heap growth over 10,000 calls, measured after full collections.
  await collect();
  const heapBefore = process.memoryUsage().heapUsed;
  await concurrent(call, PHASES.heap, PHASES.concurrency);
  await collect();
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore;

  return {
    name,
    coldMs,
    p50Us: quantile(latencies, 0.5) * 1000,
    p99Us: quantile(latencies, 0.99) * 1000,
    seqCpuUs: seqCpu,
    concCallsPerSec: PHASES.concurrent / (concWallMs / 1000),
    concCpuUs: concCpu,
    retry: { calls: PHASES.retry, failed: retryFailures, attempts: retryReport.attempts, refused: retryReport.refused, violations: retryReport.violations, rejected: retryReport.rejected },
    heapGrowthBytes: heapGrowth,
    failures,
    firstFailure,
  };
}

main().then(
  (result) => process.send(result, () => process.exit(0)),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
