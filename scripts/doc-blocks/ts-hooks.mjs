// Runs a guide's TypeScript file the way `npx tsx file.mts` does (esbuild strips the types):
//   node --import ./scripts/doc-blocks/ts-hooks.mjs first-card.mts
// .mts is an ES module, .cts CommonJS, .ts whatever its package.json's "type" says (CommonJS in a
// project `npm init -y` made, where top-level await fails as it does under tsx). Imports keep what
// they name (verbatimModuleSyntax), as Node's own type stripping does: a type is imported with `type`.
import { register } from 'node:module';

register('./ts-load.mjs', import.meta.url);
