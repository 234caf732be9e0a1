import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every guide is reachable: from README's table, from the guides' index, and in the API reference's
// document list (typedoc's projectDocuments).

const guides = readdirSync('docs').filter((name) => name.endsWith('.md') && name !== 'README.md');

describe('every guide under docs/ is listed', () => {
  it('in typedoc.json projectDocuments', () => {
    const listed = (JSON.parse(readFileSync('typedoc.json', 'utf8')) as { projectDocuments: string[] }).projectDocuments;
    expect(guides.filter((g) => !listed.includes(`docs/${g}`))).toEqual([]);
  });

  it("in README.md's guides table and in docs/README.md", () => {
    const readme = readFileSync('README.md', 'utf8');
    const index = readFileSync('docs/README.md', 'utf8');
    expect(guides.filter((g) => !readme.includes(`](docs/${g})`))).toEqual([]);
    expect(guides.filter((g) => !index.includes(`](${g})`))).toEqual([]);
  });
});
