// Builds `dist/` when it is missing or older than the sources, so that the benchmark and the size
// check measure the package as users get it.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..');

export function ensureBuild() {
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .reduce((max, e) => Math.max(max, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs), 0);
  let built = 0;
  try {
    built = statSync(join(root, 'dist/index.js')).mtimeMs;
  } catch {
    // not built yet
  }
  const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'tsup.config.ts')).mtimeMs, statSync(join(root, 'package.json')).mtimeMs);
  if (built >= sources) return;
  console.log('building dist/ first (npm run build)…');
  try {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    process.stderr.write(error.stderr ?? '');
    throw new Error('npm run build failed');
  }
}
