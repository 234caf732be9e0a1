// The load hook of ts-hooks.mjs: TypeScript files, transformed by esbuild.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

/** "module" or "commonjs": the "type" of the package.json nearest to `file`. */
function packageType(file) {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module' ? 'module' : 'commonjs';
    if (dirname(dir) === dir) return 'commonjs';
  }
}

export async function load(url, context, nextLoad) {
  const ext = /\.(mts|cts|ts)$/.exec(url)?.[1];
  if (!ext || !url.startsWith('file:')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const format = ext === 'mts' ? 'module' : ext === 'cts' ? 'commonjs' : packageType(file);
  const { code } = await transform(readFileSync(file, 'utf8'), {
    loader: 'ts',
    format: format === 'module' ? 'esm' : 'cjs',
    target: `node${process.versions.node}`,
    sourcefile: file,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  return { format, source: code, shortCircuit: true };
}
