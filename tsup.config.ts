import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    pkce: 'src/pkce.ts',
    testing: 'src/testing.ts',
    node: 'src/node.ts',
    redis: 'src/redis.ts',
    schemas: 'src/schemas.ts',
    otel: 'src/otel.ts',
    mcp: 'src/mcp.ts',
    // The `openbanking-ng-sandbox` and `openbanking-ng-mcp` commands (package.json "bin").
    'bin/openbanking-ng-sandbox': 'src/bin/openbanking-ng-sandbox.ts',
    'bin/openbanking-ng-mcp': 'src/bin/openbanking-ng-mcp.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  target: 'es2022',
  platform: 'neutral',
  sourcemap: false,
  clean: true,
  treeshake: true,
  splitting: true,
  // Keep `node:` specifiers as written: Deno and Bun resolve them, and the main entry must show none.
  removeNodeProtocol: false,
  external: ['ky', 'oauth4webapi', 'uuid', 'msw', 'redis', 'ioredis', '@opentelemetry/api', /^@modelcontextprotocol\//, /^node:/],
  noExternal: ['zod'],
});
