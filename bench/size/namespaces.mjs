// DESIGN.md `sizes`: what the namespaces after `cards` add to the first `cards.create` of a
// code-splitting bundle. The client is bundled from the sources twice, as it is and with
// `resources/namespaces.ts` building `cards` alone; the difference of what loads before the card
// request is sent is their cost.
//
//   node bench/size/namespaces.mjs        # prints JSON { all, cardsOnly, added }
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { root } from '../build.mjs';
import { loadedBeforeFirstCard, splitBundle } from './split.mjs';

const src = join(root, 'src');
const namespaces = join(src, 'resources', 'namespaces.ts');

/** `openbanking-ng` from the sources; with `cardsOnly`, a client whose namespaces are `cards` alone. */
const fromSources = (cardsOnly) => ({
  name: 'from-sources',
  setup(b) {
    b.onResolve({ filter: /^openbanking-ng$/ }, () => ({ path: join(src, 'index.ts') }));
    if (!cardsOnly) return;
    b.onLoad({ filter: /resources[\\/]namespaces\.ts$/ }, () => {
      const text = readFileSync(namespaces, 'utf8')
        .replace(/^import \{ (Accounts|Bills|Customers|DirectDebits|Disputes|SavingsResource|Transfers) \}.*$/gm, '')
        .replace(/^ {4}this\.(?!cards)\w+ = new \w+\(runner\);$/gm, '')
        .replace(/^ {2}readonly (?!cards)\w+: \w+;$/gm, '');
      return { contents: text, loader: 'ts', resolveDir: join(src, 'resources') };
    });
  },
});

async function firstCall(cardsOnly) {
  const { dir } = await splitBundle(fromSources(cardsOnly));
  try {
    return loadedBeforeFirstCard(dir).reduce((n, f) => n + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const all = await firstCall(false);
  const cardsOnly = await firstCall(true);
  console.log(JSON.stringify({ all, cardsOnly, added: all - cardsOnly }));
}
