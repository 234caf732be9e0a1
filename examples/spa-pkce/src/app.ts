// The browser side of the authorization-code flow with PKCE. It never sees the client secret:
// it builds the authorize URL, keeps the state and the code verifier in sessionStorage while the
// customer is at the identity host, and on the way back hands the code and the verifier to the
// backend (examples/auth-code-backend), which exchanges them and calls the API for the customer.
//
// Bundled for the browser by examples/spa-pkce/build.mjs (esbuild).
import { createAuthorizationRequest, isOAuthError, parseAuthorizationCallback } from 'openbanking-ng/pkce';

/** What the backend tells the page (GET /config.json): nothing secret. */
interface Config {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  /** Sent back as `x-csrf-token` on the exchange: a page on another site cannot read it. */
  csrfToken: string;
}

/** What the backend answers after the exchange (POST /api/exchange). */
interface Connection {
  scope: string;
  expiresAt: number;
  cards: { cardId: string; holder: string; status: string; last4: string }[];
}

/** Where the state and verifier wait while the customer is away. */
const PENDING_KEY = 'my-fintech:pending-consent';

const element = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from the page`);
  return found as T;
};

function showStatus(text: string, isError = false): void {
  const status = element('status');
  status.textContent = text;
  status.classList.toggle('error', isError);
}

async function startConsent(config: Config): Promise<void> {
  const request = await createAuthorizationRequest({
    authUrl: config.authUrl,
    clientId: config.clientId,
    redirectUri: config.redirectUri,
    scope: config.scope,
  });
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state: request.state, codeVerifier: request.codeVerifier }));
  location.assign(request.url);
}

async function finishConsent(config: Config): Promise<void> {
  const saved = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const callbackUrl = location.href;
  history.replaceState(null, '', '/'); // the code is single-use: keep it out of the address bar and history
  if (!saved) {
    showStatus('No consent was in progress in this tab: press Connect bank to start.', true);
    return;
  }
  const { state, codeVerifier } = JSON.parse(saved) as { state: string; codeVerifier: string };

  let code: string;
  try {
    ({ code } = parseAuthorizationCallback(callbackUrl, { expectedState: state }));
  } catch (error) {
    if (isOAuthError(error) && error.error === 'access_denied') showStatus('You declined: nothing was shared with My Fintech.', true);
    else if (isOAuthError(error)) showStatus(`The bank refused: ${error.error}${error.errorDescription ? ` (${error.errorDescription})` : ''}`, true);
    else throw error;
    return;
  }

  showStatus('Finishing the connection…');
  const response = await fetch('/api/exchange', {
    method: 'POST',
    // The backend refuses an exchange without this token, this origin and a JSON body: another
    // site cannot make this browser hand it someone else's code (login CSRF).
    headers: { 'content-type': 'application/json', 'x-csrf-token': config.csrfToken },
    body: JSON.stringify({ code, codeVerifier }),
  });
  const body: unknown = await response.json();
  if (!response.ok) {
    const { error, description } = body as { error: string; description?: string };
    showStatus(`The connection failed: ${error}${description ? ` (${description})` : ''}`, true);
    return;
  }
  showConnection(body as Connection);
}

function showConnection(connection: Connection): void {
  showStatus('Your bank is connected.');
  element('summary').textContent =
    `Access granted for ${connection.scope}, until ${new Date(connection.expiresAt * 1000).toLocaleTimeString()}. ` +
    `${connection.cards.length} card(s) on file:`;
  element('cards').replaceChildren(
    ...connection.cards.map((card) => {
      const row = document.createElement('tr');
      for (const text of [card.cardId, card.holder, card.status, `•••• ${card.last4}`]) {
        const cell = document.createElement('td');
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }),
  );
  element('result').hidden = false;
}

async function main(): Promise<void> {
  const config = (await (await fetch('/config.json')).json()) as Config;
  if (location.pathname === new URL(config.redirectUri).pathname) await finishConsent(config);
  const button = element<HTMLButtonElement>('connect');
  button.addEventListener('click', () => {
    button.disabled = true;
    startConsent(config).catch((error: unknown) => {
      button.disabled = false;
      showStatus(`Could not start: ${error instanceof Error ? error.message : String(error)}`, true);
    });
  });
  button.disabled = false;
}

main().catch((error: unknown) => showStatus(`Something went wrong: ${error instanceof Error ? error.message : String(error)}`, true));
