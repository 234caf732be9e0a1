import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// A test run prints what the project's tests say, not a dependency's runtime warning: oidc-provider
// warns "Unsupported runtime" when it loads on Node 20 (and works), and its test file keeps that quiet.

describe('the run of the oidc-provider file', () => {
  it('passes without oidc-provider’s "Unsupported runtime" warning in its output', () => {
    const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/auth/oidc-provider.test.ts'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 120_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status, output).toBe(0);
    expect(output).toMatch(/oidc-provider\.test\.ts \(\d+ tests?/);
    expect(output).not.toMatch(/Unsupported runtime/);
  });
});
