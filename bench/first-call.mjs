// The first call of a fresh process, apart from the import: what a serverless cold start pays after
// `import`. A stub fetch answers the token and the card, so only the SDK's own loading and work count.
//
//   node bench/first-call.mjs [dist/index.js of a build]   (prints {"import": ms, "first": ms})
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuild, root } from './build.mjs';

if (!process.argv[2]) ensureBuild(); // the package's own dist/, built first when stale
const target = pathToFileURL(resolve(process.argv[2] ?? `${root}/dist/index.js`)).href;
const t0 = performance.now();
const { OpenBanking } = await import(target);
const t1 = performance.now();
const card = { card_id: 'c', card_status: 'ACTIVE' };
const fetch = async (input) => {
  const url = typeof input === 'string' ? input : input.url;
  if (url.includes('/oauth2/token')) return new Response(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 3600 }), { headers: { 'content-type': 'application/json' } });
  return new Response(JSON.stringify({ status: '00', message: 'ok', data: card }), { status: 201, headers: { 'content-type': 'application/json' } });
};
const ob = new OpenBanking({ clientId: 'a', clientSecret: 'b', baseUrl: 'http://127.0.0.1:9/openapi/v1', authUrl: 'http://127.0.0.1:9', fetch, logLevel: 'off' });
await ob.cards.create({ account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } });
const t2 = performance.now();
console.log(JSON.stringify({ import: t1 - t0, first: t2 - t1 }));
