import type { Reporter, TestModule, TestRunEndReason, TestSuite } from 'vitest/node';
import { findRedisServer, redisSkipLine } from './redis-binary.js';

/**
 * Ends a run with one plain line, `tests: N passed, M failed[, K skipped]`, that any log reader
 * can count without knowing vitest's own format. A failure outside a test (a file that does not
 * load, a `beforeAll`/`afterAll` that throws, an unhandled error) counts as a failure too, so a
 * run that fails never prints `0 failed`.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>, reason?: TestRunEndReason): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const outside: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      const suites: Array<TestModule | TestSuite> = [module, ...module.children.allSuites()];
      let errors = 0;
      for (const suite of suites) {
        const n = suite.errors().length;
        errors += n;
        if (n > 0) outside.push(`${module.relativeModuleId}${suite.type === 'suite' ? ` > ${suite.fullName}` : ''}: ${n} error${n > 1 ? 's' : ''} outside a test`);
      }
      // A file that failed with neither a failed test nor an error of its own still failed once.
      if (errors === 0 && module.state() === 'failed' && ![...module.children.allTests()].some((t) => t.result().state === 'failed')) {
        errors = 1;
        outside.push(`${module.relativeModuleId}: failed outside a test`);
      }
      failed += errors;
    }
    if (unhandledErrors.length > 0) outside.push(`${unhandledErrors.length} unhandled error${unhandledErrors.length > 1 ? 's' : ''}`);
    failed += unhandledErrors.length;
    // Whatever else made the run fail (vitest exits non-zero): never report it as clean.
    if (reason === 'failed' && failed === 0) {
      failed = 1;
      outside.push('the run failed outside any test file');
    }
    for (const line of outside) console.log(`failed: ${line}`);
    console.log(`\ntests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
    // Set by vitest.config.ts when no redis-server was found outside CI.
    const withoutRedis = process.env.OPENBANKING_TESTS_WITHOUT_REDIS?.split(' ').filter(Boolean) ?? [];
    if (withoutRedis.length > 0) console.log(redisSkipLine(withoutRedis, findRedisServer()));
  }
}
