// A customer's accounts: the customer consents (the sandbox plays the customer on its consent page),
// your backend exchanges the code, then acts for the customer through a session: who they are,
// their accounts, a balance, every transaction of January across pages, a hold placed and released.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/accounts.mjs   # starts its own sandbox on a free port
import { OPERATION_SCOPES, OpenBanking } from 'openbanking-ng';
import { createAuthorizationRequest, parseAuthorizationCallback } from 'openbanking-ng/pkce';
import { startSandboxServer } from 'openbanking-ng/testing';

const sandbox = await startSandboxServer();
const redirectUri = 'http://127.0.0.1:3000/callback';

try {
  const registration = await OpenBanking.register({
    authUrl: sandbox.url,
    username: `accounts-${Date.now()}`,
    password: 'not-a-real-password',
    app_name: 'Accounts example',
    redirect_url: redirectUri,
  });
  const ob = OpenBanking.fromRegistration(registration);

  // 1. The consent request asks for the scopes of the operations this app calls.
  const scope = [
    ...OPERATION_SCOPES['customers.retrieve'],
    ...OPERATION_SCOPES['accounts.list'],
    ...OPERATION_SCOPES['accounts.balances.retrieve'],
    ...OPERATION_SCOPES['accounts.transactions.list'],
    ...OPERATION_SCOPES['accounts.holds.create'],
    ...OPERATION_SCOPES['accounts.holds.update'],
  ];
  const request = await createAuthorizationRequest({ authUrl: ob.authUrl, clientId: ob.clientId, redirectUri, scope });
  const callback = await sandbox.consent(request.url); // the customer presses Approve
  const { code } = parseAuthorizationCallback(callback, { expectedState: request.state });
  const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri });

  // 2. A session carries every namespace with the customer's token.
  const customer = ob.forCustomer(tokens, { onTokens: () => console.log('(tokens refreshed: save them)') });
  const me = await customer.customers.retrieve();
  console.log(`Customer ${me.customer_id}: ${me.first_name} ${me.surname}`);

  const { accounts } = await customer.accounts.list();
  for (const account of accounts) console.log(`  ${account.account_number} ${account.account_type} (${account.status})`);

  const number = accounts[0]?.account_number ?? '0123456789'; // every response member is optional
  const balances = await customer.accounts.balances.retrieve(number);
  console.log(`Balance of ${number}: ${balances.available_balance} ${balances.currency} available`);

  // 3. Every transaction of January: the SDK asks for page after page as the loop goes on.
  let count = 0;
  let credits = 0;
  for await (const tx of customer.accounts.transactions.list(number, { from: '2024-01-01', to: '2024-01-31' })) {
    count += 1;
    if (tx.debit_credit === 'CREDIT') credits += tx.amount ?? 0;
  }
  console.log(`January: ${count} transactions, ${credits} NGN in`);

  // 4. A hold, placed with your own idempotency key (safe to repeat), then released.
  const placed = await customer.accounts.holds.create(
    number,
    { reference: 'HLD-EXAMPLE-1', amount: 2500, narration: 'Escrow', hold_start_timestamp: '2024-03-20', hold_end_timestamp: '2024-04-20', status: 'ACTIVE' },
    { idempotencyKey: 'hold-example-0001' },
  );
  const reference = placed.reference ?? 'HLD-EXAMPLE-1';
  await customer.accounts.holds.update(number, reference, { status: 'INACTIVE' });
  console.log(`Hold ${reference} placed and released`);

  // 5. Customer operations need the customer's token: on the client they are refused, unsent.
  const refused = await ob.accounts.list().catch((error) => error);
  console.log(`ob.accounts.list() without a session: ${refused.name} (${refused.issues[0].code})`);
} finally {
  await sandbox.close();
}
