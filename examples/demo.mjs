// The `npm start` demo: a local sandbox, an application registered, a client built from the
// registration, a card created, then a customer's consent, their accounts and a transfer waited on
// until it settles. No credentials, no network beyond 127.0.0.1.
// Secrets stay masked: the client secret, the PIN, the CVV2, the card number and the tokens.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/demo.mjs   # in a clone of the repository: npm start
import { OpenBanking } from 'openbanking-ng';
import { createAuthorizationRequest, parseAuthorizationCallback } from 'openbanking-ng/pkce';
import { startSandboxServer } from 'openbanking-ng/testing';

const started = performance.now();
/** @param {string | null | undefined} value */
const masked = (value) => (typeof value === 'string' ? `${'•'.repeat(Math.min(value.length, 8))} (${value.length} characters, hidden)` : '(none)');
/** @param {string} [text] */
const line = (text = '') => console.log(text);

const sandbox = await startSandboxServer();
try {
  line('openbanking-ng demo: the local sandbox, start to finish');
  line();
  line(`1. Sandbox listening on ${sandbox.url}`);
  line(`   identity host ${sandbox.authUrl}   API ${sandbox.baseUrl}`);

  const appName = 'Demo Fintech';
  const registration = await OpenBanking.register({
    authUrl: sandbox.authUrl,
    username: 'demo-fintech',
    password: 'demo-password-not-secret',
    app_name: appName,
    app_description: 'Shows openbanking-ng end to end',
    app_developer_name: 'Ada Obi',
    app_developer_contact_email: 'ada@demo-fintech.example',
    redirect_url: 'http://127.0.0.1:3000/callback',
  });
  line(`2. Registered "${appName}" with OpenBanking.register: ${registration.status}`);
  line(`   client_id     ${registration.client_id}`);
  line(`   client_secret ${masked(registration.client_secret)}`);
  line(`   connection_id ${registration.connection_id}`);

  const ob = OpenBanking.fromRegistration(registration, { logLevel: 'off' });
  line(`3. Client built with OpenBanking.fromRegistration (API ${ob.baseUrl})`);

  const { data: card, idempotencyKey, response } = await ob.cards
    .create({
      account_number: '0123456789',
      card_holder_name: 'Ada Obi',
      card_status: 'ACTIVE',
      card_type: 'VIRTUAL',
      card_default_pin: '1234',
      card_expiry: { month: '09', year: '2029' },
    })
    .withResponse();
  line(`4. Card created: HTTP ${response.status}, idempotency-key ${idempotencyKey}`);
  line(`   card_id     ${card.card_id}`);
  line(`   status      ${card.card_status}, ${card.card_scheme} ${card.card_type} ${card.card_mode}, ${card.card_currency}`);
  line(`   holder      ${card.card_holder_name}, account ${card.account_number}, expires ${card.card_expiry?.month}/${card.card_expiry?.year}`);
  line(`   card number ${masked(card.card_number)}`);
  line(`   CVV2        ${masked(card.card_cvv2)}`);
  line(`   PIN         ${masked(card.card_default_pin)}`);

  const { cards } = await ob.cards.list();
  line(`5. GET /cards lists ${cards.length} card for this application`);

  // A customer's consent, as a backend runs it: the authorize URL, the customer approving on the
  // sandbox's consent page, the code exchanged for the customer's tokens.
  const redirectUri = 'http://127.0.0.1:3000/callback';
  const authorization = await createAuthorizationRequest({
    authUrl: sandbox.authUrl,
    clientId: registration.client_id ?? '',
    redirectUri,
    scope: ['accounts.list.readonly', 'transfers.transactions.create', 'transfers.transactions.query'],
  });
  const callback = await sandbox.consent(authorization.url);
  const { code } = parseAuthorizationCallback(callback, { expectedState: authorization.state });
  const tokens = await ob.auth.exchangeCode({ code, codeVerifier: authorization.codeVerifier, redirectUri });
  const customer = ob.forCustomer(tokens);
  line(`6. The customer approved on the consent page; scopes: ${tokens.scope}`);
  line(`   access token  ${masked(tokens.access_token)}   refresh token ${masked(tokens.refresh_token)}`);

  const { accounts } = await customer.accounts.list();
  line(`7. GET /accounts with the customer's token: ${accounts.map((a) => `${a.account_number} (${a.account_type})`).join(', ')}`);

  const transfer = await customer.transfers.create({
    amount: 5000,
    source_account_number: accounts[0]?.account_number ?? '',
    destination_bank_code: '000007',
    destination_account_number: '0987654321',
    narration: 'Rent',
  });
  const batch = transfer.batch_reference ?? '';
  line(`8. Transfer of NGN 5,000 sent: batch ${batch}`);
  // Money moves asynchronously: waitForCompletion polls the status (1 s, then 2 s, 4 s, ... apart)
  // until it is final. The sandbox's transfers read PENDING once, then SUCCESSFUL.
  const final = await customer.transfers.waitForCompletion(batch, { timeout: 30_000 });
  const reads = sandbox.requests.list({ path: `/openapi/v1/transactions/${batch}` }).length;
  line(`   settled with waitForCompletion: ${final.status} (${final.status_message}) after ${reads} status reads`);
  line();
  line('What went over the wire:');
  for (const r of sandbox.requests.list()) line(`   ${r.method.padEnd(4)} ${r.path.padEnd(44)} → ${r.status}`);
  line();
  line(`Done in ${Math.round(performance.now() - started)} ms. Next: npx openbanking-ng-sandbox --port 4010, and docs/testing.md.`);
} catch (error) {
  console.error(`The demo failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  process.exitCode = 1;
} finally {
  await sandbox.close();
}
