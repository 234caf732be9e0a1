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
  external: ['msw', 'redis', 'ioredis', '@opentelemetry/api', /^@modelcontextprotocol\//, /^node:/],
  // The runtime dependencies, each a tree-shaken copy of what the SDK uses, built into the files the
  // entries load: the import is 9 ms shorter than with uuid, oauth4webapi and ky from node_modules (zod
  // 30–40 ms: its entry evaluates every builder). bench/README.md says what each buys.
  noExternal: ['zod', 'uuid', 'oauth4webapi', 'ky'],
});
