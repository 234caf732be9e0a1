// Runs a split bundle's entry with a `fetch` that answers the token and card requests, and prints
// (as JSON, last line) the module URLs loaded before the card request was sent. See split.mjs.
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const loaded = [];
port1.on('message', (url) => loaded.push(url));
register('./split-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
let reported = false;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  if (request.url.endsWith('/oauth2/token')) {
    return Response.json({ access_token: 'token', token_type: 'Bearer', expires_in: 3600, scope: 'cards.create' });
  }
  if (request.url.endsWith('/cards') && !reported) {
    reported = true;
    await settle(); // let the hook thread's messages arrive: every load before this call has been posted
    console.log(JSON.stringify(loaded));
    port1.close();
    return Response.json({ status: '00', message: 'ok', data: { card_id: 'card_1', card_status: 'ACTIVE' } }, { status: 201 });
  }
  return new Response('unexpected', { status: 500 });
};
console.log = ((log) => (...args) => (typeof args[0] === 'string' && args[0].startsWith('[') ? log(...args) : undefined))(console.log);
await import(pathToFileURL(process.argv[2]).href);
