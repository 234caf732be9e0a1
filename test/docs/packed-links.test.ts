import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packedFiles, relativeLinks, unshippedLinks } from '../../scripts/packed-links.mjs';

const root = resolve(import.meta.dirname, '../..');

describe('links in the installed package', () => {
  it('reports a README link to a file the tarball does not ship', () => {
    const docs: Record<string, string> = {
      'README.md': 'See [the guide](docs/cards.md#fields), [the source](src/client.ts), [npm](https://www.npmjs.com/) and `[not](a-link.md)`.',
      'docs/cards.md': '# Cards\n[back](../README.md) [an example](../examples/create-card.mjs) [tests](../test/x.test.ts)',
    };
    const problems = unshippedLinks(['README.md', 'docs/cards.md', 'examples/create-card.mjs'], (path) => docs[path] ?? '');
    expect(problems).toEqual([
      'README.md: link to src/client.ts: not in the package (npm pack lists no src/client.ts)',
      'docs/cards.md: link to ../test/x.test.ts: not in the package (npm pack lists no test/x.test.ts)',
    ]);
  });

  it('ignores code, absolute URLs and same-page anchors', () => {
    expect(relativeLinks('```md\n[a](x.md)\n```\n[b](#top) [c](mailto:a@b.c) [d](y.md)')).toEqual(['#top', 'y.md']);
  });

  it('holds for the package as it is packed now: every shipped guide links only to shipped files', () => {
    const shipped = packedFiles(root);
    expect(shipped).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'examples/README.md', 'examples/create-card.mjs']));
    expect(unshippedLinks(shipped, (path) => readFileSync(join(root, path), 'utf8'))).toEqual([]);
  });
});
