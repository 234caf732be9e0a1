// create-card.mjs: your first card. Register an application with the local sandbox, then create a card with a
// client-credentials token (the SDK gets it for you) and list the application's cards.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/create-card.mjs   # starts its own sandbox on a free port
//   OB_SANDBOX_URL=http://127.0.0.1:4010 node node_modules/openbanking-ng/examples/create-card.mjs
//                                                 # uses the one `npx openbanking-ng-sandbox --port 4010` serves
import { OpenBanking } from 'openbanking-ng';
import { startSandboxServer } from 'openbanking-ng/testing';

const sandbox = process.env.OB_SANDBOX_URL ? undefined : await startSandboxServer();
const sandboxUrl = sandbox?.url ?? process.env.OB_SANDBOX_URL ?? '';

try {
  // 1. Register an application. The sandbox approves it at once and answers with the credentials
  //    and the hosts to use (identity host and API base URL).
  const registration = await OpenBanking.register({
    authUrl: sandboxUrl,
    username: `first-card-${Date.now()}`, // a registration login is never reusable
    password: 'not-a-real-password',
    app_name: 'My First Fintech',
    redirect_url: 'http://127.0.0.1:3000/callback',
  });
  console.log(`Registered ${registration.client_id} (${registration.status})`);

  // 2. A client built from the registration: credentials, hosts, connection id.
  const ob = OpenBanking.fromRegistration(registration);

  // 3. Create a card. The body is validated before anything is sent; the SDK gets a
  //    client-credentials token with the cards.create scope and signs the request.
  const card = await ob.cards.create({
    account_number: '0123456789',
    card_holder_name: 'Ada Obi',
    card_status: 'ACTIVE',
    card_type: 'VIRTUAL',
    card_default_pin: '1234',
    card_expiry: { month: '09', year: '2029' },
  });
  console.log(`Created card ${card.card_id}: ${card.card_status} ${card.card_scheme} ${card.card_type}, ending ${card.card_number?.slice(-4)}`);

  // 4. List the application's cards (another token, scope cards.list).
  const { cards } = await ob.cards.list();
  console.log(`The application has ${cards.length} card(s)`);
} finally {
  await sandbox?.close();
}
