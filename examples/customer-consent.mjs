// Shared by the namespace examples: a sandbox, an application registered with it, and a customer's
// consent run the way a real app runs it (authorize URL → the customer approves → code exchange).
import { OpenBanking, OPERATION_SCOPES } from 'openbanking-ng';
import { createAuthorizationRequest, parseAuthorizationCallback } from 'openbanking-ng/pkce';
import { startSandboxServer } from 'openbanking-ng/testing';

const REDIRECT = 'http://127.0.0.1:3000/callback';

/**
 * Starts a sandbox, registers an app and builds its client; `consent(operations)` has the sandbox's
 * customer approve the scopes of those operations and returns a customer session.
 */
export async function sandboxApp() {
  const sandbox = await startSandboxServer();
  const app = sandbox.registerClient({ redirectUris: [REDIRECT] });
  const ob = new OpenBanking({ clientId: app.clientId, clientSecret: app.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl });
  /** @param {import('openbanking-ng').OperationName[]} operations */
  async function consent(operations) {
    const scope = [...new Set(operations.flatMap((name) => OPERATION_SCOPES[name]))];
    const request = await createAuthorizationRequest({ authUrl: sandbox.authUrl, clientId: app.clientId, redirectUri: REDIRECT, scope });
    const back = await sandbox.consent(request.url); // the customer presses Approve
    const { code } = parseAuthorizationCallback(back, { expectedState: request.state });
    const tokens = await ob.auth.exchangeCode({ code, codeVerifier: request.codeVerifier, redirectUri: REDIRECT });
    return ob.forCustomer(tokens);
  }
  return { sandbox, ob, consent };
}
