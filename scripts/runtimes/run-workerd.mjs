// Runs the bundled Worker (worker.mjs) in workerd through Miniflare, on the Node that Miniflare
// needs (22+), sends it one request and prints its answer as `RESULT <json>`.
//   node22 run-workerd.mjs <miniflare module path> <bundled worker> <sandboxUrl>
const [miniflarePath, scriptPath, sandboxUrl] = process.argv.slice(2);
const miniflare = await import(miniflarePath);
const Miniflare = miniflare.Miniflare ?? miniflare.default.Miniflare;
const mf = new Miniflare({
  modules: true,
  scriptPath,
  compatibilityDate: '2025-09-01',
  bindings: { SANDBOX_URL: sandboxUrl },
});
try {
  const response = await mf.dispatchFetch('http://probe.local/');
  const text = await response.text();
  if (!response.ok) throw new Error(`the Worker answered ${response.status}: ${text}`);
  console.log(`RESULT ${text}`);
} finally {
  await mf.dispose();
}
