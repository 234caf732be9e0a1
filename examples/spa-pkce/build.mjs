// Bundles the single-page app's TypeScript module for the browser with esbuild:
// src/app.ts → dist/app.js (ES module, minified, with a source map). `openbanking-ng/pkce` is
// bundled in; it is the only dependency and pulls in no HTTP client, schema library or cipher.
//
//   node examples/spa-pkce/build.mjs      # or let examples/auth-code-backend build it on start
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * Builds the app; resolves to the folder to serve (index.html is next to this file, app.js in dist/).
 * @returns {Promise<{ root: string; bundle: string; bytes: number }>}
 */
export async function buildSpa() {
  const outfile = `${here}dist/app.js`;
  const result = await build({
    entryPoints: [`${here}src/app.ts`],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  });
  const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs).find((name) => name.endsWith('app.js')) ?? '']?.bytes ?? 0;
  return { root: here, bundle: outfile, bytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { bundle, bytes } = await buildSpa();
  console.log(`Built ${bundle} (${bytes} bytes)`);
}
