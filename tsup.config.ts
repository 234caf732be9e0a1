import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    pkce: 'src/pkce.ts',
    testing: 'src/testing.ts',
    node: 'src/node.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  target: 'es2022',
  platform: 'neutral',
  sourcemap: false,
  clean: true,
  treeshake: true,
  splitting: true,
  external: ['ky', 'zod', 'oauth4webapi', 'uuid', 'msw', /^node:/],
});
