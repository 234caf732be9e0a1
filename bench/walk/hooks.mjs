// Module hooks for bench/walk.mjs: load src/**/*.ts from the sources, each under its own path (so
// that V8's coverage names the file), compiled by esbuild, with one probe added at the start of
// every function body and class field initializer: `globalThis.__obnWalk?.(<file>)`. The probe
// records the order in which a call first enters each file; the coverage says which files ran.
// `./x.js` imports resolve to `./x.ts` when only the TypeScript file exists.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import ts from 'typescript';

/** @type {{ src: string }} */
let options;
export function initialize(data) {
  options = data;
}

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && context.parentURL?.startsWith('file:') && context.parentURL.endsWith('.ts') && /^\.\.?\//.test(specifier)) {
    const ts = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (!existsSync(new URL(specifier, context.parentURL)) && existsSync(ts)) return { url: ts.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(readFileSync(path, 'utf8'), { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: path, tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } } });
  const source = path.startsWith(options.src) ? probe(code, path.slice(options.src.length)) : code;
  return { format: 'module', source, shortCircuit: true };
}

/** The compiled module with a probe at the start of every function body and class field initializer. */
function probe(code, file) {
  const call = `globalThis.__obnWalk?.(${JSON.stringify(file)})`;
  const sf = ts.createSourceFile(file.replace(/\.ts$/, '.js'), code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  /** @type {[number, string][]} */
  const edits = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      if (ts.isBlock(node.body)) edits.push([node.body.getStart(sf) + 1, `${call};`]);
      else edits.push([node.body.getStart(sf), `(${call}, `], [node.body.end, ')']);
    } else if (ts.isPropertyDeclaration(node) && node.initializer && !node.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) {
      edits.push([node.initializer.getStart(sf), `(${call}, `], [node.initializer.end, ')']);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  // Applied from the end, so that earlier offsets stay valid; at one offset, closing before opening.
  edits.sort((a, b) => b[0] - a[0] || (a[1] === ')' ? 1 : 0) - (b[1] === ')' ? 1 : 0));
  let out = code;
  for (const [at, text] of edits) out = out.slice(0, at) + text + out.slice(at);
  return out;
}
