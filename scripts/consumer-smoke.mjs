// Packs the package, installs the tarball into an empty folder, and imports every entry point
// there with both `import` and `require`, the way users load it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRedis } from './redis-server.mjs';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entries = Object.keys(pkg.exports)
  .filter((key) => key !== './package.json' && !key.endsWith('.json'))
  .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
// Named exports each entry must provide, checked in both module systems.
const expected = {
  [pkg.name]: ['OpenBanking', 'plaintextCipher', 'aesGcmCipher', 'aesCbcCipher', 'OpenBankingError', 'ApiError', 'isApiError', 'OAuthError', 'CustomerSession', 'normaliseRegistration'],
  [`${pkg.name}/pkce`]: ['createAuthorizationRequest', 'parseAuthorizationCallback', 'OAuthError'],
  [`${pkg.name}/testing`]: ['createSandbox', 'startSandboxServer', 'sandboxHandlers', 'createManualClock', 'SANDBOX_DEFAULT_URLS'],
  [`${pkg.name}/node`]: ['tripleDesCipher'],
  [`${pkg.name}/redis`]: ['redisFleet', 'MemoryFleetStore'],
  [`${pkg.name}/schemas`]: ['operations'],
  [`${pkg.name}/otel`]: ['instrument'],
  [`${pkg.name}/mcp`]: ['createMcpServer', 'createMcpServerFactory'],
};
const CARD = { account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } };
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const work = mkdtempSync(join(tmpdir(), 'openbanking-ng-consumer-'));
const cleanup = [work];
try {
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], root).trim().split('\n').pop();
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
  const msw = pkg.devDependencies.msw;
  // The optional peers of /testing and /otel, and an OpenTelemetry SDK to record spans with.
  const otel = ['@opentelemetry/api', '@opentelemetry/sdk-trace-base'].map((name) => `${name}@${pkg.devDependencies[name]}`);
  // And the Redis clients /redis takes (the user's own, never a dependency of the package), and the
  // MCP server SDK of /mcp (its command is checked by scripts/mcp-smoke.mjs).
  const redisClients = ['redis', 'ioredis'].map((name) => `${name}@${pkg.devDependencies[name]}`);
  const mcp = `@modelcontextprotocol/server@${pkg.devDependencies['@modelcontextprotocol/server']}`;
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball), `msw@${msw}`, ...otel, ...redisClients, mcp], work);

  // Every built-in cipher round-trips a PIN from the built files, and a decryption failure in the
  // Node-only entry is the main entry's CipherError (one shared class per module system).
  const ciphers = (main, node) => `
for (const cipher of [${main}.aesGcmCipher('s'), ${main}.aesCbcCipher('s'), ${node}.tripleDesCipher('s')]) {
  if ((await cipher.decrypt(await cipher.encrypt('1234'))) !== '1234') throw new Error('cipher round trip failed');
}
const failure = await ${node}.tripleDesCipher('s').decrypt('AAAAAAAAAAA=').catch((e) => e);
if (!(failure instanceof ${main}.CipherError)) throw new Error('tripleDesCipher does not reject with the main entry CipherError');`;
  const check = (e, m) => `for (const name of ${JSON.stringify(expected[e] ?? [])}) if (typeof ${m}[name] === 'undefined') throw new Error('${e}: missing export ' + name);`;
  const esm = entries.map((e, i) => `import * as m${i} from '${e}';\n${check(e, `m${i}`)}`).join('\n');
  const at = (name) => `m${entries.indexOf(name)}`;
  writeFileSync(join(work, 'esm.mjs'), `${esm}\n${ciphers(at(pkg.name), at(`${pkg.name}/node`))}\nconst { OpenBanking } = m0;\nnew OpenBanking({ clientId: 'a', clientSecret: 'b' });\nconsole.log('esm ok: ${entries.join(', ')}');\n`);
  const cjs = entries.map((e) => `{ const m = require('${e}'); ${check(e, 'm')} }`).join('\n');
  writeFileSync(join(work, 'cjs.cjs'), `${cjs}\n(async () => {\n${ciphers(`require('${pkg.name}')`, `require('${pkg.name}/node')`)}\nconst { OpenBanking } = require('${pkg.name}');\nnew OpenBanking({ clientId: 'a', clientSecret: 'b' });\nconsole.log('cjs ok: ${entries.join(', ')}');\n})().catch((e) => { console.error(e); process.exit(1); });\n`);
  process.stdout.write(run('node', ['esm.mjs'], work));
  process.stdout.write(run('node', ['cjs.cjs'], work));

  // The API description: openapi.json as JSON (import attributes and require), the very document
  // committed, and the schemas entry validating a card body.
  writeFileSync(
    join(work, 'api-description.mjs'),
    `import doc from '${pkg.name}/openapi.json' with { type: 'json' };
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { operations } from '${pkg.name}/schemas';
const required = createRequire(import.meta.url)('${pkg.name}/openapi.json');
const committed = readFileSync(${JSON.stringify(join(root, 'openapi.json'))}, 'utf8');
if (JSON.stringify(doc) !== JSON.stringify(JSON.parse(committed)) || JSON.stringify(required) !== JSON.stringify(doc)) throw new Error('the packed openapi.json is not the committed one');
if (doc.openapi !== '3.1.0' || Object.keys(operations).length !== Object.keys(doc.paths).flatMap((p) => Object.keys(doc.paths[p])).length) throw new Error('openapi.json and openbanking-ng/schemas disagree');
if (!operations['cards.create'].body.safeParse(${JSON.stringify(CARD)}).success) throw new Error('openbanking-ng/schemas refused a valid card');
console.log('api description ok: openapi.json imported as JSON and required, as committed; openbanking-ng/schemas checks a card body');
`,
  );
  process.stdout.write(run('node', ['api-description.mjs'], work));

  // The main entry loads statically (DESIGN, Package): everything a first call runs loads with the
  // import, and no optional peer does. ky, uuid, oauth4webapi and zod are built into dist/
  // (tsup.config.ts, bench/README.md): none of them loads from node_modules. A resolve hook records
  // every module reached.
  writeFileSync(
    join(work, 'resolve-log.mjs'),
    `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = new URL(data.log); }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + ' ');
  return result;
}
`,
  );
  // Writes and runs a script under the resolve hook: `before` runs, then `after` reads `resolved`,
  // every module URL reached.
  const underHook = (file, { before, after }) => {
    writeFileSync(
      join(work, file),
      `import { register } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
const log = new URL('./${file}.log', import.meta.url);
writeFileSync(log, '');
register('./resolve-log.mjs', import.meta.url, { data: { log: log.href } });
${before}
const resolved = readFileSync(log, 'utf8').split(' ');
${after}
`,
    );
    process.stdout.write(run('node', [file], work));
  };
  underHook('static.mjs', {
    before: `await import('${pkg.name}');`,
    after: `if (!resolved.some((url) => url.includes('/node_modules/${pkg.name}/'))) throw new Error('the resolve hook saw nothing');
const loaded = (dep) => resolved.some((url) => url.includes('/node_modules/' + dep + '/'));
const unbundled = ['ky', 'uuid', 'oauth4webapi', 'zod'].filter(loaded);
if (unbundled.length > 0) throw new Error('importing ${pkg.name} loaded ' + unbundled.join(', ') + ' from node_modules: they are built into dist/');
const peers = ['@opentelemetry/api', 'msw', 'redis', 'ioredis', '@modelcontextprotocol/server'].filter(loaded);
if (peers.length > 0) throw new Error('importing ${pkg.name} loaded the optional peers ' + peers.join(', '));
console.log('static ok: importing ${pkg.name} loads its dependencies from dist/, and no optional peer');`,
  });
  underHook('first-call.mjs', {
    before: `const { OpenBanking } = await import('${pkg.name}');
const { startSandboxServer } = await import('${pkg.name}/testing');
const server = await startSandboxServer();
const imported = readFileSync(log, 'utf8').split(' ').length;
try {
  const app = server.registerClient();
  const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: server.baseUrl, authUrl: server.authUrl, logLevel: 'off' });
  await ob.cards.create({ account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } });
} finally {
  await server.close();
}`,
    after: `const late = resolved.slice(imported - 1).filter((url) => url !== '');
if (late.length > 0) throw new Error('a token and a card loaded modules after the import: ' + late.join(', '));
console.log('first call ok: a token and a card load no module beyond the import');`,
  });

  // The sandbox from the packed package, in both module systems: a card created over real HTTP.
  const sandboxUse = (load) => `${load}
(async () => {
  const server = await startSandboxServer();
  try {
    const app = server.registerClient();
    const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: server.baseUrl, authUrl: server.authUrl, logLevel: 'off' });
    const card = await ob.cards.create({ account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } });
    if (server.cards().length !== 1 || !card.card_id) throw new Error('the sandbox did not store the card');
    console.log('sandbox ok: ' + (typeof require === 'function' ? 'cjs' : 'esm'));
  } finally {
    await server.close();
  }
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;
  writeFileSync(join(work, 'sandbox.mjs'), sandboxUse(`import { OpenBanking } from '${pkg.name}';\nimport { startSandboxServer } from '${pkg.name}/testing';`));
  writeFileSync(join(work, 'sandbox.cjs'), sandboxUse(`const { OpenBanking } = require('${pkg.name}');\nconst { startSandboxServer } = require('${pkg.name}/testing');`));
  process.stdout.write(run('node', ['sandbox.mjs'], work));
  process.stdout.write(run('node', ['sandbox.cjs'], work));
  // openbanking-ng/otel from the packed package, in both module systems: one call recorded as spans.
  const otelUse = (load) => `${load}
(async () => {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const sandbox = createSandbox();
  const app = sandbox.registerClient();
  const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logLevel: 'off' });
  instrument(ob, { tracerProvider });
  await ob.cards.create(${JSON.stringify(CARD)});
  const names = spans.getFinishedSpans().map((s) => s.name).sort().join(', ');
  if (names !== 'POST /cards, POST /oauth2/token, cards.create, oauth2 client_credentials') throw new Error('spans recorded: ' + names);
  console.log('otel ok: ' + (typeof require === 'function' ? 'cjs' : 'esm') + ' (' + names + ')');
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;
  const otelImports = ['OpenBanking', 'instrument', 'createSandbox', 'BasicTracerProvider', 'InMemorySpanExporter', 'SimpleSpanProcessor'];
  const otelFrom = [pkg.name, `${pkg.name}/otel`, `${pkg.name}/testing`, '@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-trace-base'];
  writeFileSync(join(work, 'otel.mjs'), otelUse(otelImports.map((name, i) => `import { ${name} } from '${otelFrom[i]}';`).join('\n')));
  writeFileSync(join(work, 'otel.cjs'), otelUse(otelImports.map((name, i) => `const { ${name} } = require('${otelFrom[i]}');`).join('\n')));
  process.stdout.write(run('node', ['otel.mjs'], work));
  process.stdout.write(run('node', ['otel.cjs'], work));

  // msw handlers from the packed package, msw loaded on demand: a server set up from msw/node (ESM)
  // answers the global fetch in both module systems.
  const mswUse = (load) => `${load}
(async () => {
  const sandbox = createSandbox();
  const app = sandbox.registerClient();
  const server = setupServer(...sandboxHandlers(sandbox));
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, logLevel: 'off' });
    await ob.cards.create(${JSON.stringify(CARD)});
    if (sandbox.cards().length !== 1) throw new Error('msw did not carry the card to the sandbox');
    console.log('msw ok: ' + (typeof require === 'function' ? 'cjs' : 'esm'));
  } finally {
    server.close();
  }
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;
  writeFileSync(join(work, 'msw.mjs'), mswUse(`import { setupServer } from 'msw/node';\nimport { OpenBanking } from '${pkg.name}';\nimport { createSandbox, sandboxHandlers } from '${pkg.name}/testing';`));
  writeFileSync(join(work, 'msw.cjs'), mswUse(`const { setupServer } = require('msw/node');\nconst { OpenBanking } = require('${pkg.name}');\nconst { createSandbox, sandboxHandlers } = require('${pkg.name}/testing');`));
  process.stdout.write(run('node', ['msw.mjs'], work));
  process.stdout.write(run('node', ['msw.cjs'], work));

  // openbanking-ng/redis from the packed package against a real redis-server started here (free port, no
  // persistence): process A (ESM, node-redis) gets the fleet's token and loses the answer of a card call;
  // process B (CJS, ioredis) reuses that token and retries the call with its key, AES-GCM bytes replayed.
  const redis = await startRedis();
  cleanup.push(() => redis.stop());
  writeFileSync(join(work, 'redis-a.mjs'), REDIS_A(pkg.name, CARD));
  writeFileSync(join(work, 'redis-b.cjs'), REDIS_B(pkg.name, CARD));
  process.stdout.write(await runAsync('node', ['redis-a.mjs', String(redis.port)], work));

  // Without msw (an optional peer), openbanking-ng/testing still imports and its sandbox works;
  // only sandboxHandlers needs msw, and says so.
  const bare = mkdtempSync(join(tmpdir(), 'openbanking-ng-without-msw-')); // not below work/, whose node_modules hold msw
  cleanup.push(bare);
  writeFileSync(join(bare, 'package.json'), JSON.stringify({ name: 'consumer-without-msw', private: true, version: '1.0.0' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball)], bare);
  writeFileSync(
    join(bare, 'testing.mjs'),
    `import { OpenBanking, OpenBankingError } from '${pkg.name}';
import { createSandbox, sandboxHandlers } from '${pkg.name}/testing';
const sandbox = createSandbox();
const app = sandbox.registerClient();
const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, logLevel: 'off' });
await ob.cards.create(${JSON.stringify(CARD)});
if (sandbox.cards().length !== 1) throw new Error('the sandbox did not store the card');
let refused;
try { sandboxHandlers(sandbox); } catch (error) { refused = error; }
if (!(refused instanceof OpenBankingError) || !/npm install --save-dev msw/.test(refused.message)) throw new Error('sandboxHandlers without msw: ' + refused);
console.log('without msw ok: openbanking-ng/testing imports, the sandbox works, sandboxHandlers asks for msw');
`,
  );
  process.stdout.write(run('node', ['testing.mjs'], bare));

  // TypeScript with the compiler's defaults (skipLibCheck off) and none of the optional peers: every
  // entry but /otel compiles, in both module systems. Then msw's handlers type-check once msw is there.
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `@types/node@${pkg.devDependencies['@types/node']}`], bare);
  const typed = `import { OpenBanking, aesGcmCipher, type TokenSet } from '${pkg.name}';
import { createAuthorizationRequest } from '${pkg.name}/pkce';
import { createSandbox, startSandboxServer } from '${pkg.name}/testing';
import { tripleDesCipher } from '${pkg.name}/node';
import { operations } from '${pkg.name}/schemas';
import { MemoryFleetStore, type FleetStore } from '${pkg.name}/redis';
const sandbox = createSandbox();
const store: FleetStore = new MemoryFleetStore();
const ob = new OpenBanking({ clientId: 'a', clientSecret: 'b', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox, cipher: aesGcmCipher('b'), fleet: store });
const tokens: TokenSet | undefined = undefined;
void [ob, tokens, createAuthorizationRequest, startSandboxServer, tripleDesCipher, operations];
`;
  writeFileSync(join(bare, 'types.mts'), typed);
  writeFileSync(join(bare, 'types.cts'), typed);
  const tsc = (files) => {
    writeFileSync(join(bare, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'] }, files }));
    run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', '.'], bare);
  };
  tsc(['types.mts', 'types.cts']);
  console.log('types without peers ok: every entry but /otel compiles without msw, @opentelemetry/api, redis or ioredis (skipLibCheck off)');
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `msw@${msw}`], bare);
  writeFileSync(
    join(bare, 'msw.mts'),
    `import { setupServer } from 'msw/node';
import type { HttpHandler } from 'msw';
import { createSandbox, sandboxHandlers } from '${pkg.name}/testing';
const sandbox = createSandbox();
const server = setupServer(...sandboxHandlers(sandbox));
const kept: HttpHandler[] = sandboxHandlers<HttpHandler>(sandbox);
server.use(...kept);
`,
  );
  tsc(['msw.mts']);
  console.log('types with msw ok: setupServer(...sandboxHandlers(sandbox)) type-checks (skipLibCheck off)');
  // Every example runs from the packed package too: scripts/run-examples.mjs --packed, in .ci/run.
  const help = run(join(work, 'node_modules', '.bin', 'openbanking-ng-sandbox'), ['--help'], work);
  if (!help.startsWith('Usage: openbanking-ng-sandbox')) throw new Error('openbanking-ng-sandbox --help printed something else');
  console.log('bin ok: openbanking-ng-sandbox');
} catch (error) {
  console.error(error.stdout ?? '', error.stderr ?? '', error.message);
  process.exitCode = 1;
} finally {
  for (const item of cleanup) await (typeof item === 'function' ? item() : rmSync(item, { recursive: true, force: true }));
}

/** Runs a command without blocking this process; resolves to its stdout, rejects with its output. */
function runAsync(cmd, args, cwd) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => (code === 0 ? resolvePromise(stdout) : reject(Object.assign(new Error(`${cmd} ${args.join(' ')} exited ${code}`), { stdout, stderr }))));
  });
}

/** Process A of the /redis check (ESM, node-redis): serves the sandbox, then runs process B. */
function REDIS_A(name, card) {
  return `import { spawn } from 'node:child_process';
import { createClient } from 'redis';
import { OpenBanking, aesGcmCipher } from '${name}';
import { redisFleet } from '${name}/redis';
import { startSandboxServer } from '${name}/testing';
const app = { clientId: 'fleet-app', clientSecret: 'fleet-secret-0123456789' };
const port = process.argv[2];
const server = await startSandboxServer({ clients: [app], cipher: aesGcmCipher(app.clientSecret) });
const redis = await createClient({ url: 'redis://127.0.0.1:' + port }).connect();
try {
  const ob = new OpenBanking({ ...app, baseUrl: server.baseUrl, authUrl: server.authUrl, cipher: aesGcmCipher(app.clientSecret), fleet: redisFleet(redis, { prefix: 'smoke' }), maxRetries: 0, logLevel: 'off' });
  await ob.cards.create(${JSON.stringify(card)});
  server.faults.inject({ path: '/openapi/v1/cards', method: 'POST', fault: { type: 'drop', when: 'after' } });
  const lost = await ob.cards.create(${JSON.stringify(card)}, { idempotencyKey: 'smoke-retry-1' }).catch((e) => e);
  if (lost?.name !== 'ConnectionError') throw new Error('a dropped answer gave ' + lost);
  const b = spawn(process.execPath, ['redis-b.cjs', port, server.baseUrl, server.authUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  b.stdout.on('data', (chunk) => (said += chunk));
  const code = await new Promise((done) => b.on('close', done));
  if (code !== 0) throw new Error('process B exited ' + code + ': ' + said);
  const grants = server.requests.count({ path: '/oauth2/token' });
  if (grants !== 1) throw new Error('two processes on one fleet made ' + grants + ' client-credentials requests');
  const posts = server.requests.list({ path: '/openapi/v1/cards', method: 'POST' }).map((r) => r.status).join(' ');
  if (posts !== '201 dropped 201 201' || server.cards().length !== 3) throw new Error('cards.create at the sandbox: ' + posts + ', ' + server.cards().length + ' cards');
  if ((await redis.keys('smoke:openbanking-ng:fleet-app:*')).length === 0) throw new Error('nothing under the prefix in Redis');
  console.log('redis ok: esm with node-redis and cjs with ioredis, one token request, ' + said.trim());
} finally {
  await redis.quit();
  await server.close();
}
`;
}

/** Process B of the /redis check (CJS, ioredis): the fleet's token, and the retry of A's lost call. */
function REDIS_B(name, card) {
  return `const { Redis } = require('ioredis');
const { OpenBanking, aesGcmCipher } = require('${name}');
const { redisFleet } = require('${name}/redis');
const [port, baseUrl, authUrl] = process.argv.slice(2);
(async () => {
  const redis = new Redis({ port: Number(port), host: '127.0.0.1' });
  await new Promise((ready) => redis.once('ready', ready));
  try {
    const app = { clientId: 'fleet-app', clientSecret: 'fleet-secret-0123456789' };
    const ob = new OpenBanking({ ...app, baseUrl, authUrl, cipher: aesGcmCipher(app.clientSecret), fleet: redisFleet(redis, { prefix: 'smoke' }), logLevel: 'off' });
    await ob.cards.create(${JSON.stringify(card)});
    const again = await ob.cards.create(${JSON.stringify(card)}, { idempotencyKey: 'smoke-retry-1' }).withResponse();
    if (again.response.headers.get('idempotent-replayed') !== 'true') throw new Error('the retry from another process was not replayed');
    console.log('the retry from another process replayed');
  } finally {
    redis.disconnect();
  }
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;
}
