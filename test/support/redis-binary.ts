import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';

/** Where the tests look for redis-server, and what they found. */
export interface RedisSearch {
  /** The binary to start, when one exists. */
  found?: string;
  /** Every path looked at, in order. */
  tried: string[];
  /** True when OPENBANKING_REDIS_SERVER chose the path. */
  fromVariable: boolean;
}

/** OPENBANKING_REDIS_SERVER names the binary; else Debian's, else the first on PATH. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): RedisSearch {
  const named = env.OPENBANKING_REDIS_SERVER;
  const tried = named ? [named] : ['/usr/bin/redis-server', ...(env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'redis-server'))];
  return { found: tried.find((path) => exists(path)), tried: [...new Set(tried)], fromVariable: Boolean(named) };
}

/** What a file that needs redis-server is about, from its path: fleet, MCP, ... */
function kindOf(file: string): string {
  const dir = basename(dirname(file));
  return dir === 'test' ? basename(file).replace(/\.test\.ts$/, '') : dir === 'mcp' ? 'MCP' : dir;
}

/**
 * The closing line of a run that left out the files needing redis-server: which files (and what
 * they test), where the server was looked for, and how to get one.
 */
export function redisSkipLine(files: readonly string[], search: RedisSearch): string {
  const kinds = [...new Set(files.map(kindOf))].join(' and ');
  const where = search.fromVariable
    ? `OPENBANKING_REDIS_SERVER names ${search.tried[0]}, which does not exist`
    : `none was found at ${search.tried.join(', ')}`;
  const count = files.length === 1 ? '1 test file' : `${files.length} test files`;
  return `not run: ${count} (${kinds}) ${files.length === 1 ? 'needs' : 'need'} a real redis-server: ${where} (${files.join(', ')}); install one (apt-get install redis-server, brew install redis) or point OPENBANKING_REDIS_SERVER at it, and run npm test again: CI always runs them`;
}

/** The test files under `dir` that start a real redis-server (they call `startRedis` or `useRedis`). */
export function filesNeedingRedis(dir = 'test'): string[] {
  const testFiles = (at: string): string[] =>
    readdirSync(at, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? testFiles(join(at, entry.name)) : entry.name.endsWith('.test.ts') ? [join(at, entry.name)] : []));
  return testFiles(dir).filter((file) => /\b(startRedis|useRedis)\(/.test(readFileSync(file, 'utf8')));
}
