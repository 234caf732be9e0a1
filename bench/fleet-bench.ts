// The fleet benchmark (run through bench/fleet.mjs). Four figures, per Redis client:
//  1. 4 processes × 25 cards.create under the production limits (10/min, burst 20) on the sandbox's
//     accelerated clock (×10: a budget minute lasts 6 real seconds): 429s, and when the last call
//     finished against the time the budget allows (first call + 80 × 6 s).
//  2. 8 processes starting together: client-credentials token requests (two scope sets).
//  3. 8 processes, one customer id, an expired token: refresh grants, invalid_grant, onTokens.
//  4. Overhead: one process, 1000 cards.list with and without the fleet, alternating (limiter on,
//     budget not the limit): p50/p99 per call, and the Redis round trips per call with their p50/p99.
import { aesGcmCipher } from '../src/index.js';
import { startSandboxServer } from '../src/testing.js';
import { buildWorker, percentile, runWorkers, startRedis } from '../test/fleet/support.js';
import type { WorkerTask } from '../test/fleet/worker.js';

const SECRET = 'bench-secret-0123456789abcdef';
const FACTOR = 10;
const round = (n: number, d = 3) => Number(n.toFixed(d));

async function main(): Promise<void> {
  const [redis] = await Promise.all([startRedis(), buildWorker()]);
  const report: Record<string, unknown> = { node: process.version, cores: (await import('node:os')).availableParallelism(), clock: `accelerated ×${FACTOR} for the rate budget` };
  try {
    for (const client of ['redis', 'ioredis'] as const) {
      const out: Record<string, unknown> = {};
      let n = 0;
      const base = (server: { baseUrl: string; authUrl: string }, extra: Partial<WorkerTask>): WorkerTask => ({
        task: 'cards', client, redisPort: redis.port, prefix: `bench-${client}-${n}`, clientId: 'bench-app', clientSecret: SECRET, baseUrl: server.baseUrl, authUrl: server.authUrl, ...extra,
      });
      const clients = [{ clientId: 'bench-app', clientSecret: SECRET }];

      // 1. The rate budget.
      {
        n++;
        const t0 = Date.now();
        const now = () => t0 + (Date.now() - t0) * FACTOR;
        const server = await startSandboxServer({ environment: 'production', rateLimits: true, now, clients, cipher: aesGcmCipher(SECRET) });
        const runs = await runWorkers(4, () => base(server, { calls: 25, clock: { t0, factor: FACTOR }, rateLimit: true, environment: 'production' }), 120_000);
        const arrivals = server.requests.list({ path: '/openapi/v1/cards', method: 'POST' });
        const first = arrivals[0]!.at;
        const last = Math.max(...runs.flatMap((r) => (r.result?.finished as number[]) ?? []));
        const allowed = 80 * 6_000;
        out.rateBudget = {
          calls: arrivals.length,
          errors: runs.reduce((s, r) => s + ((r.result?.errors as unknown[])?.length ?? 1), 0),
          status429: arrivals.filter((r) => r.status === 429).length,
          lastFinishedSeconds: round((last - first) / 1000, 1),
          budgetAllowsSeconds: allowed / 1000,
          overBudgetPercent: round(((last - first) / allowed - 1) * 100, 2),
        };
        await server.close();
      }
      const server = await startSandboxServer({ clients, cipher: aesGcmCipher(SECRET) });
      // 2. Tokens.
      {
        n++;
        const runs = await runWorkers(8, () => base(server, { calls: 1, alsoList: true }));
        out.tokens = { processes: 8, scopeSets: 2, tokenRequests: server.requests.count({ path: '/oauth2/token', method: 'POST' }), failedProcesses: runs.filter((r) => (r.result?.errors as unknown[])?.length !== 0).length };
      }
      // 3. Customer refresh.
      {
        n++;
        server.reset();
        const issued = server.issueTokens({ clientId: 'bench-app', scope: ['customers.readonly'], kind: 'customer' });
        const tokens = { ...issued, expires_at: Math.floor(Date.now() / 1000) - 10 };
        const runs = await runWorkers(8, () => base(server, { task: 'refresh', tokens, customerId: 'customer-42' }));
        const grants = server.requests.list({ path: '/oauth/token', method: 'POST' });
        out.customerRefresh = {
          processes: 8,
          refreshGrants: grants.length,
          invalidGrant: grants.filter((g) => g.status !== 200).length + runs.filter((r) => (r.result?.error as { error?: string })?.error === 'invalid_grant').length,
          onTokens: runs.reduce((s, r) => s + Number(r.result?.onTokens ?? 0), 0),
          failedProcesses: runs.filter((r) => r.result?.ok !== true).length,
        };
      }
      // 4. Overhead per call.
      {
        const limit = { rate: 1_000_000, burst: 1_000_000 };
        n++;
        const [run] = await runWorkers(1, () => base(server, { task: 'latency', calls: 1000, rateLimit: limit }));
        // The first 50 pairs warm up (JIT, connections); the overhead is the median of paired differences.
        const fleet = (run!.result!.latencies as number[]).slice(50);
        const plain = (run!.result!.baseline as number[]).slice(50);
        const paired = fleet.map((v, i) => v - plain[i]!);
        const trips = run!.result!.roundTrips as number[];
        out.overhead = {
          calls: fleet.length,
          callP50WithFleetMs: round(percentile(fleet, 50)),
          callP50WithoutMs: round(percentile(plain, 50)),
          overheadP50Ms: round(percentile(paired, 50)),
          differenceOfP50sMs: round(percentile(fleet, 50) - percentile(plain, 50)),
          callP99WithFleetMs: round(percentile(fleet, 99)),
          callP99WithoutMs: round(percentile(plain, 99)),
          redisRoundTripsPerCall: round(Number(run!.result!.roundTripsPerCall), 2),
          redisRoundTripP50Ms: round(percentile(trips, 50)),
          redisRoundTripP99Ms: round(percentile(trips, 99)),
        };
      }
      await server.close();
      report[client] = out;
    }
  } finally {
    await redis.stop();
  }
  console.log(JSON.stringify(report, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
