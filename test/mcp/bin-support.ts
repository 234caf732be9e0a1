// The command as it ships, for the tests that run it: built with the package's tsup config (its
// entry alone) into a folder of the test file's own, run as a child process.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Builds the command once for the calling test file (removed after it); resolves `bin` to its path. */
export function useBin(name: string) {
  const out = `${root}node_modules/.cache/openbanking-ng-mcp-${name}-${process.pid}`;
  const bin = { out, path: `${out}/bin/openbanking-ng-mcp.js` };
  beforeAll(async () => {
    await promisify(execFile)('npx', ['tsup', '--no-dts', '--silent', '--format', 'esm', '--out-dir', out, '--entry.bin/openbanking-ng-mcp', 'src/bin/openbanking-ng-mcp.ts'], { cwd: root });
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  return bin;
}

/** Runs the command to its end: exit code and what it wrote on stderr. */
export function run(bin: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** Starts `--http` servers on free ports (stopped after each test); `serve` resolves to the URL each prints. */
export function useHttpServers(bin: { path: string }) {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill();
  });
  return (args: string[], env: Record<string, string> = {}): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin.path, '--http', '--port', '0', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const url = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
        if (url) resolve(url);
      });
      child.on('close', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
}
