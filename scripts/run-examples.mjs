// `npm run examples`: runs every program in examples/ against the local sandbox, the way a user
// runs it (`node examples/<name>.mjs`, the package resolved by name to its build), and fails if
// any fails. Each example starts its own sandbox on a free port, unless OB_SANDBOX_URL is set.
//
// The authorization-code backend is a server: it is started on a free port and driven through
// the whole consent over HTTP, as its single-page app would (the browser test drives the same
// flow in Chromium: npm run test:browser).
//
// With --packed, every example runs from the packed package instead, as a user runs it after
// reading its first lines: each gets a fresh project with exactly the packages its `npm install`
// line names (the SDK from the tarball), and runs with the `node node_modules/openbanking-ng/…`
// command written there.
//
// An example marked `node: 22` (the agent frameworks need it) runs on the Node 22 binary the runtime
// matrix pins; outside --packed, with the packages its first lines name installed beside that
// binary under .cache/examples-node22 and openbanking-ng pointing at this repository.
//
//   node scripts/run-examples.mjs [name…]     # only the examples whose file name contains a name
//   node scripts/run-examples.mjs --packed [name…]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createAuthorizationRequest, isOAuthError, parseAuthorizationCallback } from 'openbanking-ng/pkce';
import { node22Project, pinned } from './node22.mjs';

const root = resolve(import.meta.dirname, '..');
const TIMEOUT_MS = 60_000;

/**
 * Every runnable example. A file under examples/ that is neither listed here nor a helper fails
 * the run, so a new example cannot be forgotten.
 * `args` go to node before the file, `scriptArgs` after it; `node: 22` runs it on Node 22.
 * @type {{ file: string; args?: string[]; scriptArgs?: string[]; node?: 22; server?: (origin: string) => Promise<string> }[]}
 */
const EXAMPLES = [
  { file: 'examples/create-card.mjs' },
  { file: 'examples/accounts.mjs' },
  { file: 'examples/custom-cipher.mjs' },
  { file: 'examples/shared-token-store.mjs' },
  { file: 'examples/errors-and-retries.mjs' },
  { file: 'examples/testing-your-app.test.mjs', args: ['--test', '--test-reporter=spec'] },
  { file: 'examples/transfers.mjs' },
  { file: 'examples/consent-lifecycle.mjs' },
  { file: 'examples/bills.mjs' },
  { file: 'examples/disputes.mjs' },
  { file: 'examples/direct-debits.mjs' },
  { file: 'examples/savings.mjs' },
  { file: 'examples/observability.mjs' },
  { file: 'examples/agent-session.mjs' },
  { file: 'examples/frameworks/vercel-ai.mjs', node: 22 },
  { file: 'examples/frameworks/openai-agents.mjs', node: 22 },
  { file: 'examples/demo.mjs' },
  { file: 'examples/auth-code-backend/server.mjs', server: driveBackend },
  { file: 'examples/auth-code-backend/server.mjs', scriptArgs: ['--spa'], server: driveConsent },
];
/** Modules that examples import, not programs of their own. */
const HELPERS = new Set(['examples/spa-pkce/build.mjs', 'examples/customer-consent.mjs']);

function exampleFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'dist' || name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return exampleFiles(path);
    return /\.(mjs|js|cjs)$/.test(name) ? [relative(root, path)] : [];
  });
}

const unlisted = exampleFiles(join(root, 'examples')).filter((f) => !HELPERS.has(f) && !EXAMPLES.some((e) => e.file === f));
if (unlisted.length > 0) {
  console.error(`Examples not run by scripts/run-examples.mjs (add them to EXAMPLES): ${unlisted.join(', ')}`);
  process.exit(1);
}

/** Runs one example (from `cwd`, the repository unless given, with `node`); resolves to { ok, output, ms }. */
function run(example, cwd = root, file = example.file, node = process.execPath) {
  const started = performance.now();
  return new Promise((resolveRun) => {
    const env = { ...process.env, PORT: '0', NO_COLOR: '1' };
    const child = spawn(node, [...(example.args ?? []), file, ...(example.scriptArgs ?? [])], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let settled = false;
    const finish = (ok, note = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolveRun({ ok, output: output + note, ms: performance.now() - started });
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(false, `\n(timed out after ${TIMEOUT_MS / 1000} s)`);
    }, TIMEOUT_MS);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const listening = example.server && /listening on (http:\/\/\S+)/.exec(output);
      if (listening && !child.driven) {
        child.driven = true;
        example
          .server(listening[1])
          .then((summary) => {
            output += `\n[runner] ${summary}\n`;
            child.once('exit', (code, signal) => finish(signal === 'SIGTERM' || code === 0, code && code !== 0 ? `\n(exit code ${code} after SIGTERM)` : ''));
            child.kill('SIGTERM');
          })
          .catch((error) => {
            child.kill('SIGKILL');
            finish(false, `\n[runner] the flow failed: ${error instanceof Error ? error.stack : error}`);
          });
      }
    });
    child.on('exit', (code, signal) => {
      if (example.server && child.driven) return; // the driver decides
      finish(code === 0, code === 0 ? '' : `\n(exit code ${code ?? signal})`);
    });
  });
}

/** Asserts, with a message that says what the example got wrong. */
function expect(condition, what) {
  if (!condition) throw new Error(what);
}

/**
 * The consent as the single-page app and the customer's browser go through it, over plain HTTP:
 * load the app, build the authorize URL with openbanking-ng/pkce, approve on the sandbox's
 * consent page, hand the code and the verifier to the backend. Then the same with Deny, and a
 * replayed code.
 */
async function driveConsent(origin) {
  const page = await fetch(`${origin}/`);
  expect(page.ok && (await page.text()).includes('Connect bank'), 'GET / does not serve the app with its "Connect bank" button');
  const bundle = await fetch(`${origin}/app.js`);
  expect(bundle.ok && /javascript/.test(bundle.headers.get('content-type') ?? ''), 'GET /app.js does not serve the bundle');
  await bundle.arrayBuffer();
  return driveFlows(origin, true);
}

/** The backend-driven flow alone (no --spa: nothing bundled, no esbuild): a page with a link to /login, then the consent. */
async function driveBackend(origin) {
  const page = await fetch(`${origin}/`);
  expect(page.ok && (await page.text()).includes('href="/login"'), 'GET / does not link to /login');
  expect((await fetch(`${origin}/app.js`)).status === 404, 'GET /app.js answered without --spa');
  return driveFlows(origin, false);
}

/** The consent through the backend (`/login` → approve → `/callback`), then, with `spa`, the single-page app's exchange. */
async function driveFlows(origin, spa) {
  const configResponse = await fetch(`${origin}/config.json`);
  const csrfCookie = configResponse.headers.get('set-cookie')?.split(';')[0] ?? '';
  const config = await configResponse.json();
  expect(typeof config.authUrl === 'string' && typeof config.clientId === 'string' && !('clientSecret' in config), 'GET /config.json is not the public settings');

  /** Approves or denies on the sandbox's consent page at `url`; resolves to the redirect's Location. */
  const decide = async (url, decision) => {
    const html = await (await fetch(url)).text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    const consentId = /name="consent_id" value="([^"]+)"/.exec(html)?.[1];
    expect(action && consentId, 'the sandbox did not show a consent page');
    const answer = await fetch(new URL(action, config.authUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ consent_id: consentId, decision }),
      redirect: 'manual',
    });
    const location = answer.headers.get('location') ?? '';
    expect(location.startsWith(config.redirectUri), `the consent did not redirect to ${config.redirectUri}`);
    return location;
  };
  const consent = async (decision) => {
    const request = await createAuthorizationRequest(config);
    return { request, location: await decide(request.url, decision) };
  };
  // The single-page app's exchange: same origin, JSON, and the CSRF token with its cookie.
  const exchange = (code, codeVerifier, headers = { origin, cookie: csrfCookie, 'x-csrf-token': config.csrfToken, 'content-type': 'application/json' }) =>
    fetch(`${origin}/api/exchange`, { method: 'POST', headers, body: JSON.stringify({ code, codeVerifier }) });

  // The default, backend-driven flow: /login → consent → /callback, state and verifier kept by the backend.
  const login = await fetch(`${origin}/login`, { redirect: 'manual' });
  const loginCookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
  expect(login.status === 302 && loginCookie.startsWith('ob_login='), 'GET /login did not redirect with a login cookie');
  const backendCallback = await decide(login.headers.get('location') ?? '', 'approve');
  const connected = await fetch(backendCallback, { headers: { cookie: loginCookie } });
  const connectedBody = await connected.json();
  expect(connected.ok && Array.isArray(connectedBody.cards) && connectedBody.cards.length > 0, `GET /callback answered ${connected.status} ${JSON.stringify(connectedBody)}`);
  const replayed = await fetch(backendCallback, { headers: { cookie: loginCookie } });
  expect(replayed.status === 400, 'a second callback with the same login was not refused');
  if (!spa) return `backend flow: ${connectedBody.cards.length} card(s); a second callback refused`;

  const approved = await consent('approve');
  const { code } = parseAuthorizationCallback(approved.location, { expectedState: approved.request.state });
  const answer = await exchange(code, approved.request.codeVerifier);
  const result = await answer.json();
  expect(answer.ok && Array.isArray(result.cards) && result.cards.length > 0, `POST /api/exchange answered ${answer.status} ${JSON.stringify(result)}`);
  expect(!JSON.stringify(result).includes('access_token'), 'the backend handed the tokens to the page');

  const replay = await exchange(code, approved.request.codeVerifier);
  expect(replay.status === 400 && (await replay.json()).error === 'invalid_grant', 'a replayed code was not refused with invalid_grant');

  // Login CSRF: another site posting its own code and verifier is refused before any exchange.
  const forged = await consent('approve');
  const forgedCode = parseAuthorizationCallback(forged.location, { expectedState: forged.request.state }).code;
  for (const [what, headers] of [
    ['another origin', { origin: 'https://evil.example', cookie: csrfCookie, 'x-csrf-token': config.csrfToken, 'content-type': 'application/json' }],
    ['no CSRF token', { origin, cookie: csrfCookie, 'content-type': 'application/json' }],
    ['a form body', { origin, cookie: csrfCookie, 'x-csrf-token': config.csrfToken, 'content-type': 'text/plain' }],
  ]) {
    const refused = await exchange(forgedCode, forged.request.codeVerifier, headers);
    expect(refused.status === 403 || refused.status === 415, `an exchange with ${what} was not refused (${refused.status})`);
  }

  // 12. The CSRF token is minted by the server for its own browser session: a planted cookie earns nothing.
  for (const planted of ['csrf=attacker', 'csrf_session=attacker']) {
    const refused = await exchange(forgedCode, forged.request.codeVerifier, { origin, cookie: planted, 'x-csrf-token': 'attacker', 'content-type': 'application/json' });
    expect(refused.status === 403, `12. an exchange with the planted cookie ${planted} was not refused (${refused.status})`);
  }
  const replanted = await fetch(`${origin}/config.json`, { headers: { cookie: 'csrf_session=attacker' } });
  const replantedToken = (await replanted.json()).csrfToken;
  expect(!/attacker/.test(replanted.headers.get('set-cookie') ?? '') && replantedToken !== config.csrfToken, '12. GET /config.json reused a cookie it did not mint');
  // 12. Served over https (here: behind a proxy that says so), every cookie is __Host- and Secure.
  const viaHttps = { 'x-forwarded-proto': 'https' };
  for (const path of ['/config.json', '/login']) {
    const cookieSet = (await fetch(`${origin}${path}`, { headers: viaHttps, redirect: 'manual' })).headers.get('set-cookie') ?? '';
    expect(/^__Host-\w+=/.test(cookieSet) && /; Secure\b/.test(cookieSet) && /Path=\/(;|$)/.test(cookieSet), `12. GET ${path} over https set ${cookieSet || 'no cookie'}`);
  }

  const denied = await consent('deny');
  let deniedError;
  try {
    parseAuthorizationCallback(denied.location, { expectedState: denied.request.state });
  } catch (error) {
    deniedError = error;
  }
  expect(isOAuthError(deniedError) && deniedError.error === 'access_denied', 'Deny did not come back as access_denied');

  return `backend flow: ${connectedBody.cards.length} card(s); single-page app: ${result.cards.length} card(s) for scope ${result.scope}; a replayed code refused; forged exchanges refused; Deny came back as access_denied`;
}

/**
 * How an example's first lines say to run it from the installed package: the packages of the
 * `npm install` lines above its `node … node_modules/openbanking-ng/<file>` line.
 */
function fromPackage(example) {
  const head = readFileSync(join(root, example.file), 'utf8').split('\n');
  const packages = new Set();
  for (const line of head.slice(0, head.findIndex((l) => !l.startsWith('//')))) {
    const install = /^\/\/\s+npm install ([^#]+)/.exec(line);
    if (install) for (const name of install[1].trim().split(/\s+/)) packages.add(name);
    const command = /^\/\/\s+node ((?:--\S+ )*)node_modules\/openbanking-ng\/(\S+)([^#]*)/.exec(line);
    if (command && command[2] === example.file && command[3].trim() === (example.scriptArgs ?? []).join(' ')) {
      return { packages: [...packages].sort(), file: `node_modules/openbanking-ng/${command[2]}`, args: command[1].trim().split(' ').filter(Boolean) };
    }
  }
  return undefined;
}

/** Packs the package, then runs each example in a fresh project with the packages its first lines name. */
async function runPacked(selected) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const work = mkdtempSync(join(tmpdir(), 'openbanking-ng-examples-'));
  try {
    const tarball = join(work, execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop());
    const projects = new Map();
    const plans = selected.map((example) => ({ example, plan: fromPackage(example) }));
    const missing = plans.filter((p) => !p.plan || !p.plan.packages.includes(pkg.name));
    if (missing.length > 0) throw new Error(`No "npm install ${pkg.name} …" and "node node_modules/${pkg.name}/…" lines at the top of: ${missing.map((p) => p.example.file).join(', ')}`);
    for (const { plan } of plans) {
      const key = plan.packages.join(' ');
      if (projects.has(key)) continue;
      const dir = mkdtempSync(join(work, 'project-'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'example-user', private: true, version: '1.0.0' }));
      // The SDK from the tarball; anything else at the version this repository tests with.
      const specs = plan.packages.map((name) => (name === pkg.name ? tarball : versionOf(name) ? `${name}@${versionOf(name)}` : name));
      // Packages for Node 22 examples declare Node 22, and run on it: engine-strict is off for these projects.
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--engine-strict=false', '--loglevel=error', ...specs], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
      projects.set(key, dir);
    }
    console.log(`Running ${plans.length} example(s) from the packed package, in ${projects.size} project(s): ${[...projects.keys()].map((k) => `npm install ${k.replace(tarball, pkg.name)}`).join('; ')}`);
    const node22 = plans.some(({ example }) => example.node === 22) ? node22Project('node22', []).node : undefined;
    return await Promise.all(plans.map(async ({ example, plan }) => ({ example, ...(await run({ ...example, args: plan.args }, projects.get(plan.packages.join(' ')), plan.file, example.node === 22 ? node22 : undefined)) })));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The version a package is tested with here, if it is pinned. */
function versionOf(name) {
  try {
    return pinned(name);
  } catch {
    return undefined;
  }
}

/**
 * Where the Node 22 examples run from this repository: the packages their first lines name (the SDK
 * apart) installed beside Node 22 under .cache/examples-node22, `openbanking-ng` resolving to this
 * repository's build. Each example is copied there to run.
 */
function node22Examples(examples) {
  const plans = examples.map((example) => ({ example, plan: fromPackage(example) }));
  const missing = plans.filter((p) => !p.plan).map((p) => p.example.file);
  if (missing.length > 0) throw new Error(`No "npm install" and "node node_modules/openbanking-ng/…" lines at the top of: ${missing.join(', ')}`);
  const sdk = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name;
  const packages = [...new Set(plans.flatMap((p) => p.plan.packages))].filter((name) => name !== sdk).sort();
  const { dir, node } = node22Project('examples-node22', packages, { linkSdk: true });
  return (example) => {
    mkdirSync(dirname(join(dir, example.file)), { recursive: true });
    cpSync(join(root, example.file), join(dir, example.file));
    return run(example, dir, example.file, node);
  };
}

const packed = process.argv.includes('--packed');
const filters = process.argv.slice(2).filter((a) => a !== '--packed');
const selected = EXAMPLES.filter((e) => filters.length === 0 || filters.some((f) => e.file.includes(f)));
if (selected.length === 0) {
  console.error(`No example matches ${filters.join(', ')}`);
  process.exit(1);
}
let results;
if (packed) results = await runPacked(selected);
else {
  console.log(`Running ${selected.length} example(s)${process.env.OB_SANDBOX_URL ? ` (sandbox ${process.env.OB_SANDBOX_URL} where an example takes one)` : ''}`);
  const onNode22 = selected.some((example) => example.node === 22) ? node22Examples(selected.filter((example) => example.node === 22)) : undefined;
  results = await Promise.all(selected.map(async (example) => ({ example, ...(await (example.node === 22 ? onNode22(example) : run(example))) })));
}
let failed = 0;
for (const { example, ok, output, ms } of results) {
  console.log(`${ok ? '✓' : '✗'} ${[example.file, ...(example.scriptArgs ?? [])].join(' ')} (${(ms / 1000).toFixed(1)} s)`);
  if (!ok || process.env.EXAMPLES_VERBOSE) console.log(output.replace(/^/gm, '    '));
  if (!ok) failed++;
}
if (failed > 0) {
  console.error(`${failed} example(s) failed`);
  process.exitCode = 1;
} else {
  console.log('Every example ran.');
}
