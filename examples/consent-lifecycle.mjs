// A customer's consent from start to end: the customer consents, the app calls with the customer's
// token, the customer revokes the consent at the bank, the app's onConsentEnded fires once (however
// many calls were waiting), every later call rejects unsent, and a new consent starts it again.
//
//   npm install openbanking-ng
//   node node_modules/openbanking-ng/examples/consent-lifecycle.mjs
import { isConsentEndedError } from 'openbanking-ng';
import { sandboxApp } from './customer-consent.mjs';

const { sandbox, ob, consent } = await sandboxApp();
try {
  // In your app: a flag in your database, and a message asking the customer to link the bank again.
  const relink = [];
  const { tokens } = await consent(['accounts.list', 'customers.retrieve']); // the customer's tokens, from your store
  const session = ob.forCustomer(tokens, {
    onConsentEnded: (error) => {
      relink.push(error.scopes);
      console.log(`onConsentEnded: ask the customer to consent again for ${error.scopes?.join(' ') ?? 'the scopes your app needs'}`);
    },
  });
  const { accounts } = await session.accounts.list();
  console.log(`Consent ${session.consent.state}: ${accounts.length} accounts, scopes ${session.consent.scopes?.join(' ')}`);

  // The customer revokes the consent at the bank (in the sandbox: a control of its own).
  sandbox.revokeConsent(session.tokens.access_token);

  // Five calls at once: one refresh request is answered invalid_grant, and all five reject.
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => session.accounts.list()));
  const ended = results.filter((r) => r.status === 'rejected' && isConsentEndedError(r.reason)).length;
  console.log(`${ended} of 5 calls rejected with ConsentEndedError; onConsentEnded fired ${relink.length} time(s); consent ${session.consent.state}`);

  // Later calls reject at once and send nothing.
  const before = sandbox.requests.count();
  await session.customers.retrieve().catch((error) => console.log(`Later call: ${error.name} (${sandbox.requests.count() - before} requests sent)`));

  // The customer consents again: the new tokens start the session again.
  const again = await consent(['accounts.list', 'customers.retrieve']);
  session.setTokens(again.tokens);
  console.log(`After a new consent: ${session.consent.state}, ${(await session.accounts.list()).accounts.length} accounts`);
} finally {
  await sandbox.close();
}
