import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run test:browser`: the single-page app example in a real Chromium. Kept out of `npm test`
// because it needs the built package and a browser; `.ci/run` runs it after the build.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/browser/**/*.browser.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
