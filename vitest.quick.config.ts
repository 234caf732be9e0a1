import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';
import { filesNeedingRedis } from './test/support/redis-binary.js';

// `npm run test:quick`, the contributor's loop: the unit and operation tests, in under a minute.
// Left to `npm test`: the fleet and whatever starts a redis-server, the end-to-end and reliability
// suites, the MCP money invariants' long exploration, and the slow files that run other processes
// (a nested vitest, the MCP bin, bundling and type-checking the package). The browser test and the
// runtime matrix have their own scripts.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        'test/fleet/**',
        'test/e2e/**',
        'test/reliability/**',
        ...filesNeedingRedis(),
        'test/harness/redis-optional.test.ts',
        'test/harness/summary-reporter.test.ts',
        'test/harness/quiet-run.test.ts',
        'test/mcp/bin.test.ts',
        'test/crypto/cipher-packaging.test.ts',
        // fast-check explorations of many command sequences: about 15 s on their own
        'test/mcp/money-invariants.test.ts',
      ],
    },
  }),
);
