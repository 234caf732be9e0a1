// `npm run size:lines`: how much code src/ holds, and how much of it is comment.
//
//   node bench/lines.mjs [--json] [--files]
//
// Over the .ts files of src/ without src/testing/, src/bin/ and src/mcp/, and without the entry files
// of those two parts (src/testing.ts, src/mcp.ts): 59 files on 989d66a, the count issue 42 gives.
// TypeScript's parser reads each file; every line is one of:
//   code      a line with any token of code, whatever comment shares it (`x = 1; // why` is code)
//   TSDoc     a line with no code inside or on a `/** … */` comment
//   internal  a line with no code inside or on a `//` or `/* … */` comment that is not TSDoc
//   blank     nothing but white space
// A string or template literal that spans lines makes every line it covers code. Printed against the
// budgets of issue 42: code lines, files, internal comment lines per code line.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const LEFT_OUT = ['testing/', 'bin/', 'mcp/', 'testing.ts', 'mcp.ts']; // folders, and the entries of testing/ and mcp/
export const LINE_BUDGETS = { code: 5_800, files: 60, internalPerCode: 0.1 };

/** The kind of every line of one TypeScript source: 'code', 'tsdoc', 'internal' or 'blank'. */
export function classify(text, fileName = 'file.ts') {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const starts = sf.getLineStarts();
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
  const code = new Set();
  const comments = new Map(); // pos -> { end, tsdoc }
  const visit = (node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(sf);
    if (children.length === 0) {
      for (const c of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) {
        comments.set(c.pos, { end: c.end, tsdoc: text.startsWith('/**', c.pos) && !text.startsWith('/**/', c.pos) && c.kind === ts.SyntaxKind.MultiLineCommentTrivia });
      }
      if (node.end > node.getStart(sf)) for (let l = lineOf(node.getStart(sf)); l <= lineOf(node.end - 1); l++) code.add(l);
      return;
    }
    children.forEach(visit);
  };
  visit(sf);
  const kinds = starts.map((start, l) => (code.has(l) ? 'code' : text.slice(start, starts[l + 1] ?? text.length).trim() === '' ? 'blank' : undefined));
  for (const [pos, { end, tsdoc }] of comments) {
    for (let l = lineOf(pos); l <= lineOf(end - 1); l++) {
      if (kinds[l] === 'code' || kinds[l] === 'tsdoc') continue;
      kinds[l] = tsdoc ? 'tsdoc' : 'internal';
    }
  }
  return kinds.map((k) => k ?? 'blank');
}

/** The counts over src/ without testing/, bin/ and mcp/, per file and in total. */
export function countLines(dir = join(root, 'src')) {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)))
    .filter((f) => !LEFT_OUT.some((d) => (d.endsWith('/') ? f.startsWith(d) : f === d)))
    .sort();
  const total = { files: files.length, code: 0, tsdoc: 0, internal: 0, blank: 0, lines: 0 };
  const perFile = files.map((file) => {
    const counts = { file, code: 0, tsdoc: 0, internal: 0, blank: 0 };
    for (const kind of classify(readFileSync(join(dir, file), 'utf8'), file)) counts[kind]++;
    for (const k of ['code', 'tsdoc', 'internal', 'blank']) total[k] += counts[k];
    return counts;
  });
  total.lines = total.code + total.tsdoc + total.internal + total.blank;
  total.internalPerCode = total.internal / total.code;
  return { total, perFile };
}

/** One line: the totals against the budgets. */
export function summaryLine({ total }) {
  const fmt = (n) => n.toLocaleString('en-US');
  return `lines: ${fmt(total.code)} code lines (≤ ${fmt(LINE_BUDGETS.code)}) · ${total.files} files (≤ ${LINE_BUDGETS.files}) · ${fmt(total.tsdoc)} TSDoc lines · ${fmt(total.internal)} internal comment lines, ${total.internalPerCode.toFixed(3)} per code line (≤ ${LINE_BUDGETS.internalPerCode}) · src/ without testing/, bin/, mcp/ and their entries`;
}

if (process.argv[1] === import.meta.filename) {
  const result = countLines();
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else {
    if (process.argv.includes('--files')) {
      console.log('file                                      code  TSDoc  internal  blank');
      for (const f of result.perFile) console.log(`${f.file.padEnd(40)} ${String(f.code).padStart(5)}  ${String(f.tsdoc).padStart(5)}  ${String(f.internal).padStart(8)}  ${String(f.blank).padStart(5)}`);
    }
    const t = result.total;
    console.log(`src/ without testing/, bin/, mcp/ (and testing.ts, mcp.ts): ${t.files} .ts files, ${t.lines.toLocaleString('en-US')} lines: ${t.code.toLocaleString('en-US')} code, ${t.tsdoc.toLocaleString('en-US')} TSDoc, ${t.internal.toLocaleString('en-US')} internal comment, ${t.blank.toLocaleString('en-US')} blank`);
    console.log(summaryLine(result));
    const over = [t.code > LINE_BUDGETS.code && 'code lines', t.files > LINE_BUDGETS.files && 'files', t.internalPerCode > LINE_BUDGETS.internalPerCode && 'internal comments'].filter(Boolean);
    console.log(over.length ? `over budget: ${over.join(', ')}` : 'within budget');
  }
}
