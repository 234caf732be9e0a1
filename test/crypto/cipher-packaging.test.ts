// The ciphers' place in the package: the main entry reaches no `node:` module (the TripleDES
// cipher stays behind `openbanking-ng/node`), and every TypeScript block of docs/encryption.md
// type-checks against the package's source.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as main from '../../src/index.js';
import * as nodeEntry from '../../src/node.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function bundleInputs(entry: string) {
  const result = await build({
    entryPoints: [`${root}${entry}`],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    logLevel: 'silent',
    external: ['ky', 'zod', 'zod/*', 'oauth4webapi', 'uuid', 'node:*'],
  });
  const inputs = Object.keys(result.metafile.inputs);
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  return { inputs, imports, text: result.outputFiles.map((f) => f.text).join('\n') };
}

describe('entry points', () => {
  it('the main entry exports the Web Crypto ciphers and imports no node: module', async () => {
    expect(typeof main.aesGcmCipher).toBe('function');
    expect(typeof main.aesCbcCipher).toBe('function');
    expect('tripleDesCipher' in main).toBe(false);
    expect(Object.keys(main).filter((name) => /^create.*Cipher$|KeyBytes$/.test(name))).toEqual([]); // test seams stay internal
    const { inputs, imports, text } = await bundleInputs('src/index.ts');
    expect(inputs.some((file) => file.endsWith('crypto/triple-des.ts'))).toBe(false);
    expect(imports.filter((path) => path.startsWith('node:'))).toEqual([]);
    expect(text.match(/["'`]node:[a-z_/]+/g) ?? []).toEqual([]); // not even as a string handed to a loader
  });

  it('openbanking-ng/node exports tripleDesCipher through node:crypto', async () => {
    expect(Object.keys(nodeEntry)).toEqual(['tripleDesCipher']);
    const { inputs, imports } = await bundleInputs('src/node.ts');
    expect(inputs.some((file) => file.endsWith('crypto/triple-des.ts'))).toBe(true);
    expect(imports).toContain('node:crypto');
  });
});

describe('docs/encryption.md', () => {
  it('every ts block type-checks against the package', () => {
    const markdown = readFileSync(`${root}docs/encryption.md`, 'utf8');
    const blocks = [...markdown.matchAll(/^( *)```ts\n([\s\S]*?)^\1```/gm)].map(([, indent, code]) =>
      code!.split('\n').map((line) => line.slice(indent!.length)).join('\n'),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const files = new Map(blocks.map((code, i) => [`${root}docs-encryption-block-${i}.ts`, `${code}\nexport {};\n`]));

    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      noEmit: true,
      paths: { 'openbanking-ng': [`${root}src/index.ts`], 'openbanking-ng/node': [`${root}src/node.ts`], 'openbanking-ng/testing': [`${root}src/testing.ts`] },
    };
    const host = ts.createCompilerHost(options);
    const { fileExists, readFile, getSourceFile } = host;
    host.fileExists = (name) => files.has(name) || fileExists(name);
    host.readFile = (name) => files.get(name) ?? readFile(name);
    host.getSourceFile = (name, language, ...rest) =>
      files.has(name) ? ts.createSourceFile(name, files.get(name)!, language) : getSourceFile(name, language, ...rest);
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName.slice(root.length) ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
  });
});
