import { defineConfig } from 'vitest/config';

// `npm run test:stress`: the long runs kept out of `npm test`.
export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts'],
    environment: 'node',
    testTimeout: 180_000,
  },
});
