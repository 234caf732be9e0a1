import type { ConfirmationLines } from './movement.js';

// The confirmation page's HTML (DESIGN "Agents", row "confirmation"): plain text of the movement,
// Confirm and Decline in one form that posts back to the page, no script at all, one inline style
// allowed by its hash. Readable on a phone: one column, large buttons, system fonts.

const STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #16181d; font: 17px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 34rem; margin: 0 auto; padding: 1.25rem 1rem 2rem; }
.who { margin: 0 0 .25rem; color: #5b6270; font-size: .85rem; }
h1 { margin: 0 0 1rem; font-size: 1.3rem; line-height: 1.3; }
.amount { margin: 0 0 1rem; font-size: 2rem; font-weight: 700; letter-spacing: -.01em; }
dl { margin: 0 0 1rem; background: #fff; border: 1px solid #d9dce2; border-radius: .75rem; padding: .25rem 1rem; }
dl div { padding: .6rem 0; border-bottom: 1px solid #eceef1; }
dl div:last-child { border-bottom: 0; }
dl div.detail { padding-left: .75rem; }
dt { color: #5b6270; font-size: .85rem; }
dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.notice { margin: 0 0 1rem; padding: .75rem 1rem; border-radius: .75rem; background: #fff4d6; border: 1px solid #e8c55c; }
.outcome { margin: 0 0 1rem; padding: 1rem; border-radius: .75rem; background: #fff; border: 1px solid #d9dce2; }
label { display: block; margin: 0 0 .35rem; font-weight: 600; }
input[type=password] { width: 100%; min-height: 3rem; margin: 0 0 1rem; padding: .5rem .75rem; font: inherit; border: 1px solid #9aa1ad; border-radius: .5rem; }
.buttons { display: flex; flex-wrap: wrap; gap: .75rem; }
button { flex: 1 1 10rem; min-height: 3.25rem; font: inherit; font-weight: 700; border-radius: .75rem; border: 2px solid #1d6b3a; cursor: pointer; }
button.confirm { background: #1d6b3a; color: #fff; }
button.decline { background: #fff; color: #16181d; border-color: #9aa1ad; }
.small { color: #5b6270; font-size: .85rem; }
`;

let styleHash: Promise<string> | undefined;

/** The `Content-Security-Policy` of every page answer: no script, no framing, forms only to the page itself. */
export async function pagePolicy(): Promise<string> {
  styleHash ??= crypto.subtle.digest('SHA-256', new TextEncoder().encode(STYLE)).then((d) => btoa(String.fromCharCode(...new Uint8Array(d))));
  return `default-src 'none'; style-src 'sha256-${await styleHash}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

/** Text as HTML: every character that could start markup escaped. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `09:05`: a time of day in Lagos (WAT, UTC+1). */
export const lagosTime = (ms: number): string => new Date(ms + 3_600_000).toISOString().slice(11, 16);

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="who">openbanking-ng: confirmation for an AI agent</p>
${body}
</main>
</body>
</html>
`;
}

/** What the page shows of one request, and how it may be answered. */
export interface PageForm {
  token: string;
  lines: ConfirmationLines;
  expiresAt: number;
  /** The page asks for the operator's passphrase before Confirm. */
  passphrase: boolean;
  /** A line above the form: a wrong passphrase, say. */
  notice?: string;
}

/** The movement as plain text, with Confirm and Decline. */
export function formPage(form: PageForm): string {
  const { title, rows } = form.lines;
  const amount = rows.find((r) => r.label === 'Amount' || r.label === 'Amount per debit');
  const list = rows.map((r) => `<div${r.detail ? ' class="detail"' : ''}><dt>${escapeHtml(r.label)}</dt><dd>${escapeHtml(r.value)}</dd></div>`).join('\n');
  const secret = form.passphrase
    ? '<label for="passphrase">Passphrase</label>\n<input type="password" id="passphrase" name="passphrase" autocomplete="off" required>\n<p class="small">The passphrase your server\'s operator set. Declining needs none.</p>\n'
    : '';
  return document(
    title,
    `<h1>${escapeHtml(title)}</h1>
${amount ? `<p class="amount">${escapeHtml(amount.value.replace(/ \(.*\)$/, ''))}</p>\n` : ''}<dl>
${list}
</dl>
${form.notice ? `<p class="notice" role="alert">${escapeHtml(form.notice)}</p>\n` : ''}<form method="post">
<input type="hidden" name="token" value="${escapeHtml(form.token)}">
${secret}<div class="buttons">
<button type="submit" class="confirm" name="decision" value="confirm">Confirm</button>
<button type="submit" class="decline" name="decision" value="decline" formnovalidate>Decline</button>
</div>
</form>
<p class="small">Check every line: Confirm sends exactly this, once. This link serves one decision, until ${lagosTime(form.expiresAt)} (Lagos time).</p>`,
  );
}

/** A page that only says what happened (or why nothing did). */
export function outcomePage(heading: string, text: string): string {
  return document(heading, `<h1>${escapeHtml(heading)}</h1>\n<p class="outcome">${escapeHtml(text)}</p>`);
}
