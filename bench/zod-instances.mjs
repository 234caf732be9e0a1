// `node bench/zod-instances.mjs [entry]`: how many zod instances importing the package builds, and
// from which source module. A scratch copy of dist/ (under .tmp/, so that ky, uuid and oauth4webapi
// resolve from the project's node_modules) gets one line in the bundled zod's `$constructor`: every
// schema and every check gets its `_zod` internals from one `Internals` constructor, which now counts
// itself and remembers the line that asked. Each line is attributed to the source module esbuild's
// `// src/…` comments put it in. Then `entry` (default `index.js`) is imported and, with `--call`, a
// client is built (`new OpenBanking`) and makes one `cards.create` against a stub fetch: what the
// first call builds on top of the import.
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuild, root } from './build.mjs';

const args = process.argv.slice(2);
const entry = args.find((a) => !a.startsWith('--')) ?? 'index.js';
ensureBuild();
const copy = join(root, '.tmp', 'zod-instances');
rmSync(copy, { recursive: true, force: true });
cpSync(join(root, 'dist'), copy, { recursive: true });

const COUNT = 'if (globalThis.__zodInstances) { const l = Error.stackTraceLimit; Error.stackTraceLimit = 40; globalThis.__zodInstances.push(new Error().stack); Error.stackTraceLimit = l; } ';
let patched = 0;
for (const file of readdirSync(copy, { recursive: true })) {
  if (!String(file).endsWith('.js')) continue;
  const path = join(copy, String(file));
  const text = readFileSync(path, 'utf8');
  if (!text.includes('function Internals(def) {')) continue;
  writeFileSync(path, text.replace('function Internals(def) {', `function Internals(def) { ${COUNT}`));
  patched++;
}
if (patched === 0) throw new Error("no zod `Internals` constructor found in dist/: zod's core changed, update this script");

/** The source module of a frame's dist line: the last `// src/…` or `// node_modules/…` comment above it. */
const modules = new Map();
function moduleOf(frame) {
  const at = /(file:\/\/\/[^:]+):(\d+):\d+\)?$/.exec(frame);
  if (!at) return '?';
  const file = at[1].replace(/^file:\/\//, '');
  if (!modules.has(file)) {
    const marks = [];
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const mark = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(line);
      if (mark) marks.push([i + 1, mark[1]]);
    });
    modules.set(file, marks);
  }
  let name = '?';
  for (const [line, mark] of modules.get(file)) if (line <= Number(at[2])) name = mark;
  return name;
}
/** The outermost source module on a stack: whose top level (or whose function, after the import) asked for the instance. */
const askedBy = (stack) => stack.split('\n').slice(1).map(moduleOf).filter((name) => name.startsWith('src/')).pop() ?? 'zod itself';

globalThis.__zodInstances = [];
const mod = await import(pathToFileURL(join(copy, entry)).href);
const atImport = globalThis.__zodInstances.length;
const byModule = {};
for (const stack of globalThis.__zodInstances) byModule[askedBy(stack)] = (byModule[askedBy(stack)] ?? 0) + 1;
let atClient;
let atCall;
if (args.includes('--call') && mod.OpenBanking) {
  globalThis.__zodInstances = [];
  // A stub fetch: the token endpoint's answer, then the created card.
  const fetch = async (input) => {
    const url = String(input instanceof Request ? input.url : input);
    const body = url.endsWith('/token')
      ? { access_token: 'token', token_type: 'Bearer', expires_in: 3600, scope: 'cards.create' }
      : { status: '00', message: 'ok', data: { card_id: 'c1', card_status: 'ACTIVE' } };
    return new Response(JSON.stringify(body), { status: url.endsWith('/token') ? 200 : 201, headers: { 'content-type': 'application/json' } });
  };
  const ob = new mod.OpenBanking({ clientId: 'id', clientSecret: 'secret', logLevel: 'off', fetch });
  atClient = globalThis.__zodInstances.length;
  globalThis.__zodInstances = [];
  await ob.cards.create({ account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } });
  atCall = globalThis.__zodInstances.length;
}
console.log(`zod instances built by importing ${entry}: ${atImport}`);
for (const [name, n] of Object.entries(byModule).sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${name}`);
if (atClient !== undefined) console.log(`then by new OpenBanking(…): ${atClient}; by its first cards.create: ${atCall}`);
console.log(JSON.stringify({ atImport, atClient, atCall, byModule }));
rmSync(copy, { recursive: true, force: true });
