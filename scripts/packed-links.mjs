// The links a user can follow in the installed package: every relative link of every Markdown file
// the tarball ships must point at a file the tarball ships too (npm shows the README of the tarball,
// and a user reads the others in node_modules/openbanking-ng/). Used by check-doc-blocks.mjs with
// what `npm pack --dry-run --json` lists; tested in test/docs/packed-links.test.ts.
import { execFileSync } from 'node:child_process';
import { posix } from 'node:path';

/**
 * The paths `npm pack` would put in the tarball, relative to the package root (`README.md`,
 * `docs/cards.md`, ...). Runs no lifecycle script, so it lists what is built at the moment.
 * @param {string} root the package folder
 * @returns {string[]}
 */
export function packedFiles(root) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out)[0].files.map((/** @type {{ path: string }} */ file) => file.path);
}

/**
 * Relative link targets of a Markdown text, outside code blocks and inline code.
 * @param {string} markdown
 * @returns {string[]}
 */
export function relativeLinks(markdown) {
  const text = markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '').filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * Every link of a shipped Markdown file that points at a file the package does not ship.
 * @param {string[]} shipped paths in the tarball, as {@link packedFiles} gives them
 * @param {(path: string) => string} read reads a shipped file's text by its path
 * @returns {string[]} one line per broken link: `docs/x.md: link to ../src/y.ts: not in the package`
 */
export function unshippedLinks(shipped, read) {
  const files = new Set(shipped);
  const folders = new Set(shipped.flatMap((path) => path.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  const problems = [];
  for (const path of shipped.filter((p) => p.endsWith('.md'))) {
    for (const target of relativeLinks(read(path))) {
      const [file = ''] = target.split('#');
      if (file === '') continue;
      const resolved = posix.normalize(posix.join(posix.dirname(path), file)).replace(/\/$/, '');
      if (!files.has(resolved) && !folders.has(resolved)) problems.push(`${path}: link to ${target}: not in the package (npm pack lists no ${resolved})`);
    }
  }
  return problems;
}
