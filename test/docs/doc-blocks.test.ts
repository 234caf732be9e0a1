import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The doc-block runner (scripts/doc-blocks/run.mjs) runs a block the way a newcomer does: under the file
// name its first line gives, in a project whose package.json `npm init -y` wrote (CommonJS with npm 11).
// So what fails for the reader fails the run: ESM saved as .js, top-level await in a .ts file, TypeScript
// in a .mjs block, a block that names no file.
const root = resolve(import.meta.dirname, '../..');

const GUIDE = [
  ['js', '// index.js: ES module syntax in a CommonJS project', "import { join } from 'node:path';", "console.log(join('a', 'b'));"],
  ['js', '// index.mjs', "import { join } from 'node:path';", "console.log(join('a', 'b'));"],
  ['ts', '// top-level.ts', 'const n: number = await Promise.resolve(1);', 'console.log(n);'],
  ['ts', '// top-level.mts', "import { createRequire } from 'node:module';", 'const n: number = await Promise.resolve(1);', "console.log(n, typeof createRequire(import.meta.url)('./package.json').type);"],
  ['js', '// telemetry.mjs', 'console.log(process.env.HOME!);'],
  ['js', "console.log('no file name');"],
  ['ts', '// wrong.mjs', "console.log('a ts block named as JavaScript');"],
  ['js', '// project.mjs', "import { readFileSync } from 'node:fs';", "const { type } = JSON.parse(readFileSync('package.json', 'utf8'));", "if (type !== 'commonjs') throw new Error(`type is ${type}`);"],
].map(([lang, ...lines]) => `\`\`\`${lang}\n${lines.join('\n')}\n\`\`\`\n`);

describe('scripts/doc-blocks/run.mjs', () => {
  it('runs each block under its file name in an npm init -y project, and fails what fails for a reader', () => {
    const dir = join(root, '.tmp', 'doc-blocks-test');
    mkdirSync(dir, { recursive: true });
    const guide = join(dir, `guide-${process.pid}.md`);
    writeFileSync(guide, `# A guide\n\n${GUIDE.join('\n')}`);
    const run = spawnSync(process.execPath, ['scripts/doc-blocks/run.mjs', guide], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(1);
    const failed = [...output.matchAll(/^✗ \S+:(\d+)/gm)].map((m) => Number(m[1])).sort((a, b) => a - b);
    const fences = readFileSync(guide, 'utf8')
      .split('\n')
      .flatMap((text, i) => (/^```(js|ts)$/.test(text) ? [i + 1] : []));
    expect(failed, output).toEqual([0, 2, 4, 5, 6].map((n) => fences[n]));
    expect(output).toMatch(/index\.js[\s\S]*Cannot use import statement outside a module/);
    expect(output).toMatch(/top-level\.ts[\s\S]*Top-level await is currently not supported with the "cjs" output format/);
    expect(output).toMatch(/telemetry\.mjs[\s\S]*SyntaxError/);
    expect(output).toContain('the block names no file');
    expect(output).toContain('a `ts` block is wrong.mjs');
    expect(output).toContain('3 of 8 guide blocks ran under their file names');
  }, 120_000);
});
