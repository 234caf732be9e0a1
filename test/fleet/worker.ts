// One process of a fleet, run by the fleet tests and `npm run bench:fleet` as a child process
// (bundled from this file with esbuild). It reads its task as JSON from argv[2] and prints one
// JSON line per event on stdout: { type: 'log', level, message } for the client's log lines,
// { type: 'result', ... } at the end.
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { aesGcmCipher, type ClientOptions, OpenBanking, type TokenSet } from '../../src/index.js';
import { redisFleet } from '../../src/redis.js';
import { validCard } from '../support/cards.js';

export interface WorkerTask {
  task: 'cards' | 'refresh' | 'retry' | 'latency' | 'steps';
  client: 'redis' | 'ioredis';
  redisPort: number;
  prefix: string;
  clientId: string;
  clientSecret: string;
  baseUrl: string;
  authUrl: string;
  /** Print `ready` once set up, then wait for a line on stdin before the calls (every worker of a run starts together). */
  gate?: boolean;
  /** Accelerated clock shared with the sandbox: now = t0 + (Date.now() - t0) * factor. */
  clock?: { t0: number; factor: number };
  environment?: 'sandbox' | 'production';
  rateLimit?: ClientOptions['rateLimit'];
  /** Calls to make (cards, latency). */
  calls?: number;
  /** cards: also list cards (a second scope set) alongside the first create. */
  alsoList?: boolean;
  /** Run without a fleet (latency baseline). */
  noFleet?: boolean;
  /** refresh: the customer's tokens and session id. */
  tokens?: TokenSet;
  customerId?: string;
  /** retry: the idempotency key and the AES-GCM secret. */
  idempotencyKey?: string;
  maxRetries?: number;
  timeout?: number;
  /** steps: one step per line read on stdin, each printing { type: 'step', index, ok, ... }. */
  steps?: { setTokens?: TokenSet; call?: boolean }[];
  /** The fleet store's `set` fails this many times (a connection error), then works again. */
  setFailures?: number;
  /** The event loop stalls this long once, just after the first refresh grant's answer arrives (a slow listener). */
  stallAfterRefreshMs?: number;
  /** `previousClientSecrets` of the client. */
  previousClientSecrets?: string[];
  /** The secret the identity host and API accept (a rotation: the SDK holds a new one): grants and signatures are sent with it. */
  acceptedSecret?: string;
}

const out = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

async function connect(task: WorkerTask): Promise<{ client: unknown; roundTrips: number[]; close(): Promise<void> }> {
  const roundTrips: number[] = [];
  const timed = <A extends unknown[]>(fn: (...args: A) => Promise<unknown>) =>
    async (...args: A) => {
      const started = performance.now();
      try {
        return await fn(...args);
      } finally {
        roundTrips.push(performance.now() - started);
      }
    };
  if (task.client === 'redis') {
    const client = createClient({ url: `redis://127.0.0.1:${task.redisPort}`, socket: { reconnectStrategy: () => 100 } });
    client.on('error', () => undefined);
    await client.connect();
    const send = client.sendCommand.bind(client);
    (client as unknown as { sendCommand: unknown }).sendCommand = timed(send as (args: string[]) => Promise<unknown>);
    return { client, roundTrips, close: () => client.quit().then(() => undefined) };
  }
  const client = new IORedis({ port: task.redisPort, host: '127.0.0.1', retryStrategy: () => 100, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
  const call = client.call.bind(client) as (...args: string[]) => Promise<unknown>;
  (client as unknown as { call: unknown }).call = timed(call);
  return { client, roundTrips, close: async () => void client.disconnect() };
}

const card = (i: number) => validCard({ card_holder_name: `Fleet Worker ${i}` });

/** A store's methods bound to it, to override one. */
function bind(store: ReturnType<typeof redisFleet>): ReturnType<typeof redisFleet> {
  return {
    get: (key) => store.get(key),
    set: (key, value, ttl) => store.set(key, value, ttl),
    compareAndSet: (key, expected, value, ttl) => store.compareAndSet(key, expected, value, ttl),
    compareAndDelete: (key, expected) => store.compareAndDelete(key, expected),
    lock: (key, ttl) => store.lock(key, ttl),
    unlock: (key, owner) => store.unlock(key, owner),
    take: (key, bucket) => store.take(key, bucket),
  };
}

/** During a rotation the provider accepts the old secret too: requests leave signed and authenticated with `accepted`. */
function rotatedFetch(accepted: string): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    const key = headers.get('idempotency-key');
    if (key !== null) headers.set('signature', createHash('sha256').update(`${accepted};${key}`).digest('hex'));
    let body: string | undefined = request.method === 'GET' ? undefined : await request.text();
    if (body !== undefined && headers.get('content-type')?.includes('x-www-form-urlencoded')) {
      const form = new URLSearchParams(body);
      if (form.has('client_secret')) form.set('client_secret', accepted);
      body = form.toString();
    }
    return fetch(new Request(request.url, { method: request.method, headers, body }));
  };
}

function describe(error: unknown): Record<string, unknown> {
  const e = error as { name?: string; message?: string; errorCode?: string; error?: string; status?: number };
  return { name: e?.name, message: e?.message, errorCode: e?.errorCode, error: e?.error, status: e?.status };
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2]!) as WorkerTask;
  const redis = await connect(task);
  const clock = task.clock;
  const now = clock ? () => clock.t0 + (Date.now() - clock.t0) * clock.factor : Date.now;
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(resolve, clock ? ms / clock.factor : ms);
      signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  const log = (level: string) => (message: string) => out({ type: 'log', level, message });
  let store: ReturnType<typeof redisFleet> | undefined = redisFleet(redis.client as Parameters<typeof redisFleet>[0], { prefix: task.prefix });
  if (task.setFailures) {
    let failures = task.setFailures;
    const inner = store;
    store = { ...bind(inner), set: (key, value, ttl) => (failures-- > 0 ? Promise.reject(Object.assign(new Error('connection lost'), { code: 'ECONNRESET' })) : inner.set(key, value, ttl)) };
  }
  const options = (fleet: boolean): ClientOptions => ({
    clientId: task.clientId,
    clientSecret: task.clientSecret,
    baseUrl: task.baseUrl,
    authUrl: task.authUrl,
    environment: task.environment ?? 'sandbox',
    cipher: aesGcmCipher(task.clientSecret),
    ...(fleet ? { fleet: store } : {}),
    ...(task.previousClientSecrets ? { previousClientSecrets: task.previousClientSecrets } : {}),
    ...(task.acceptedSecret ? { fetch: rotatedFetch(task.acceptedSecret) } : {}),
    ...(task.rateLimit === undefined ? {} : { rateLimit: task.rateLimit }),
    ...(task.maxRetries === undefined ? {} : { maxRetries: task.maxRetries }),
    ...(task.timeout === undefined ? {} : { timeout: task.timeout }),
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    logLevel: 'info',
    now,
    sleep,
  });
  const ob = new OpenBanking(options(!task.noFleet));
  if (task.stallAfterRefreshMs) {
    let stalled = false;
    ob.on('token', (event) => {
      if (event.grant !== 'refresh_token' || stalled) return;
      stalled = true;
      const until = Date.now() + task.stallAfterRefreshMs!;
      while (Date.now() < until); // the whole process stands still, as under a slow redaction
    });
  }
  if (task.gate) {
    const go = new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
    out({ type: 'ready' });
    await go;
  }
  out({ type: 'started' });

  if (task.task === 'cards') {
    const finished: number[] = [];
    const errors: unknown[] = [];
    const listed = task.alsoList ? ob.cards.list().catch((error: unknown) => void errors.push(describe(error))) : undefined;
    for (let i = 0; i < (task.calls ?? 1); i++) {
      try {
        await ob.cards.create(card(i));
      } catch (error) {
        errors.push(describe(error));
      }
      finished.push(now());
    }
    await listed;
    out({ type: 'result', finished, errors });
  } else if (task.task === 'refresh') {
    let onTokens = 0;
    const session = ob.forCustomer(task.tokens!, { id: task.customerId!, onTokens: () => void onTokens++ });
    try {
      const customer = await session.customers.retrieve();
      out({ type: 'result', ok: true, onTokens, customer: customer.customer_id ?? null, accessToken: session.tokens.access_token.slice(0, 12) });
    } catch (error) {
      out({ type: 'result', ok: false, onTokens, error: describe(error) });
    }
  } else if (task.task === 'steps') {
    const session = ob.forCustomer(task.tokens!, { id: task.customerId!, onConsentEnded: (error) => void out({ type: 'ended', reason: error.reason }) });
    const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    for (const [index, step] of task.steps!.entries()) {
      await lines.next();
      if (step.setTokens) session.setTokens(step.setTokens);
      try {
        if (step.call !== false) await session.customers.retrieve();
        out({ type: 'step', index, ok: true, accessToken: session.tokens.access_token.slice(0, 12) });
      } catch (error) {
        out({ type: 'step', index, ok: false, error: { ...describe(error), reason: (error as { reason?: string }).reason } });
      }
    }
  } else if (task.task === 'retry') {
    try {
      const created = await ob.cards.create(card(0), { idempotencyKey: task.idempotencyKey! }).withResponse();
      out({ type: 'result', ok: true, cardId: created.data.card_id, status: created.response.status });
    } catch (error) {
      out({ type: 'result', ok: false, error: describe(error) });
    }
  } else {
    // The same calls with and without the fleet, alternating in one process, so that whatever else
    // the machine does weighs on both alike. The first call of each (token, connection) is left out.
    const plain = new OpenBanking(options(false));
    const latencies: number[] = [];
    const baseline: number[] = [];
    const perCall: number[] = [];
    for (let i = 0; i < (task.calls ?? 1); i++) {
      for (const [client, into] of (i % 2 ? [[ob, latencies], [plain, baseline]] : [[plain, baseline], [ob, latencies]]) as [OpenBanking, number[]][]) {
        const before = redis.roundTrips.length;
        const started = performance.now();
        await client.cards.list();
        if (i > 0) into.push(performance.now() - started);
        if (i > 0 && client === ob) perCall.push(...redis.roundTrips.slice(before));
      }
    }
    out({ type: 'result', latencies, baseline, roundTrips: perCall, roundTripsPerCall: perCall.length / Math.max(1, latencies.length) });
  }
  await redis.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    out({ type: 'result', crashed: describe(error) });
    process.exit(1);
  },
);
