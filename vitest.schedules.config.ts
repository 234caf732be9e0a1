import { defineConfig } from 'vitest/config';

// `npm run test:schedules`: the customer refresh protocol on 100,000 schedules (npm test runs
// 2,000). SCHEDULES and SCHEDULE_SEED override the count and the seed.
export default defineConfig({
  test: {
    include: ['test/fleet/schedules.test.ts'],
    environment: 'node',
    testTimeout: 6 * 60 * 60 * 1000,
    env: { SCHEDULES: process.env.SCHEDULES ?? '100000' },
  },
});
