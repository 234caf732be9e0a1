import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The project's closing line, `tests: N passed, M failed`, from real vitest runs of small files
// (test/fixtures/reporter/), each in its own process: a failure outside a test is counted.
const root = fileURLToPath(new URL('../..', import.meta.url));

function run(fixture: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/reporter/vitest.config.ts'],
      { cwd: root, env: { ...process.env, REPORTER_FIXTURE: `${fixture}.fixture.ts`, CI: 'true' } },
      (error, stdout, stderr) => resolve({ code: typeof error?.code === 'number' ? error.code : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}
const closing = (out: string) => out.match(/^tests: .*$/m)?.[0];

describe('summary reporter: a run that fails never ends with "0 failed"', () => {
  it('an afterAll that fails after passing tests, a file that does not load, an unhandled rejection, and a clean file', async () => {
    const [afterAll, load, unhandled, clean] = await Promise.all(['after-all-fails', 'does-not-load', 'unhandled', 'passes'].map(run));
    expect([afterAll!.code, closing(afterAll!.out)], afterAll!.out).toEqual([1, 'tests: 2 passed, 1 failed']);
    expect(afterAll!.out).toContain('failed: after-all-fails.fixture.ts > a sweep in afterAll: 1 error outside a test');
    expect([load!.code, closing(load!.out)], load!.out).toEqual([1, 'tests: 0 passed, 1 failed']);
    expect([unhandled!.code, closing(unhandled!.out)], unhandled!.out).toEqual([1, 'tests: 1 passed, 1 failed']);
    expect([clean!.code, closing(clean!.out)], clean!.out).toEqual([0, 'tests: 1 passed, 0 failed']);
  }, 60_000);
});
