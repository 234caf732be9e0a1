import { spawn } from 'node:child_process';
import type { ConfirmationLink } from '../mcp.js';

// The command's side of the confirmation page: a link for a client that cannot ask the person goes
// to the operator only (stderr, and the default browser with --open), never into anything the
// model reads; --public-url names where the page is reached behind a proxy.

/** `--public-url`: an absolute http(s) URL without query or fragment, its trailing `/` dropped. */
export function publicUrlOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return undefined;
  return url.href.replace(/\/+$/, '');
}

/** The program that opens a URL in the default browser on this system. */
function opener(url: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/** Where the command sends a link for the person: a line on stderr, and the browser with `--open`. */
export function operatorLinks(err: (line: string) => void, open: boolean): (link: ConfirmationLink) => void {
  return (link) => {
    const until = new Date(link.expiresAt.getTime() + 3_600_000).toISOString().slice(11, 16);
    err(`openbanking-ng-mcp: ${link.tool} waits for the person to confirm outside the chat. Open this link (one decision, until ${until} Lagos time): ${link.url}`);
    if (!open) return;
    const [command, args] = opener(link.url);
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', (error) => err(`openbanking-ng-mcp: --open could not start ${command} (${error.message}); open the link above yourself.`));
    child.unref();
  };
}
