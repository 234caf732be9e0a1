// The fleet tests' own Redis and processes: a redis-server started on a free loopback port with
// no persistence (never the machine's default server), and worker processes (test/fleet/worker.ts
// bundled with esbuild) that print their events as JSON lines.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import type { WorkerTask } from './worker.js';

/** `OPENBANKING_REDIS_SERVER`, else Debian's redis-server, else the first one on PATH (a newcomer's machine may keep it elsewhere). */
export const REDIS_SERVER =
  process.env.OPENBANKING_REDIS_SERVER ??
  ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'redis-server'))].find((path) => existsSync(path)) ??
  '/usr/bin/redis-server';
// This folder, also when this file runs bundled from test/fleet/.build/ (the benchmark).
const here = fileURLToPath(new URL('.', import.meta.url)).replace(/\.build\/$/, '');
export const WORKER_BUNDLE = `${here}.build/worker.mjs`;

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True once something accepts TCP connections on the port and answers PING. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.setTimeout(200, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** A redis-server this test started, and stops. */
export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: a crash, not a shutdown) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  start(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  if (!existsSync(REDIS_SERVER)) throw new Error(`redis-server is missing (${REDIS_SERVER} does not exist, and none is on PATH): apt-get install -y redis-server`);
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const c = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'ignore'] });
    child = c;
    // redis-server says so on stdout once it accepts connections; then one PING to be sure.
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          c.stdout!.off('data', onData).resume();
          c.off('exit', onExit);
          resolve();
        }
      };
      const onExit = (code: number | null) => reject(new Error(`redis-server exited with ${code}:\n${output}`));
      c.stdout!.on('data', onData);
      c.once('exit', onExit);
    });
    if (!(await ping(port))) throw new Error('redis-server said it was ready but does not answer PING');
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}

/** Bundles the worker from the source (packages stay external: they load from node_modules). */
export async function buildWorker(): Promise<string> {
  await build({
    entryPoints: [`${here}worker.ts`],
    outfile: WORKER_BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return WORKER_BUNDLE;
}

/** What one worker printed. */
export interface WorkerRun {
  code: number | null;
  events: Record<string, unknown>[];
  result: Record<string, unknown> | undefined;
  logs: { level: string; message: string }[];
  stderr: string;
}

/** A running worker: its process, and a promise of everything it printed once it exits. */
export interface Worker {
  process: ChildProcess;
  /** Lets a worker started with `gate` begin its calls. */
  go(): void;
  /** Resolves when the worker printed an event of this type. */
  seen(type: string): Promise<void>;
  /** A worker task `steps`: runs its next step and resolves to what it printed for it. */
  step(): Promise<Record<string, unknown>>;
  done: Promise<WorkerRun>;
}

/** Starts one worker; it is killed if it runs longer than `limitMs`. */
export function startWorker(task: WorkerTask, limitMs = 60_000): Worker {
  const child = spawn(process.execPath, [WORKER_BUNDLE, JSON.stringify(task)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const events: Record<string, unknown>[] = [];
  const waiters = new Map<string, (() => void)[]>();
  let buffer = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const event = JSON.parse(line) as Record<string, unknown>;
        events.push(event);
        for (const wake of waiters.get(String(event.type)) ?? []) wake();
      } catch {
        stderr += `${line}\n`;
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const limit = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const done = new Promise<WorkerRun>((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(limit);
      resolve({
        code,
        events,
        result: events.find((e) => e.type === 'result'),
        logs: events.filter((e) => e.type === 'log') as { level: string; message: string }[],
        stderr,
      });
    });
  });
  const seen = (type: string) =>
    events.some((e) => e.type === type)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.set(type, [...(waiters.get(type) ?? []), resolve]));
  const go = () => void child.stdin!.end('go\n');
  let steps = 0;
  const step = async () => {
    const index = steps++;
    child.stdin!.write('go\n');
    for (;;) {
      const found = events.find((e) => e.type === 'step' && e.index === index);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the worker exited before step ${index}: ${stderr}`);
      await Promise.race([new Promise<void>((resolve) => waiters.set('step', [...(waiters.get('step') ?? []), resolve])), done]);
    }
  };
  return { process: child, go, seen, step, done };
}

/**
 * Starts `n` workers on tasks from `make(i)`, lets them all begin their calls at once when every
 * one is set up (connected, client built), and waits for all of them.
 */
export async function runWorkers(n: number, make: (i: number) => WorkerTask, limitMs?: number): Promise<WorkerRun[]> {
  const workers = Array.from({ length: n }, (_, i) => startWorker({ ...make(i), gate: true }, limitMs));
  await Promise.all(workers.map((w) => Promise.race([w.seen('ready'), w.done])));
  for (const w of workers) w.go();
  return Promise.all(workers.map((w) => w.done));
}

/** The p-th percentile (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * A redis-server for one test file, started before its tests and stopped after them, with
 * `connect()` handing out node-redis connections to it (closed at the end too).
 */
export function useRedis() {
  const state = { redis: undefined as TestRedis | undefined, connections: [] as { quit(): Promise<unknown> }[] };
  beforeAll(async () => {
    state.redis = await startRedis();
  }, 20_000);
  afterAll(async () => {
    for (const c of state.connections) await c.quit().catch(() => undefined);
    await state.redis?.stop();
  });
  return {
    get redis(): TestRedis {
      return state.redis!;
    },
    async connect() {
      const c = createClient({ url: state.redis!.url, socket: { reconnectStrategy: () => 50 } });
      c.on('error', () => undefined);
      await c.connect();
      state.connections.push(c);
      return c;
    },
  };
}
