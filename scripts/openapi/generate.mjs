// Writes openapi.json (the package root) from the built `openbanking-ng/schemas` entry, the very
// declarations the client runs on. `--check` writes nothing and fails when the committed document
// differs from a fresh generation. Run after `tsup` (npm run build does both).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDocument } from './document.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { operations, toJsonSchema, toJsonSchemas } = await import(new URL('dist/schemas.js', `file://${root}`).href);
const { SCOPES } = await import(new URL('dist/index.js', `file://${root}`).href);
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

const text = `${JSON.stringify(buildDocument({ operations, scopes: SCOPES, version, toJsonSchema, toJsonSchemas }), null, 2)}\n`;
const file = `${root}openapi.json`;
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // missing: reported below
  }
  if (committed !== text) {
    console.error('openapi.json differs from a fresh generation: run `npm run build` and commit openapi.json');
    process.exit(1);
  }
  console.log(`openapi.json is up to date (${Object.keys(operations).length} operations)`);
} else {
  writeFileSync(file, text);
  console.log(`openapi.json written (${Object.keys(operations).length} operations)`);
}
