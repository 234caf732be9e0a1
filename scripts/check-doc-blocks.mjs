// Type-checks every ```ts / ```typescript block of README.md and docs/**/*.md against the package's
// source, so a copied example cannot drift from the API. Each block is compiled as its own module.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

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

const sources = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];
const blocks = [];
for (const file of sources) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let start = -1;
  let body = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (start < 0 && /^\s*```(ts|typescript)\s*$/.test(line)) {
      start = i + 1;
      body = [];
    } else if (start >= 0 && /^\s*```\s*$/.test(line)) {
      const name = `${relative(root, file).replace(/[^a-zA-Z0-9]+/g, '_')}_L${start}.ts`;
      writeFileSync(join(out, name), `${body.join('\n')}\nexport {};\n`);
      blocks.push({ name, where: `${relative(root, file)}:${start}` });
      start = -1;
    } else if (start >= 0) body.push(line);
  }
}

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
      ignoreDeprecations: '6.0',
      baseUrl: '.',
      paths: {
        'openbanking-ng': [rel('src/index.ts')],
        'openbanking-ng/pkce': [rel('src/pkce.ts')],
        'openbanking-ng/testing': [rel('src/testing.ts')],
        'openbanking-ng/node': [rel('src/node.ts')],
        '*': [rel('node_modules/*')],
      },
    },
    include: ['*.ts'],
  }),
);

if (blocks.length === 0) {
  console.log('no TypeScript blocks found');
} else {
  try {
    execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', out], { encoding: 'utf8', stdio: 'pipe' });
    console.log(`${blocks.length} TypeScript blocks type-check: ${[...new Set(blocks.map((b) => b.where.split(':')[0]))].join(', ')}`);
  } catch (error) {
    let text = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    for (const b of blocks) text = text.replaceAll(b.name, `${b.name} (${b.where})`);
    console.error(text);
    process.exitCode = 1;
  }
}
