import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// DESIGN "Package": @modelcontextprotocol/server is the optional peer of /mcp only, and the MCP
// server is built on the SDK's public entries, never on its internals.
const src = fileURLToPath(new URL('../../src', import.meta.url));
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
const MCP_FILES = /^(mcp\.ts|mcp\/.*|bin\/(mcp-[\w-]+|openbanking-ng-mcp)\.ts)$/;

describe('the MCP peer and the public API', () => {
  it('only the /mcp entry and its command import @modelcontextprotocol/*', () => {
    const importers = files(src)
      .filter((file) => imports(file).some((spec) => spec.startsWith('@modelcontextprotocol/')))
      .map((file) => relative(src, file));
    expect(importers.length).toBeGreaterThan(0);
    for (const file of importers) expect(file, file).toMatch(MCP_FILES);
  });

  it("src/mcp/ reaches the SDK through its entries (index, schemas), and the owners of the redaction rule, of zod's issues and of SHA-256", () => {
    for (const file of files(join(src, 'mcp'))) {
      for (const spec of imports(file).filter((s) => s.startsWith('.'))) {
        expect(spec, relative(src, file)).toMatch(/^(\.\/[\w-]+\.js|\.\.\/(index|schemas|errors\/(base|api|redact)|crypto\/bytes)\.js|\.\.\/core\/validation\.js|\.\.\/\.\.\/package\.json)$/);
      }
    }
  });

  it('the command reaches the SDK only through its entries (index, testing, mcp)', () => {
    for (const file of files(join(src, 'bin')).filter((f) => MCP_FILES.test(relative(src, f)))) {
      for (const spec of imports(file).filter((s) => s.startsWith('.'))) {
        expect(spec, relative(src, file)).toMatch(/^(\.\/(mcp-[\w-]+)\.js|\.\.\/(index|testing|mcp|redis)\.js|\.\.\/mcp\/(catalog|movement|options)\.js)$/);
      }
    }
  });
});
