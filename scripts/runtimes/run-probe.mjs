// The matrix's entry for Node, Bun and Deno: the shared probe, then the Node-only entries this
// runtime is asked to try (`/node`, `/otel`, and `/redis` when the package ships it). Prints one line,
// `RESULT <json>`, for scripts/runtimes/matrix.mjs.
//   <runtime> run-probe.mjs <sandboxUrl> [extra entries, comma separated]
import { probe } from './probe.mjs';

const [sandboxUrl, extras = ''] = (globalThis.Deno?.args ?? process.argv.slice(2));

/** @returns {string} */
function runtimeVersion() {
  const g = /** @type {any} */ (globalThis);
  if (g.Bun) return `bun ${g.Bun.version}`;
  if (g.Deno) return `deno ${g.Deno.version.deno}`;
  return `node ${process.version}`;
}

const result = await probe({ sandboxUrl });
for (const entry of extras.split(',').filter(Boolean)) {
  try {
    if (entry === 'node') {
      const { tripleDesCipher } = await import('openbanking-ng/node');
      const cipher = tripleDesCipher(result.artifacts.cipherSecret);
      const ciphertext = await cipher.encrypt('1234');
      if ((await cipher.decrypt(ciphertext)) !== '1234') throw new Error('tripleDesCipher round trip failed');
      result.artifacts.tripleDes = ciphertext;
      result.checks.push({ name: '/node', ok: true, detail: 'tripleDesCipher round trip' });
    } else if (entry === 'otel') {
      // One call recorded as spans through @opentelemetry/api and the SDK's in-memory exporter.
      const { instrument } = await import('openbanking-ng/otel');
      const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
      const { OpenBanking } = await import('openbanking-ng');
      const spans = new InMemorySpanExporter();
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
      const registration = await OpenBanking.register({ authUrl: sandboxUrl, username: 'runtime-otel', password: 'not-a-secret', app_name: 'Runtime otel', redirect_url: 'http://127.0.0.1:3000/callback' });
      const ob = OpenBanking.fromRegistration(registration, { logLevel: 'off' });
      instrument(ob, { tracerProvider });
      await ob.cards.list();
      const names = spans.getFinishedSpans().map((span) => span.name).sort().join(', ');
      if (names !== 'GET /cards, cards.list, oauth2 client_credentials') throw new Error(`spans recorded: ${names}`);
      result.checks.push({ name: '/otel', ok: true, detail: `instrument(ob): ${names}` });
    } else if (entry === 'redis') {
      const redis = await import(`openbanking-ng/${entry}`);
      if (typeof redis.redisFleet !== 'function') throw new Error('openbanking-ng/redis has no redisFleet function');
      result.checks.push({ name: '/redis', ok: true, detail: 'imports; redisFleet is a function' });
    } else {
      throw new Error(`no check for openbanking-ng/${entry}`);
    }
  } catch (error) {
    result.checks.push({ name: `/${entry}`, ok: false, detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
}
console.log(`RESULT ${JSON.stringify({ runtime: runtimeVersion(), ...result })}`);
