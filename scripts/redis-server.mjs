// A throwaway redis-server for the packaging checks (scripts/consumer-smoke.mjs and the runtime
// matrix): Debian's binary, or the first on PATH, on a free loopback port, with no persistence.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** Debian's redis-server (or the first on PATH) on a free loopback port, with no persistence. */
export async function startRedis() {
  const binary = ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'redis-server'))].find((path) => existsSync(path));
  if (!binary) throw new Error('redis-server is missing (apt-get install -y redis-server): /redis is checked against a real one');
  const port = await new Promise((resolvePort, reject) => {
    const probe = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolvePort(free));
    });
  });
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((ready, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) ready();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
  });
  child.stdout.resume();
  return { port, stop: () => new Promise((done) => (child.exitCode !== null ? done() : (child.once('exit', done), child.kill('SIGKILL')))) };
}
