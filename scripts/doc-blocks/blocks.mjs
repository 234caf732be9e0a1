// The code blocks of the guides, and the file each says it is.
//
// Every ts/js block of README.md and docs/ opens with a comment naming its file, as a reader saves
// it: `// first-card.mjs` (JavaScript: .mjs, .cjs, .js) or `// first-card.mts` (TypeScript: .mts,
// .cts, .ts). The fence's language and the extension agree, so a block run as JavaScript is JavaScript.
import { readFileSync } from 'node:fs';

/** Fence languages of the blocks that are programs, and the extensions each may name. */
const EXTENSIONS = { js: ['mjs', 'cjs', 'js'], javascript: ['mjs', 'cjs', 'js'], ts: ['mts', 'cts', 'ts'], typescript: ['mts', 'cts', 'ts'] };

/** The file-name comment: `// name.ext`, then anything after a space. */
const FILE_LINE = /^\/\/ ([\w.-]+\.(\w+))(?:[\s:]|$)/;

/**
 * The program blocks (ts, js) of a Markdown file: `{ line, lang, code, file?, problem?, skip? }`,
 * `line` the fence's line (1-based), `skip` the reason of a `<!-- not run: … -->` marker before it.
 */
export function programBlocks(path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && /^\s*```\s*$/.test(line));
    const lang = open[1];
    if (lang in EXTENSIONS) {
      // A block inside a list item is indented like its fence: the file is the text without that indent.
      const indent = /^\s*/.exec(lines[i])[0].length;
      const code = lines
        .slice(i + 1, end)
        .map((line) => line.slice(Math.min(indent, /^\s*/.exec(line)[0].length)))
        .join('\n');
      const skip = /^<!--\s*not run:\s*(.+?)\s*-->$/.exec(lines[i - 1]?.trim() ?? '')?.[1];
      found.push({ line: i + 1, lang, code, skip, ...fileOf(lang, code) });
    }
    i = end;
  }
  return found;
}

/** The file a block says it is, or the problem with what it says. */
function fileOf(lang, code) {
  const first = code.split('\n')[0] ?? '';
  const named = FILE_LINE.exec(first);
  if (!named) return { problem: `the block names no file: open it with a comment such as \`// example.${EXTENSIONS[lang][0]}\`` };
  const [, file, ext] = named;
  if (!EXTENSIONS[lang].includes(ext)) return { file, problem: `a \`${lang}\` block is ${file}: a ${lang.startsWith('t') ? 'TypeScript' : 'JavaScript'} file ends in ${EXTENSIONS[lang].map((e) => `.${e}`).join(', ')}` };
  return { file };
}
