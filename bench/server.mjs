// The benchmark's API server: a loopback-only stand-in for the token endpoint and
// `POST /openapi/v1/cards`, run in its own process so that its work never counts as the client's.
//
// It checks what a real gateway checks (bearer token, `signature` = SHA-256 of secret;key, an
// idempotency key) and, while the `refuse429` phase is on, answers every tenth attempt with
// 429 + `Retry-After: 0` (never twice for one call). Every attempt of one call (the call number
// travels in the body) must carry the same idempotency key, signature and body bytes: anything
// else counts as a violation.
//
// Started by bench/run.mjs through `fork`; it stops by itself when its parent goes away, and
// after a hard time limit in any case.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { ACCESS_TOKEN, CARDS_PATH, createdCard, signatureOf, TOKEN_PATH } from './fixtures.mjs';

const HARD_LIMIT_MS = 30 * 60_000;
const TOKEN_BODY = JSON.stringify({ access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600, scope: 'cards.create' });

let phase = newPhase(false);
function newPhase(refuse429) {
  return { refuse429, attempts: 0, refused: 0, rejected: 0, violations: 0, calls: new Map() };
}

const seqPattern = /"id":"bench_seq","description":"[^"]*","type":"string","value":"(\d+)"/;

function reply(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function cards(req, res, body) {
  const p = phase;
  p.attempts++;
  const key = req.headers['idempotency-key'];
  const signature = req.headers.signature;
  if (req.headers.authorization !== `Bearer ${ACCESS_TOKEN}` || typeof key !== 'string' || signature !== signatureOf(key)) {
    p.rejected++;
    return reply(res, 401, JSON.stringify({ status: '02', message: 'Unauthorized', data: {} }));
  }
  const seq = seqPattern.exec(body)?.[1];
  if (seq === undefined) {
    p.rejected++;
    return reply(res, 400, JSON.stringify({ status: '01', error_code: 'MISSING_FIELD', message: 'bench_seq is required', data: {} }));
  }
  if (p.refuse429) {
    const digest = createHash('sha256').update(body).digest('base64');
    const seen = p.calls.get(seq);
    if (seen === undefined) p.calls.set(seq, { key, signature, digest, refused: false });
    else if (seen.key !== key || seen.signature !== signature || seen.digest !== digest) p.violations++;
    const call = p.calls.get(seq);
    if (!call.refused && p.attempts % 10 === 0) {
      call.refused = true;
      p.refused++;
      return reply(res, 429, JSON.stringify({ status: '91', message: 'Too many requests', data: {} }), { 'retry-after': '0' });
    }
  }
  return reply(res, 201, JSON.stringify(createdCard(seq)));
}

function control(req, res, url) {
  if (url === '/__bench/phase') {
    const report = { attempts: phase.attempts, refused: phase.refused, rejected: phase.rejected, violations: phase.violations, calls: phase.calls.size };
    phase = newPhase(req.headers['x-refuse-429'] === '1');
    return reply(res, 200, JSON.stringify(report));
  }
  return reply(res, 404, '{}');
}

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST' && req.url === CARDS_PATH) return cards(req, res, body);
    if (req.method === 'POST' && req.url === TOKEN_PATH) return reply(res, 200, TOKEN_BODY);
    if (req.url.startsWith('/__bench/')) return control(req, res, req.url);
    return reply(res, 404, JSON.stringify({ status: '04', message: 'Not found', data: {} }));
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 61_000;

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) process.send({ port });
  else console.log(`bench server on http://127.0.0.1:${port}`);
});

const stop = () => {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
};
process.on('disconnect', stop);
process.on('SIGTERM', stop);
setTimeout(stop, HARD_LIMIT_MS).unref();
