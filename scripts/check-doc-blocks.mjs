// Checks the guides like code, so a copied example cannot drift from the API:
//
// - every ```ts / ```typescript block of README.md, docs/**/*.md and examples/README.md type-checks
//   against the package's source, each block compiled as its own module;
// - every ```js / ```javascript block type-checks too (as an ES module, with checkJs);
// - every ts/js block of README.md and docs/ opens with the name of its file (`// first-card.mjs`), whose
//   extension agrees with the fence (scripts/doc-blocks/blocks.mjs; scripts/doc-blocks/run.mjs runs them);
// - a block preceded by `<!-- file: examples/… -->` is that file, character for character (the file is
//   run by `npm run examples`);
// - every relative link points to a file that exists, and every #anchor to a heading of its page;
// - every relative link of a Markdown file the package ships (README.md, docs/*.md, examples/) points at a
//   file the package ships, as `npm pack --dry-run --json` lists it, so the README read on npm or in
//   node_modules/openbanking-ng/ has no dead link.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { programBlocks } from './doc-blocks/blocks.mjs';
import { packedFiles, unshippedLinks } from './packed-links.mjs';

const root = resolve(import.meta.dirname, '..');
const out = join(root, '.tmp', 'doc-blocks');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

function markdownFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'api' || name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file) {
  const seen = new Map();
  const anchors = new Set();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const sources = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs')), join(root, 'examples', 'README.md'), join(root, 'bench', 'README.md')].filter((f) => existsSync(f));
const blocks = [];
const problems = [];
for (const file of sources) {
  const where = relative(root, file);
  if (where === 'README.md' || where.startsWith('docs/')) for (const b of programBlocks(file)) if (b.problem) problems.push(`${where}:${b.line}: ${b.problem}`);
  const lines = readFileSync(file, 'utf8').split('\n');
  let start = -1;
  let lang = '';
  let mirror;
  let body = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const open = start < 0 && /^\s*```(\w*)\s*$/.exec(line);
    if (open) {
      start = i + 1;
      lang = open[1];
      body = [];
      const marker = /^<!--\s*file:\s*(\S+)\s*-->$/.exec(lines[i - 1]?.trim() ?? '');
      mirror = marker?.[1];
    } else if (start >= 0 && /^\s*```\s*$/.test(line)) {
      const code = `${body.join('\n')}\n`;
      if (mirror) {
        const target = join(root, mirror);
        if (!existsSync(target)) problems.push(`${where}:${start}: the block mirrors ${mirror}, which does not exist`);
        else if (readFileSync(target, 'utf8') !== code) problems.push(`${where}:${start}: the block differs from ${mirror}; copy the file into the guide again`);
      }
      const ext = lang === 'ts' || lang === 'typescript' ? 'ts' : lang === 'js' || lang === 'javascript' ? 'mjs' : undefined;
      if (ext) {
        const name = `${where.replace(/[^a-zA-Z0-9]+/g, '_')}_L${start}.${ext}`;
        writeFileSync(join(out, name), ext === 'ts' ? `${code}export {};\n` : code);
        blocks.push({ name, where: `${where}:${start}` });
      }
      start = -1;
    } else if (start >= 0) body.push(line);
  }

  // Relative links and anchors (outside code blocks and inline code).
  const text = readFileSync(file, 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, anchor] = target.split('#');
    const resolved = path ? resolve(dirname(file), path) : file;
    if (!existsSync(resolved)) {
      problems.push(`${where}: link to ${target}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) problems.push(`${where}: link to ${target}: no heading #${anchor} there`);
  }
}

const shipped = packedFiles(root);
problems.push(...unshippedLinks(shipped, (path) => readFileSync(join(root, path), 'utf8')));

const rel = (p) => relative(out, join(root, p));
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      typeRoots: [rel('node_modules/@types')],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      isolatedModules: true,
      allowJs: true,
      checkJs: true,
      ignoreDeprecations: '6.0',
      baseUrl: '.',
      paths: {
        'openbanking-ng': [rel('src/index.ts')],
        'openbanking-ng/pkce': [rel('src/pkce.ts')],
        'openbanking-ng/testing': [rel('src/testing.ts')],
        'openbanking-ng/node': [rel('src/node.ts')],
        'openbanking-ng/redis': [rel('src/redis.ts')],
        'openbanking-ng/schemas': [rel('src/schemas.ts')],
        'openbanking-ng/otel': [rel('src/otel.ts')],
        'openbanking-ng/mcp': [rel('src/mcp.ts')],
        '*': [rel('node_modules/*')],
      },
    },
    include: ['*.ts', '*.mjs'],
  }),
);

if (blocks.length > 0) {
  try {
    execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', out], { encoding: 'utf8', stdio: 'pipe' });
    console.log(`${blocks.length} code blocks type-check: ${[...new Set(blocks.map((b) => b.where.split(':')[0]))].join(', ')}`);
  } catch (error) {
    let text = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    for (const b of blocks) text = text.replaceAll(b.name, `${b.name} (${b.where})`);
    problems.push(text.trim());
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
} else {
  console.log(`Links and mirrored examples check out in ${sources.length} files; the ${shipped.filter((p) => p.endsWith('.md')).length} Markdown files the package ships link only to files it ships.`);
}
