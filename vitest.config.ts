import { configDefaults, defineConfig } from 'vitest/config';
import { filesNeedingRedis, findRedisServer } from './test/support/redis-binary.js';

// The fleet's tests run against a real redis-server they start themselves. On a machine without one
// (a newcomer's laptop), those files are left out and the run closes with a line saying so; under CI
// nothing is left out, so a missing server fails the run.
// OPENBANKING_REDIS_SERVER names the binary; else Debian's, else the first on PATH.
const redisServer = findRedisServer().found;
const needRedis = filesNeedingRedis();
const withoutRedis = redisServer === undefined && !process.env.CI ? needRedis : [];
if (withoutRedis.length > 0) process.env.OPENBANKING_TESTS_WITHOUT_REDIS = withoutRedis.join(' ');

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The long runs have their own config: `npm run test:stress`.
    exclude: [...configDefaults.exclude, 'test/stress/**', ...withoutRedis],
    environment: 'node',
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 20_000,
    coverage: { include: ['src/**/*.ts'] },
  },
});
