// The clients the benchmark compares. Each `setup(origin)` returns `call(seq)`, which creates one
// card (retrying 429s with the same idempotency key, signature and body) and resolves to `data`.
// Every variant sends the same headers, the same signature and the same JSON body.
import { createHash, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { basename, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CARDS_PATH, cardBody, CLIENT_ID, CLIENT_SECRET, TOKEN_PATH } from './fixtures.mjs';

const MAX_RETRIES = 2;
const ATTEMPT_TIMEOUT_MS = 30_000;
const abortAttempt = (controller) => controller.abort(new Error('attempt timeout'));
const sign = (key) => createHash('sha256').update(`${CLIENT_SECRET};${key}`, 'utf8').digest('hex');
const tokenForm = () => new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'cards.create' });

function headersFor(token) {
  const key = randomUUID();
  return { accept: 'application/json', 'content-type': 'application/json', 'idempotency-key': key, signature: sign(key), authorization: `Bearer ${token}` };
}

function fail(status, text) {
  return new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
}

/**
 * The hand-written retry loop of the variants with an attempt timeout: a fresh AbortController and
 * timer per attempt, `send(signal)` for the attempt's response, 429 retried with the same headers
 * and body.
 */
async function timedAttempts(send) {
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    const timer = setTimeout(abortAttempt, ATTEMPT_TIMEOUT_MS, controller);
    try {
      const res = await send(controller.signal);
      const text = await res.text();
      if (res.status === 429 && attempt < MAX_RETRIES) continue;
      if (!res.ok) throw fail(res.status, text);
      return JSON.parse(text).data;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** ky, and a client-credentials token fetched with it. */
async function kyWithToken(origin) {
  const { default: ky } = await import('ky');
  const { access_token: token } = await ky.post(origin + TOKEN_PATH, { body: tokenForm() }).json();
  return { ky, token };
}

/** The baseline: the fetch code a developer would write by hand. */
async function fetchVariant(origin) {
  const response = await fetch(origin + TOKEN_PATH, { method: 'POST', body: tokenForm() });
  const { access_token: token } = await response.json();
  const url = origin + CARDS_PATH;
  return async (seq) => {
    const headers = headersFor(token);
    const body = JSON.stringify(cardBody(seq));
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(url, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status === 429 && attempt < MAX_RETRIES) continue;
      if (!res.ok) throw fail(res.status, text);
      return JSON.parse(text).data;
    }
  };
}

/** The baseline plus what a per-attempt timeout costs: an AbortController and a timer per attempt. */
async function fetchTimeoutVariant(origin) {
  const response = await fetch(origin + TOKEN_PATH, { method: 'POST', body: tokenForm() });
  const { access_token: token } = await response.json();
  const url = origin + CARDS_PATH;
  return async (seq) => {
    const headers = headersFor(token);
    const body = JSON.stringify(cardBody(seq));
    return timedAttempts((signal) => fetch(url, { method: 'POST', headers, body, signal }));
  };
}

/** The floor: node:http with a keep-alive agent, no fetch machinery at all. */
async function httpVariant(origin) {
  const agent = new Agent({ keepAlive: true });
  const { hostname, port } = new URL(origin);
  const send = (path, headers, body) =>
    new Promise((resolve, reject) => {
      const req = request({ agent, hostname, port, path, method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const tokenAnswer = await send(TOKEN_PATH, { 'content-type': 'application/x-www-form-urlencoded' }, tokenForm().toString());
  const token = JSON.parse(tokenAnswer.text).access_token;
  return async (seq) => {
    const headers = headersFor(token);
    const body = JSON.stringify(cardBody(seq));
    for (let attempt = 0; ; attempt++) {
      const { status, text } = await send(CARDS_PATH, headers, body);
      if (status === 429 && attempt < MAX_RETRIES) continue;
      if (status < 200 || status > 299) throw fail(status, text);
      return JSON.parse(text).data;
    }
  };
}

/** ky alone, written the way its README shows: `ky.post(url, { json, headers, retry }).json()`. */
async function kyVariant(origin) {
  const { ky, token } = await kyWithToken(origin);
  const url = origin + CARDS_PATH;
  const retry = { limit: MAX_RETRIES, methods: ['post'], statusCodes: [429], afterStatusCodes: [429] };
  return async (seq) => {
    const headers = headersFor(token);
    const envelope = await ky.post(url, { json: cardBody(seq), headers, retry }).json();
    return envelope.data;
  };
}

/**
 * ky with its retry, timeout and HTTP errors off, a per-attempt AbortController and timer, and our
 * own retry loop; the body and the signal given to ky. ky then builds a Request with a body
 * stream, tee()s it for the clone it keeps for retries of its own, combines the signals with
 * `AbortSignal.any`, and fetch re-wraps its Request through an identity TransformStream.
 */
async function kyBodyVariant(origin) {
  const { ky, token } = await kyWithToken(origin);
  const url = origin + CARDS_PATH;
  return async (seq) => {
    const headers = headersFor(token);
    const body = JSON.stringify(cardBody(seq));
    return timedAttempts((signal) => ky(url, { method: 'POST', headers, body, signal, retry: 0, timeout: false, throwHttpErrors: false }));
  };
}

/**
 * The same, with the body and the attempt's signal handed to fetch when ky calls it: ky builds a
 * body-less Request (URL, method, headers), so there is nothing to tee or re-wrap. This is how
 * the SDK drives ky; it is the SDK minus its pipeline (validation, token cache, envelope, errors).
 */
async function kyLeanVariant(origin) {
  const { ky, token } = await kyWithToken(origin);
  const url = origin + CARDS_PATH;
  return async (seq) => {
    const headers = headersFor(token);
    const body = JSON.stringify(cardBody(seq));
    return timedAttempts((signal) => ky(url, { method: 'POST', headers, retry: 0, timeout: false, throwHttpErrors: false, fetch: (request) => fetch(request, { body, signal }) }));
  };
}

/**
 * ky driven the way the SDK drives it now: one instance with the SDK's retry options (POST retried,
 * 408/429/5xx, attempt timeouts, ky waiting 0 as the SDK's own sleep does here), a per-attempt
 * timeout, redirects refused, the body read as text: the SDK minus its own steps (validation,
 * token cache, hooks, envelope, errors).
 */
/** The statuses the SDK retries: 408, 429 and every 5xx. */
const RETRY_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];

async function kySameVariant(origin) {
  const { ky, token } = await kyWithToken(origin);
  const api = ky.create({
    redirect: 'manual',
    timeout: 30_000,
    // The SDK's retry options: ky waits the Retry-After (0 from this server) or the backoff itself.
    retry: { limit: MAX_RETRIES, methods: ['get', 'post', 'put', 'patch', 'delete'], statusCodes: RETRY_STATUSES, afterStatusCodes: RETRY_STATUSES, retryOnTimeout: true, delay: (n) => Math.min(8_000, 500 * 2 ** (n - 1)), backoffLimit: 8_000, jitter: (d) => d * (1 - 0.25 * Math.random()) },
  });
  const url = origin + CARDS_PATH;
  return async (seq) => {
    const headers = headersFor(token);
    const body = JSON.stringify(cardBody(seq));
    const response = await api(url, { method: 'POST', headers, body });
    return JSON.parse(await response.text()).data;
  };
}

/** The SDK as users get it: the built package, `ob.cards.create(body)`. */
const sdkVariant = (specifier) => async (origin) => {
  const { OpenBanking } = await import(specifier);
  const ob = new OpenBanking({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    baseUrl: `${origin}/openapi/v1`,
    authUrl: origin,
    logLevel: 'off', // Retry-After: 0 from the server: ky retries at once, like the hand-written loops above
  });
  const call = (seq) => ob.cards.create(cardBody(seq));
  call.ob = ob;
  return call;
};

/**
 * The SDK traced: `instrument(ob)` from `openbanking-ng/otel` with the OpenTelemetry SDK, the
 * AsyncLocalStorage context manager, every span and metric recorded and handed to exporters that
 * drop them. What the instrumentation itself costs per call.
 */
const sdkOtelVariant = async (origin) => {
  const [{ context }, { AsyncLocalStorageContextManager }, trace, sdkMetrics, { instrument }, setup] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-metrics'),
    import('openbanking-ng/otel'),
    sdkVariant('openbanking-ng')(origin),
  ]);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const noop = { export: (_items, done) => done({ code: 0 }), shutdown: async () => undefined, forceFlush: async () => undefined };
  const tracerProvider = new trace.BasicTracerProvider({ spanProcessors: [new trace.BatchSpanProcessor(noop)] });
  const meterProvider = new sdkMetrics.MeterProvider({ readers: [new sdkMetrics.PeriodicExportingMetricReader({ exporter: noop, exportIntervalMillis: 1000 })] });
  instrument(setup.ob, { tracerProvider, meterProvider });
  return setup;
};

/** Every variant; `extra` ones run only when named with `--only`. */
export const VARIANTS = {
  fetch: { label: 'raw fetch (baseline)', setup: fetchVariant },
  http: { label: 'node:http keep-alive (floor)', setup: httpVariant },
  'fetch-timeout': { label: 'raw fetch + attempt timeout', setup: fetchTimeoutVariant, extra: true },
  ky: { label: 'ky alone (its defaults)', setup: kyVariant },
  'ky-body': { label: 'ky, body and signal given to ky', setup: kyBodyVariant },
  'ky-lean': { label: 'ky, body and signal at fetch', setup: kyLeanVariant, extra: true },
  'ky-same': { label: 'ky with the SDK\'s options', setup: kySameVariant },
  sdk: { label: 'openbanking-ng cards.create', setup: sdkVariant('openbanking-ng') },
  'sdk-otel': { label: 'openbanking-ng cards.create, instrument(ob), no-op exporters', setup: sdkOtelVariant },
};

// `--sdk-base <dist/index.js of another build>[,<another>…]` adds those builds as variants
// `sdk@<folder>`, for before/after figures from one run (bench/run.mjs passes the paths through
// the environment, so that its children see them too).
// The name is the folder holding that dist/, or the build's own folder when it is not called dist
// (a copied build such as before-dist/).
for (const file of process.env.BENCH_SDK_BASE?.split(',') ?? []) {
  const folder = basename(dirname(file)) === 'dist' ? basename(dirname(dirname(file))) : basename(dirname(file));
  VARIANTS[`sdk@${folder}`] = { label: `openbanking-ng, build in ${folder}/`, setup: sdkVariant(pathToFileURL(file).href) };
}
