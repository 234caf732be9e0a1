// Two clients, one token store: the processes behind your load balancer share client-credentials
// tokens instead of each asking the identity host for its own. Clients in one process that share
// a store also share the request in flight, so any number of concurrent calls make one token request.
//
// The store below keeps tokens in a Map, standing in for Redis or your database; a store is any
// object with async get, set (with a time to live in seconds) and delete.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/shared-token-store.mjs
import { OpenBanking } from 'openbanking-ng';
import { startSandboxServer } from 'openbanking-ng/testing';

/** @typedef {import('openbanking-ng').TokenSet} TokenSet */

/** @returns {import('openbanking-ng').TokenStore & { writes: number }} */
function sharedStore() {
  /** @type {Map<string, { value: string; expiresAt: number }>} */
  const entries = new Map();
  return {
    writes: 0,
    async get(key) {
      const entry = entries.get(key);
      if (!entry || entry.expiresAt <= Date.now()) return undefined;
      return /** @type {TokenSet} */ (JSON.parse(entry.value)); // what comes back from Redis is text
    },
    async set(key, value, ttlSeconds) {
      this.writes++;
      entries.set(key, { value: JSON.stringify(value), expiresAt: Date.now() + ttlSeconds * 1000 });
    },
    async delete(key) {
      entries.delete(key);
    },
  };
}

const sandbox = await startSandboxServer();
try {
  const app = sandbox.registerClient();
  const tokenStore = sharedStore();
  const options = { clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, tokenStore };
  // Two clients, as two processes would have them: same application, same store.
  const first = new OpenBanking(options);
  const second = new OpenBanking(options);

  /** @param {string} holder */
  const card = (holder) => ({
    account_number: '0123456789',
    card_holder_name: holder,
    card_status: /** @type {const} */ ('ACTIVE'),
    card_default_pin: '1234',
    card_expiry: { month: '09', year: '2029' },
  });

  // Six concurrent calls across the two clients: one token request.
  const cards = await Promise.all(['Ada Obi', 'Chidi Okeke', 'Bola Ade', 'Emeka Eze', 'Funke Ojo', 'Ngozi Uche'].map((holder, i) => (i % 2 ? second : first).cards.create(card(holder))));
  console.log(`${cards.length} cards created by two clients`);
  // Later calls find the token in the store.
  await second.cards.create(card('Tunde Bakare'));

  const tokenRequests = sandbox.requests.count('/oauth2/token');
  console.log(`Token requests to the identity host: ${tokenRequests}; tokens written to the store: ${tokenStore.writes}`);
  if (tokenRequests !== 1) throw new Error(`expected one token request, saw ${tokenRequests}`);
} finally {
  await sandbox.close();
}
