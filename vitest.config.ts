import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 20_000,
    coverage: { include: ['src/**/*.ts'] },
  },
});
