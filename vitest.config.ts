import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The long runs have their own config: `npm run test:stress`.
    exclude: [...configDefaults.exclude, 'test/stress/**'],
    environment: 'node',
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 20_000,
    coverage: { include: ['src/**/*.ts'] },
  },
});
