/** The pages a person sees in the sandbox: the consent page, the device page, error pages. */

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** What each consent scope lets the app do, in the spec's words where it gives them. */
const SCOPE_TEXT: Record<string, string> = {
  accounts: 'read account information and balances',
  payments: 'initiate payments and transfers',
  transactions: 'read transaction history',
  standing_orders: 'manage standing orders',
  openid: 'confirm who you are',
};

function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · openbanking-ng sandbox</title>
<style>
body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
.banner{font-size:.8rem;color:#555;border-bottom:1px solid #ddd;padding-bottom:.5rem}
button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem;cursor:pointer}
#approve{background:#0a7d38;color:#fff;border:0}
#deny{background:#fff;border:1px solid #999}
.error{color:#a40000}
code{background:#f3f3f3;padding:0 .2rem}
</style>
</head>
<body>
<p class="banner">openbanking-ng local sandbox: no real bank, no real customer.</p>
${body}
</body>
</html>
`;
}

function scopeItems(scopes: readonly string[]): string {
  return scopes
    .map((s) => `<li><code>${escapeHtml(s)}</code>${SCOPE_TEXT[s] ? `: ${escapeHtml(SCOPE_TEXT[s])}` : ''}</li>`)
    .join('\n');
}

/**
 * The consent page of `GET /oauth/authorize`: names the app and the scopes; Approve and Deny are
 * the two buttons of one form that posts back to the authorization endpoint.
 */
export function consentPage(input: { appName: string; scopes: readonly string[]; action: string; consentId: string; redirectTo: string }): string {
  return layout(
    `Authorize ${input.appName}`,
    `<main>
<h1><span id="app-name">${escapeHtml(input.appName)}</span> wants access to your bank</h1>
<p>It asks for:</p>
<ul id="scopes">
${scopeItems(input.scopes)}
</ul>
<p>Approving sends you back to <code>${escapeHtml(input.redirectTo)}</code>.</p>
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="consent_id" value="${escapeHtml(input.consentId)}">
<button type="submit" id="approve" name="decision" value="approve">Approve</button>
<button type="submit" id="deny" name="decision" value="deny">Deny</button>
</form>
</main>`,
  );
}

/** The device verification page: a form for the user code, or the request with Approve / Deny. */
export function devicePage(input: { action: string; userCode?: string; appName?: string; scopes?: readonly string[]; message?: string; error?: string }): string {
  const error = input.error ? `<p class="error" id="error">${escapeHtml(input.error)}</p>\n` : '';
  if (input.appName === undefined || input.userCode === undefined) {
    return layout(
      'Enter your code',
      `<main>
<h1>Connect a device</h1>
${error}<form method="get" action="${escapeHtml(input.action)}">
<label>Code shown on your device <input name="user_code" autocomplete="off" autofocus></label>
<button type="submit">Continue</button>
</form>
</main>`,
    );
  }
  return layout(
    `Authorize ${input.appName}`,
    `<main>
<h1><span id="app-name">${escapeHtml(input.appName)}</span> wants access to your bank</h1>
${input.message ? `<p id="consent-message">${escapeHtml(input.message)}</p>\n` : ''}<p>Code <code>${escapeHtml(input.userCode)}</code>. It asks for:</p>
<ul id="scopes">
${scopeItems(input.scopes ?? [])}
</ul>
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="user_code" value="${escapeHtml(input.userCode)}">
<button type="submit" id="approve" name="decision" value="approve">Approve</button>
<button type="submit" id="deny" name="decision" value="deny">Deny</button>
</form>
</main>`,
  );
}

/** A page that only says something: a finished device consent, for instance. */
export function messagePage(title: string, message: string): string {
  return layout(title, `<main>\n<h1>${escapeHtml(title)}</h1>\n<p id="message">${escapeHtml(message)}</p>\n</main>`);
}

/**
 * An error page for an authorization request the sandbox must not redirect (unknown client,
 * unregistered redirect URI): the OAuth error code and what is wrong.
 */
export function errorPage(error: string, description: string): string {
  return layout(
    'Authorization request refused',
    `<main>
<h1>Authorization request refused</h1>
<p class="error" id="error" data-error="${escapeHtml(error)}"><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p>
<p>The request was not sent back to the application because the sandbox cannot trust where it would go.</p>
</main>`,
  );
}

/** The HTML page an upstream gateway shows for a 5xx: what the `html` fault answers. */
export function gatewayPage(status: number): string {
  const text: Record<number, string> = { 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable', 504: 'Gateway Time-out' };
  const title = `${status} ${text[status] ?? 'Error'}`;
  return `<html>\n<head><title>${title}</title></head>\n<body>\n<center><h1>${title}</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n`;
}
