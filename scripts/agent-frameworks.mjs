// The agent frameworks' tests (test/frameworks/*.test.mjs): the Vercel AI SDK and the OpenAI Agents
// SDK driving openbanking-ng-mcp, each with a model that needs no API key. Both frameworks need
// Node 22: they are installed with it under .cache/agent-frameworks (scripts/node22.mjs, pinned in
// scripts/node22-tools.json), the tests are copied there and run with `node --test` on Node 22,
// openbanking-ng resolving to this repository's build. Run `npm run build` first.
//
// Usage: node scripts/agent-frameworks.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { node22Project } from './node22.mjs';

const root = resolve(import.meta.dirname, '..');
if (!existsSync(join(root, 'dist', 'bin', 'openbanking-ng-mcp.js'))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(1);
}
const { dir, node } = node22Project('agent-frameworks', ['ai', '@ai-sdk/mcp', '@openai/agents', 'zod'], { linkSdk: true });
for (const folder of ['test/frameworks', 'test/support']) cpSync(join(root, folder), join(dir, folder), { recursive: true, filter: (path) => !path.endsWith('.ts') });
const files = readdirSync(join(dir, 'test', 'frameworks')).filter((f) => f.endsWith('.test.mjs')).map((f) => join('test', 'frameworks', f));
const result = spawnSync(node, ['--test', '--test-reporter=spec', ...files], { cwd: dir, stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } });
process.exitCode = result.status ?? 1;
