// `npm run bench:first-call`: the first call of a fresh process. A whole `node` process imports the
// SDK, builds a client and creates one card against the local sandbox (over HTTP on 127.0.0.1),
// then exits; next to it, a hand-written `fetch` script makes the same two requests (token, card
// with key and signature), and the same script again after importing ky, uuid and oauth4webapi
// (the libraries' own share). All run from a scratch project where the packed tarball is
// installed, as a user's process would, in turns (SDK, fetch, fetch with the libraries, …), and
// the medians are compared.
//
//   node bench/first-call.mjs [--runs 10] [--node 22|/path/to/node] [--ca unset|set]
//
// `--node` runs the timed processes under another Node binary (`22`: the one the runtime matrix
// pins, from scripts/node22.mjs); packing, installing and the sandbox stay on this one. `--ca`
// starts them with NODE_EXTRA_CA_CERTS unset (the default: the figure the budgets use) or set to
// /etc/ssl/certs/ca-certificates.crt (loading those certificates costs every process its share).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBuild, root } from './build.mjs';

const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const runs = Number(flag('--runs') ?? 10);
const CA_FILE = '/etc/ssl/certs/ca-certificates.crt';
const ca = flag('--ca') ?? 'unset';
if (ca !== 'set' && ca !== 'unset') throw new Error(`--ca takes set or unset, not ${ca}`);
const nodeFlag = flag('--node');
const node = nodeFlag === undefined ? process.execPath : nodeFlag === '22' ? (await import('../scripts/node22.mjs')).node22Project('node22', []).node : resolve(nodeFlag);
const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
ensureBuild();
const { startSandboxServer } = await import(join(root, 'dist/testing.js'));

const work = mkdtempSync(join(tmpdir(), 'openbanking-ng-first-call-'));
const server = await startSandboxServer();
try {
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop();
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'first-call', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--silent', join(work, tarball)], { cwd: work, stdio: 'pipe' });
  for (const f of ['sdk.mjs', 'fetch.mjs', 'fetch-deps.mjs']) cpSync(join(import.meta.dirname, 'first-call', f), join(work, f));

  const app = server.registerClient();
  const env = { ...process.env, OB_CLIENT_ID: app.clientId, OB_CLIENT_SECRET: app.clientSecret, OB_BASE_URL: server.baseUrl, OB_AUTH_URL: server.authUrl };
  delete env.OPENBANKING_LOG;
  if (ca === 'set') env.NODE_EXTRA_CA_CERTS = CA_FILE;
  else delete env.NODE_EXTRA_CA_CERTS;
  // Asynchronous: the sandbox answers from this process's event loop while the child runs.
  const run = promisify(execFile);
  const once = async (script) => {
    const started = process.hrtime.bigint();
    const { stdout } = await run(node, [script], { cwd: work, env, encoding: 'utf8' });
    const wall = Number(process.hrtime.bigint() - started) / 1e6;
    return { wall, cpu: JSON.parse(stdout.trim().split('\n').pop()).cpu };
  };
  await once('sdk.mjs'); // warm the file system cache
  await once('fetch.mjs');
  await once('fetch-deps.mjs');
  const results = { sdk: [], fetch: [], deps: [] };
  for (let i = 0; i < runs; i++) {
    results.sdk.push(await once('sdk.mjs'));
    results.fetch.push(await once('fetch.mjs'));
    results.deps.push(await once('fetch-deps.mjs'));
  }
  const median = (list, key) => [...list].map((r) => r[key]).sort((a, b) => a - b)[list.length >> 1];
  const row = (name) => ({ wall: median(results[name], 'wall'), cpu: median(results[name], 'cpu') });
  const sdk = row('sdk');
  const raw = row('fetch');
  const deps = row('deps');
  const f = (n) => n.toFixed(0).padStart(5);
  console.log(`First call of a fresh process (import, client, token, card, exit), Node ${nodeVersion}${node === process.execPath ? '' : ` (${node})`}, NODE_EXTRA_CA_CERTS ${ca === 'set' ? `set (${CA_FILE})` : 'unset'}, median of ${runs} runs each, in turns:`);
  console.log(`  SDK (packed tarball)                              wall ${f(sdk.wall)} ms   CPU ${f(sdk.cpu)} ms`);
  console.log(`  hand-written fetch                                wall ${f(raw.wall)} ms   CPU ${f(raw.cpu)} ms`);
  console.log(`  fetch after importing ky, uuid and oauth4webapi   wall ${f(deps.wall)} ms   CPU ${f(deps.cpu)} ms`);
  console.log(`the libraries alone: ${(deps.wall / raw.wall).toFixed(2)}× the hand-written script; the SDK: ${(sdk.wall / deps.wall).toFixed(2)}× the script with the libraries loaded`);
  console.log(`first-call: ${(sdk.wall / raw.wall).toFixed(2)}× wall (≤ ${nodeVersion.startsWith('v20.') ? '1.20' : '1.40'} with NODE_EXTRA_CA_CERTS unset), ${(sdk.cpu / raw.cpu).toFixed(2)}× CPU, +${(sdk.wall - raw.wall).toFixed(0)} ms`);
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
