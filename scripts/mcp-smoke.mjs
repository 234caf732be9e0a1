// The MCP server as users get it: the packed tarball installed into scratch projects.
//
// - Without @modelcontextprotocol/server (the optional peer of /mcp): `openbanking-ng-mcp` exits 1
//   with the line to install it, and TypeScript code importing every entry that needs no peer
//   compiles with the compiler's defaults (skipLibCheck off).
// - With the peer: /mcp loads with `import` and `require`, and the installed command, driven over
//   stdio by the official MCP client, lists its tools, reads, sends a transfer the person confirms
//   and refuses one over the limit (against its built-in sandbox).
// - Under a client nobody here wrote: the MCP Inspector's command line (which needs Node 22.19+, run
//   with the Node 22 binary of the runtime matrix's pin) lists the tools of the default, writes,
//   money and strict-schemas profiles with --strict (0 errors and 0 warnings each: it prints
//   findings only when there are some) and calls one. What it printed, and each profile's
//   tools/list size, go to artifacts/mcp-inspector.txt.
// - The MCP conformance suite (@modelcontextprotocol/conformance, Node 22) runs its server scenarios
//   that apply to this server against `openbanking-ng-mcp --http`; docs/agents.md lists the others
//   and why they do not apply. Its output goes to artifacts/mcp-conformance.txt.
//
// Usage: node scripts/mcp-smoke.mjs
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { node22Project } from './node22.mjs';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const PEER = '@modelcontextprotocol/server';
/** The conformance suite's server scenarios that apply to this server (docs/agents.md says why the others do not). */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];
const MONEY_FLAGS = ['--max-amount', '50000', '--daily-amount', '200000', '--ledger', 'memory'];
/** The listings the Inspector checks: the default, every other write, the money tools, and the strict form of everything. */
const PROFILES = [
  ['default', []],
  ['writes', ['--allow', 'writes']],
  ['money', ['--allow', 'transfers.create,bills.pay,directDebits.charge,accounts.holds.create', ...MONEY_FLAGS]],
  ['everything, --strict-schemas', ['--strict-schemas', '--allow', 'writes,transfers.create,bills.pay,directDebits.charge,accounts.holds.create,directDebits.create,directDebits.update,cards.create,accounts.holds.update', ...MONEY_FLAGS]],
];
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

  // 3. The MCP Inspector's command line, on Node 22: every profile's listing, then a call.
  const { dir: tools, node: node22 } = node22Project('mcp-node22', ['@modelcontextprotocol/inspector', '@modelcontextprotocol/conformance']);
  const inspector = join(tools, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  const inspect = (args) => {
    const result = spawnSync(node22, [inspector, '--cli', bin, ...args], { cwd: full, encoding: 'utf8', timeout: 120_000 });
    check(result.status === 0, `mcp-inspector --cli ${args.join(' ')}: exit ${result.status}\n${result.stdout}\n${result.stderr}`);
    return result;
  };
  const version = run(node22, ['--version']).trim();
  const installed = (name) => JSON.parse(readFileSync(join(tools, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version;
  const report = [`MCP Inspector ${installed('@modelcontextprotocol/inspector')} (--cli, --strict) on Node ${version}, against the packed openbanking-ng-mcp on ${process.version}`];
  for (const [profile, flags] of PROFILES) {
    const listed = inspect([...flags, '--method', 'tools/list', '--strict']);
    const names = JSON.parse(listed.stdout).tools.map((t) => t.name);
    // The Inspector prints a finding per line ("Error: tool …", "Warning: tool …") and their count, or nothing at all.
    const errors = (listed.stderr.match(/^Error: tool /gm) ?? []).length;
    const warnings = (listed.stderr.match(/^Warning: tool /gm) ?? []).length;
    check(errors === 0 && warnings === 0, `the Inspector's --strict check of the ${profile} profile found ${errors} error(s) and ${warnings} warning(s):\n${listed.stderr}`);
    const bytes = Buffer.byteLength(JSON.stringify(JSON.parse(listed.stdout)));
    if (profile === 'default') check(bytes <= 16 * 1024, `the default tools/list is ${bytes} bytes, over 16 KiB`);
    report.push(`$ mcp-inspector --cli openbanking-ng-mcp ${flags.join(' ')} --method tools/list --strict`.replace('  ', ' '), `${profile}: ${names.length} tools, tools/list ${bytes} bytes of JSON; schema portability: ${errors} errors, ${warnings} warnings`);
  }
  const called = inspect(['--method', 'tools/call', '--tool-name', 'accounts_balances_retrieve', '--tool-arg', 'account_number=0123456789']);
  const balances = JSON.parse(called.stdout);
  check(balances.structuredContent?.account_number === '0123456789' && !balances.isError, `tools/call: ${called.stdout}`);
  report.push('$ mcp-inspector --cli openbanking-ng-mcp --method tools/call --tool-name accounts_balances_retrieve --tool-arg account_number=0123456789', called.stdout.trim());
  mkdirSync(join(root, 'artifacts'), { recursive: true });
  writeFileSync(join(root, 'artifacts', 'mcp-inspector.txt'), `${report.join('\n')}\n`);
  console.log(`inspector ok: ${report.filter((line) => !line.startsWith('$')).slice(0, PROFILES.length + 1).join('; ')}`);

  // 4. The conformance suite's applicable server scenarios, against --http (read-only, loopback: no token needed).
  const conformance = join(tools, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const server = spawn(bin, ['--http', '--port', '0'], { cwd: full, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise((resolveUrl, reject) => {
      let stderr = '';
      server.stderr.on('data', (chunk) => {
        stderr += chunk;
        const found = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
        if (found) resolveUrl(found);
      });
      server.on('exit', (code) => reject(new Error(`openbanking-ng-mcp --http exited ${code}: ${stderr}`)));
    });
    const lines = [`MCP conformance suite ${installed('@modelcontextprotocol/conformance')} on Node ${version}, against the packed openbanking-ng-mcp --http`];
    for (const scenario of SCENARIOS) {
      const result = spawnSync(node22, [conformance, 'server', '--url', url, '--scenario', scenario], { cwd: tools, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } });
      const output = `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
      const passed = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
      check(result.status === 0 && passed !== null && passed[1] === passed[2] && passed[3] === '0' && Number(passed[2]) > 0, `conformance scenario ${scenario}: exit ${result.status}\n${output}`);
      lines.push(`${scenario}: ${passed[0]}`);
    }
    writeFileSync(join(root, 'artifacts', 'mcp-conformance.txt'), `${lines.join('\n')}\n`);
    console.log(`conformance ok: ${lines.slice(1).join('; ')}`);
  } finally {
    server.kill();
  }
} catch (error) {
  console.error(error.stdout ?? '', error.stderr ?? '', error.message);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
