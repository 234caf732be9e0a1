// The matrix's entry for Node, Bun and Deno: the shared probe, then the Node-only entries this
// runtime is asked to try (`/node`, `/otel`, and `/redis` when the package ships it). Prints one line,
// `RESULT <json>`, for scripts/runtimes/matrix.mjs.
//   <runtime> run-probe.mjs <sandboxUrl> [extra entries, comma separated] [redis URL] [store prefix]
import { probe } from './probe.mjs';

const [sandboxUrl, extras = '', redisUrl = '', prefix = 'runtime'] = (globalThis.Deno?.args ?? process.argv.slice(2));

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
      if (names !== 'GET /cards, POST /oauth2/token, cards.list, oauth2 client_credentials') throw new Error(`spans recorded: ${names}`);
      result.checks.push({ name: '/otel', ok: true, detail: `instrument(ob): ${names}` });
    } else if (entry === 'redis') {
      result.checks.push({ name: '/redis', ok: true, detail: await fleetRoundTrip(sandboxUrl, redisUrl, prefix) });
    } else {
      throw new Error(`no check for openbanking-ng/${entry}`);
    }
  } catch (error) {
    result.checks.push({ name: `/${entry}`, ok: false, detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
}
console.log(`RESULT ${JSON.stringify({ runtime: runtimeVersion(), ...result })}`);

/**
 * Two clients of one application share a fleet on a real redis-server through node-redis: the
 * second reuses the first one's token (one token request in all), and what the store holds under
 * the prefix is sealed (no token in it).
 */
async function fleetRoundTrip(sandboxUrl, redisUrl, prefix) {
  if (!redisUrl) throw new Error('no redis-server given to run /redis against');
  const { redisFleet } = await import('openbanking-ng/redis');
  const { OpenBanking } = await import('openbanking-ng');
  const { createClient } = await import('redis');
  const redis = await createClient({ url: redisUrl }).connect();
  try {
    const registration = await OpenBanking.register({ authUrl: sandboxUrl, username: `runtime-${prefix}`, password: 'not-a-secret', app_name: 'Runtime fleet', redirect_url: 'http://127.0.0.1:3000/callback' });
    let tokenRequests = 0;
    const counting = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes('/oauth2/token')) tokenRequests++;
      return fetch(input, init);
    };
    const client = () => OpenBanking.fromRegistration(registration, { fleet: redisFleet(redis, { prefix }), fetch: counting, logLevel: 'off' });
    await client().cards.list();
    await client().cards.list();
    if (tokenRequests !== 1) throw new Error(`two clients of one fleet made ${tokenRequests} token requests`);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length === 0) throw new Error(`nothing stored under ${prefix}:`);
    for (const key of keys) {
      const value = (await redis.type(key)) === 'string' ? await redis.get(key) : '';
      if (value && /access_token|eyJ/.test(value)) throw new Error(`${key} holds a token in the clear`);
    }
    return `two clients on redis-server through node-redis: one token request, ${keys.length} sealed key(s) under ${prefix}:`;
  } finally {
    await redis.quit();
  }
}

