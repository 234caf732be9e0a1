import type { FleetStore } from '../index.js';
import { redisFleet } from '../redis.js';

// `--redis URL`: the day's totals of the money tools in Redis, so that they outlive the process
// and every server process shares them. The `redis` package is the operator's (an optional peer).

/** The fleet store over a Redis connection, and how to let it go. */
export interface LedgerStore {
  fleet: FleetStore;
  close(): Promise<void>;
}

/** Where a Redis URL points, without its credentials: for messages. */
function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the given URL';
  }
}

/** Connects to Redis at `url` (node-redis), or rejects saying why: the package missing, or no answer. */
export async function openLedgerStore(url: string): Promise<LedgerStore> {
  let redis: typeof import('redis');
  try {
    redis = await import('redis');
  } catch {
    throw new Error('--redis needs the redis package beside openbanking-ng. Install it:\n  npm install redis');
  }
  const client = redis.createClient({ url, socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000) } });
  // Failures of a connection already made show up as LimitUnavailable on the money tools; an
  // 'error' listener keeps them from ending the process.
  client.on('error', () => undefined);
  const failed = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`Redis at ${where(url)} did not answer within 5 s: the day's total cannot be kept there`)), 5_000).unref());
  try {
    await Promise.race([client.connect(), failed]);
  } catch (error) {
    void client.destroy();
    throw error instanceof Error && error.message.startsWith('Redis at') ? error : new Error(`Redis at ${where(url)} could not be reached: the day's total cannot be kept there`);
  }
  return {
    fleet: redisFleet(client, { prefix: 'openbanking-ng-mcp' }),
    close: async () => void (await client.quit().catch(() => undefined)),
  };
}
