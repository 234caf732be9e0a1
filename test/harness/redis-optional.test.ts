import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findRedisServer, redisSkipLine } from '../support/redis-binary.js';

// `npm test` on a machine without redis-server: the fleet's real-Redis files are left out and the run
// closes with a line saying so; under CI a missing server fails the run.

function vitest(env: Record<string, string | undefined>) {
  const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/fleet/consent.test.ts', 'test/harness/summary-reporter.test.ts'], {
    encoding: 'utf8',
    env: { ...process.env, CI: undefined, GITHUB_ACTIONS: undefined, ...env },
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('npm test without a redis-server', () => {
  it('leaves out the fleet files that need one, passes the rest, and closes with a line naming them and how to run them', () => {
    const { status, output } = vitest({ OPENBANKING_REDIS_SERVER: '/nonexistent/redis-server' });
    expect(status).toBe(0);
    const last = output.trim().split('\n').at(-1)!;
    // Names the variable and the path it tried, and what each file tests (the MCP ledger is no fleet file).
    expect(last).toMatch(
      /^not run: \d+ test files \([^)]*\bfleet\b[^)]*\bMCP\b[^)]*\) need a real redis-server: OPENBANKING_REDIS_SERVER names \/nonexistent\/redis-server, which does not exist \(.*test\/fleet\/consent\.test\.ts.*test\/mcp\/daily\.test\.ts.*\); install one \(apt-get install redis-server, brew install redis\)/,
    );
    expect(output).not.toMatch(/consent\.test\.ts \(\d+ tests?/);
  });

  it('without the variable, says where it looked', () => {
    const search = findRedisServer({ PATH: '/opt/a:/opt/b' }, () => false);
    expect(search).toEqual({ found: undefined, tried: ['/usr/bin/redis-server', '/opt/a/redis-server', '/opt/b/redis-server'], fromVariable: false });
    const line = redisSkipLine(['test/fleet/faults.test.ts'], search);
    expect(line).toMatch(/^not run: 1 test file \(fleet\) needs a real redis-server: none was found at \/usr\/bin\/redis-server, \/opt\/a\/redis-server, \/opt\/b\/redis-server \(test\/fleet\/faults\.test\.ts\)/);
    expect(line).not.toContain('OPENBANKING_REDIS_SERVER names');
  });

  it('under CI, a missing redis-server fails the run', () => {
    const { status, output } = vitest({ OPENBANKING_REDIS_SERVER: '/nonexistent/redis-server', CI: 'true' });
    expect(status).not.toBe(0);
    expect(output).toMatch(/redis-server is missing/);
  });
});
