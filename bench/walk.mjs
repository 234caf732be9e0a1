// `npm run bench:walk`: how many files of src/ one call runs, and in which order it enters them.
//
//   node bench/walk.mjs [--json] [--only a,b,c] [--functions]
//
// Scenarios, each in a fresh process:
//   a  `ob.cards.create(body)` from a new client with no cached token (client credentials)
//   b  a customer call (`session.accounts.list()`) on `ob.forCustomer(tokens)` whose access token
//      has expired, so the call refreshes first
//   c  the same with a fleet: `redisFleet` over node-redis and a redis-server started here on a free
//      loopback port (skipped, with a message, when no redis-server is installed)
//
// How: the process loads src/ from the sources through bench/walk/hooks.mjs (esbuild, each file
// under its own path). It starts V8's precise coverage (call counts, function granularity), imports
// the SDK, builds the client (and the session), takes the coverage once to reset the counts, makes
// the call, and takes it again. An operation builds its schemas on its first use in a process: that
// one-time build is done (and listed) before the reset, apart from the call. A file counts when one of its functions other than the module's top
// level ran during the call: type imports and what modules evaluate when imported do not count. The
// order is the order in which the call first entered each file, read from a probe the hooks put at
// the start of every function body and class field initializer; a file the coverage counts but no
// probe saw (none is expected) is listed after the others, by path, and marked. src/testing/ never
// counts: the sandbox (bench/walk/sandbox.mjs) runs in a process of its own, on 127.0.0.1.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { register } from 'node:module';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src') + '/';
const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

const SCENARIOS = {
  a: { title: 'ob.cards.create(body), new client, no cached token (client credentials)', target: 12 },
  b: { title: 'customer call (session.accounts.list()) whose access token expired: refresh, then the call', target: 16 },
  c: { title: 'the same with a fleet (redisFleet over node-redis, a real redis-server)', target: 20 },
};
const CARD = { account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } };

if (flag('--child')) await child(flag('--child'));
else await parent();

/** One scenario in this (fresh) process; sends the files it ran to the parent. */
async function child(name) {
  const env = JSON.parse(process.env.OBN_WALK);
  register(pathToFileURL(join(import.meta.dirname, 'walk', 'hooks.mjs')), { data: { src } });
  const entered = [];
  let recording = false;
  globalThis.__obnWalk = (file) => {
    if (recording && !entered.includes(file)) entered.push(file);
  };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

  const { OpenBanking } = await import(pathToFileURL(join(src, 'index.ts')).href);
  const options = { clientId: env.clientId, clientSecret: env.clientSecret, baseUrl: env.baseUrl, authUrl: env.authUrl, logLevel: 'off' };
  const expired = env.customer && { ...env.customer, expires_at: Math.floor(Date.now() / 1000) - 10 };
  let call;
  let redis;
  if (name === 'a') {
    const ob = new OpenBanking(options);
    call = () => ob.cards.create(CARD);
  } else if (name === 'b') {
    const customer = new OpenBanking(options).forCustomer(expired);
    call = () => customer.accounts.list();
  } else {
    const { redisFleet } = await import(pathToFileURL(join(src, 'redis.ts')).href);
    const { createClient } = await import('redis');
    redis = createClient({ url: `redis://127.0.0.1:${env.redisPort}` });
    await redis.connect();
    const customer = new OpenBanking({ ...options, fleet: redisFleet(redis, { prefix: 'walk' }) }).forCustomer(expired, { id: 'walk-customer' });
    call = () => customer.accounts.list();
  }

  // The first use of an operation in a process builds its schemas once: measured apart from the call.
  const { OPERATIONS } = await import(pathToFileURL(join(src, 'resources', 'namespaces.ts')).href);
  await session.post('Profiler.takePreciseCoverage'); // resets the counts: setup is not the call
  void OPERATIONS.find((op) => op.name === (name === 'a' ? 'cards.create' : 'accounts.list')).schemas;
  const build = ranFiles((await session.post('Profiler.takePreciseCoverage')).result);
  recording = true;
  await call();
  recording = false;
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  await redis?.quit();

  const ran = ranFiles(result);
  const files = [...entered.filter((f) => ran.has(f)), ...[...ran.keys()].filter((f) => !entered.includes(f)).sort()];
  process.send({ files, unprobed: files.filter((f) => !entered.includes(f)), probedOnly: entered.filter((f) => !ran.has(f)), functions: Object.fromEntries(ran), schemaBuild: [...build.keys()] });
  session.disconnect();
}

/** The files of src/ (the sandbox's excepted) whose functions other than the module's top level ran, with those functions' names. */
function ranFiles(result) {
  const ran = new Map();
  const prefix = pathToFileURL(src).href;
  for (const script of result) {
    if (!script.url.startsWith(prefix)) continue;
    const file = decodeURIComponent(script.url.slice(prefix.length));
    if (file.startsWith('testing/') || file === 'testing.ts') continue;
    // The module's own top level (offset 0) runs at import, never during the call.
    const names = script.functions.filter((f) => f.ranges[0].startOffset > 0 && f.ranges[0].count > 0).map((f) => f.functionName || '(anonymous)');
    if (names.length > 0) ran.set(file, [...new Set(names)]);
  }
  return ran;
}

/** Starts the sandbox (and redis-server for c), runs each scenario in a child process, prints. */
async function parent() {
  const json = args.includes('--json');
  const only = flag('--only')?.split(',') ?? Object.keys(SCENARIOS);
  for (const name of only) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}: ${Object.keys(SCENARIOS).join(', ')}`);
  const sandbox = fork(join(import.meta.dirname, 'walk', 'sandbox.mjs'), [], { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const env = await new Promise((ok, fail) => {
    sandbox.once('message', ok);
    sandbox.once('exit', (code) => fail(new Error(`the sandbox exited (${code})`)));
  });
  let redis;
  const results = [];
  try {
    for (const name of only) {
      const scenario = { name, ...SCENARIOS[name] };
      if (name === 'c') {
        const binary = process.env.OPENBANKING_REDIS_SERVER ?? ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'redis-server'))].find((p) => existsSync(p));
        if (!binary || !existsSync(binary)) {
          results.push({ ...scenario, skipped: 'no redis-server (apt-get install redis-server, or set OPENBANKING_REDIS_SERVER): scenario c not measured' });
          continue;
        }
        const { startRedis } = await import('../scripts/redis-server.mjs');
        redis ??= await startRedis();
        env.redisPort = redis.port;
      }
      if (name !== 'a') env.customer = await new Promise((ok) => (sandbox.once('message', ok), sandbox.send('tokens')));
      const child = fork(import.meta.filename, ['--child', name], { cwd: root, env: { ...process.env, OBN_WALK: JSON.stringify(env) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const out = await new Promise((ok, fail) => {
        let message;
        child.on('message', (m) => (message = m));
        child.on('exit', (code) => (message && code === 0 ? ok(message) : fail(new Error(`scenario ${name}: the child exited with code ${code}`))));
      });
      results.push({ ...scenario, count: out.files.length, ...out });
    }
  } finally {
    sandbox.disconnect();
    await redis?.stop();
  }

  if (json) {
    console.log(JSON.stringify({ node: process.version, scenarios: results }, null, 2));
    return;
  }
  console.log(`Files of src/ whose code runs during one call (functions other than a module's top level; src/testing/ excluded), in the order the call enters them; Node ${process.version}:`);
  for (const r of results) {
    console.log(`\n(${r.name}) ${r.title}`);
    if (r.skipped) {
      console.log(`  skipped: ${r.skipped}`);
      continue;
    }
    console.log(`  ${r.count} files (target ≤ ${r.target}${r.count > r.target ? `: ${r.count - r.target} over` : ''})`);
    r.files.forEach((file, i) => {
      const names = args.includes('--functions') ? `  ${r.functions[file].join(', ')}` : '';
      console.log(`  ${String(i + 1).padStart(3)}. ${file}${r.unprobed.includes(file) ? '  (entered by no probe: listed by path)' : ''}${names}`);
    });
    if (r.probedOnly.length > 0) console.log(`  entered by a probe but not counted by the coverage: ${r.probedOnly.join(', ')}`);
    console.log(`  before it, once per process: the operation's schemas built on first use, ${r.schemaBuild.length} files (${r.schemaBuild.join(', ')})`);
  }
  console.log(`\nwalk: ${results.map((r) => `(${r.name}) ${r.skipped ? 'skipped' : `${r.count} files (≤ ${r.target})`}`).join(' · ')}`);
}
