// The client as a code-splitting bundler ships it (esbuild, `splitting: true`, ESM, minified,
// platform browser), and which of its chunks load before the first `cards.create` is sent: the
// bundle runs in a child process whose `fetch` answers the token and card requests, and a module
// load hook records every chunk loaded up to the moment the card request leaves.
//
//   node bench/size/split.mjs [--out DIR]   # prints JSON { whole, firstCall, … }; --out writes DIR/whole/*.mjs (every
//                                           # chunk) and DIR/first-call/*.mjs (the chunks loaded before the card
//                                           # request), which .size-limit.json measures in CI
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ensureBuild, root } from '../build.mjs';

const gzip = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

/** Bundles bench/size/full-client.js with splitting into a temporary folder; returns it and its chunk files. */
export async function splitBundle(builtPackage) {
  const dir = mkdtempSync(join(tmpdir(), 'openbanking-ng-split-'));
  await build({
    plugins: [builtPackage],
    entryPoints: { entry: join(import.meta.dirname, 'full-client.js') },
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'error',
  });
  return { dir, files: readdirSync(dir).filter((f) => f.endsWith('.mjs')) };
}

/** The chunk files of `dir` loaded before the first `POST …/cards` is sent (run in a child process). */
export function loadedBeforeFirstCard(dir) {
  const probe = fileURLToPath(new URL('./split-probe.mjs', import.meta.url));
  const result = spawnSync(process.execPath, [probe, join(dir, 'entry.mjs')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the split bundle did not run: ${result.stderr}`);
  const loaded = JSON.parse(result.stdout.trim().split('\n').pop());
  return loaded.map((url) => basename(fileURLToPath(url))).filter((f) => f.endsWith('.mjs'));
}

/** Sizes of the split bundle: the whole of it and what the first call loads, gzip per chunk summed. */
export async function splitSizes(builtPackage, out) {
  const { dir, files } = await splitBundle(builtPackage);
  try {
    const first = loadedBeforeFirstCard(dir);
    if (out) {
      rmSync(out, { recursive: true, force: true });
      for (const [sub, list] of [['whole', files], ['first-call', first]]) {
        mkdirSync(join(out, sub), { recursive: true });
        for (const f of list) cpSync(join(dir, f), join(out, sub, f));
      }
    }
    const sum = (list) => list.reduce((n, f) => n + gzip(join(dir, f)), 0);
    return { whole: sum(files), firstCall: sum(first), chunks: files.length, firstChunks: first.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Resolves `openbanking-ng` and its subpaths to the built `dist/` files through package.json `exports`. */
export const builtPackage = {
  name: 'built-package',
  setup(b) {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    b.onResolve({ filter: new RegExp(`^${pkg.name}(/.*)?$`) }, (args) => {
      const target = pkg.exports[`.${args.path.slice(pkg.name.length)}`]?.import?.default;
      return target ? { path: join(root, target) } : undefined;
    });
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  ensureBuild();
  const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
  console.log(JSON.stringify(await splitSizes(builtPackage, out)));
}
