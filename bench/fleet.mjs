// `npm run bench:fleet`: the fleet's figures over real processes and a real redis-server (started
// here on a free port, no persistence, stopped at the end), with node-redis and with ioredis.
// Bundles bench/fleet-bench.ts (and the worker it starts) from the sources with esbuild, then runs it.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { root } from './build.mjs';

const outfile = join(root, 'test/fleet/.build/bench.mjs');
await build({ entryPoints: [join(root, 'bench/fleet-bench.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'error' });
execFileSync(process.execPath, [outfile, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
