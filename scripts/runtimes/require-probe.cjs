// The matrix's CommonJS check on Node: `require` of every entry, and one call through the CJS build,
// which loads the ESM-only ky, uuid and oauth4webapi with require(esm) (Node 20.19 and later).
// Prints `RESULT <json>`, like run-probe.mjs.   node require-probe.cjs <sandboxUrl>
const { OpenBanking } = require('openbanking-ng');

const [sandboxUrl] = process.argv.slice(2);

(async () => {
  for (const entry of ['pkce', 'testing', 'node', 'redis', 'schemas', 'otel']) require(`openbanking-ng/${entry}`);
  const registration = await OpenBanking.register({ authUrl: sandboxUrl, username: 'runtime-require', password: 'not-a-secret', app_name: 'Runtime require', redirect_url: 'http://127.0.0.1:3000/callback' });
  const ob = OpenBanking.fromRegistration(registration, { logLevel: 'off' });
  const { card_id: cardId } = await ob.cards.create({ account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } });
  if (!cardId) throw new Error('no card_id');
  console.log(`RESULT ${JSON.stringify({ checks: [{ name: 'require', ok: true, detail: `every entry required; a card created through the CJS build (${process.version})` }] })}`);
})().catch((error) => {
  console.log(`RESULT ${JSON.stringify({ error: `require: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}` })}`);
  process.exitCode = 1;
});
