import type { ConfirmationLines } from './movement.js';
import { formPage, outcomePage, pagePolicy } from './page-html.js';
import { listenOnLoopback, type PageListener } from './page-listener.js';

// The page where the person confirms a money or instrument tool (DESIGN "Agents", row
// "confirmation"), so that what they read and what they approve is witnessed by this server, not
// by the client: one-time links `…/confirm/<token>` (256 random bits), each bound to one input,
// one idempotency key and one scope, answering one decision within 5 minutes. Only a POST from the
// page's own origin carrying the page's token decides; with a passphrase, a wrong one decides
// nothing and five end the link.

/** How long a link may be answered, and its confirmation used. */
export const LINK_TTL_MS = 5 * 60_000;
/** Wrong passphrases that end a link. */
export const PASSPHRASE_TRIES = 5;
/** Links waiting for a decision at once, at most: an agent cannot flood the person or the operator. */
export const MAX_PENDING = 100;
/** Links are forgotten this long after they expired. */
const FORGET_AFTER_MS = 15 * 60_000;
const MAX_FORM_BYTES = 4096;
const TOKEN = /\/confirm\/([A-Za-z0-9_-]{43})$/;

/** Where a link stands: waiting, decided, or over without a decision. */
export type LinkStatus = 'pending' | 'confirmed' | 'declined' | 'expired' | 'ended' | 'used' | 'closed';

/** What a link is for: this input's digest, sent under this key, in this scope (customer and session). */
export interface LinkBinding {
  scope: string;
  input: string;
  key: string;
}

/** What a server asks a page to show. */
export interface LinkSpec extends LinkBinding {
  tool: string;
  lines: ConfirmationLines;
  /** The operator's passphrase, when the page asks for one. */
  secret: string | undefined;
  /** How the person reached the link: through their MCP client, or from the operator. */
  via: 'elicitation' | 'operator';
  now: () => number;
}

interface Link extends LinkSpec {
  id: string;
  token: string;
  url: string;
  expiresAt: number;
  status: LinkStatus;
  wrong: number;
  /** A decline or expiry the agent has been told of. */
  reported: boolean;
  settled: Promise<void>;
  settle: () => void;
}

/** A link as the server sees it. */
export type LinkView = Pick<Link, 'id' | 'url' | 'key' | 'status' | 'expiresAt' | 'tool'>;

/**
 * The confirmation page of `openbanking-ng/mcp`: serve it where the person's browser reaches it.
 * Made by {@link createConfirmationPage}; given to `createMcpServer` as `confirmPage`.
 * @group Agents
 */
export interface ConfirmationPage {
  /** The page's base URL as the browser reaches it (links are `<url>/confirm/<token>`); undefined until known. */
  readonly url: string | undefined;
  /** Answers a request for a link (`GET` shows it, `POST` decides); any other is a 404. */
  fetch(request: Request): Promise<Response>;
  /** Ends every open link (nothing they name is sent) and stops the page's own listener, if it opened one. */
  close(): Promise<void>;
}

/**
 * Options of {@link createConfirmationPage}.
 * @group Agents
 */
export interface ConfirmationPageOptions {
  /**
   * The base URL where your server routes the page's requests to `page.fetch` (behind a proxy, its
   * public URL), or a function that returns it once known. Without it, the page opens its own
   * listener on an ephemeral `127.0.0.1` port the first time a person is asked.
   */
  url?: string | URL | (() => string);
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
const sha256 = async (text: string) => new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** Equal byte strings, compared in time that does not depend on where they differ. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

const OUTCOMES: Record<Exclude<LinkStatus, 'pending'>, [number, string, string]> = {
  confirmed: [409, 'Already confirmed', 'This link was already answered: a link serves one decision.'],
  used: [409, 'Already confirmed', 'This link was already answered and used: a link serves one decision.'],
  declined: [409, 'Already declined', 'This link was already answered: you declined, and nothing was sent.'],
  expired: [410, 'This link has expired', 'A link works for 5 minutes. Nothing was sent; ask the agent to try again if you still want it.'],
  ended: [410, 'This link was ended', 'Five wrong passphrases ended it. Nothing was sent.'],
  closed: [410, 'This link was ended', 'The server stopped before a decision. Nothing was sent.'],
};

/** The page's links and its HTTP answers; see {@link ConfirmationPage}. */
export class ConfirmationPages implements ConfirmationPage {
  readonly #byToken = new Map<string, Link>();
  readonly #byId = new Map<string, Link>();
  readonly #given: ConfirmationPageOptions['url'];
  #listener: Promise<PageListener> | undefined;
  #closed = false;

  constructor(options: ConfirmationPageOptions = {}) {
    this.#given = options.url;
  }

  get url(): string | undefined {
    const given = typeof this.#given === 'function' ? this.#given() : this.#given;
    return given === undefined ? undefined : String(given).replace(/\/+$/, '');
  }

  async #base(): Promise<string> {
    const url = this.url;
    if (url !== undefined) return url;
    this.#listener ??= listenOnLoopback((request) => this.fetch(request));
    return (await this.#listener).url;
  }

  /** Makes a link for `spec`, answered on the page within 5 minutes, once; undefined while {@link MAX_PENDING} wait already. */
  async open(spec: LinkSpec): Promise<LinkView | undefined> {
    if (this.#closed) throw new Error('the confirmation page is closed');
    this.#sweep(spec.now());
    if ([...this.#byId.values()].filter((l) => this.#status(l) === 'pending').length >= MAX_PENDING) return undefined;
    const token = base64url(crypto.getRandomValues(new Uint8Array(32)));
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const link: Link = { ...spec, id: crypto.randomUUID(), token, url: `${await this.#base()}/confirm/${token}`, expiresAt: spec.now() + LINK_TTL_MS, status: 'pending', wrong: 0, reported: false, settled, settle };
    this.#byToken.set(hex(await sha256(token)), link);
    this.#byId.set(link.id, link);
    return this.#view(link);
  }

  #view(link: Link): LinkView {
    return { id: link.id, url: link.url, key: link.key, status: this.#status(link), expiresAt: link.expiresAt, tool: link.tool };
  }

  /** The status, a pending link past its time expired on the way. */
  #status(link: Link): LinkStatus {
    if (link.status === 'pending' && link.now() >= link.expiresAt) this.#finish(link, 'expired');
    if (link.status === 'confirmed' && link.now() >= link.expiresAt) this.#finish(link, 'expired');
    return link.status;
  }

  #finish(link: Link, status: LinkStatus): void {
    link.status = status;
    link.settle();
  }

  #sweep(now: number): void {
    for (const [hash, link] of this.#byToken) {
      if (this.#status(link) !== 'pending' && now - link.expiresAt > FORGET_AFTER_MS) {
        this.#byToken.delete(hash);
        this.#byId.delete(link.id);
      }
    }
  }

  /**
   * The newest link for this input in this scope (and this key, when given) the agent has not been
   * told the end of: pending, confirmed, or declined (reported once).
   */
  find(binding: Omit<LinkBinding, 'key'> & { key: string | undefined }): LinkView | undefined {
    const links = [...this.#byId.values()].reverse();
    const link = links.find((l) => l.scope === binding.scope && l.input === binding.input && (binding.key === undefined || l.key === binding.key) && ['pending', 'confirmed', 'declined'].includes(this.#status(l)) && !l.reported);
    if (link?.status === 'declined') link.reported = true;
    return link && this.#view(link);
  }

  /** Waits for the link's decision (or its end), calling `tick` about every second until then. */
  async wait(id: string, signal: AbortSignal, tick: (left: number) => Promise<void>): Promise<LinkStatus | 'unknown' | 'aborted'> {
    const link = this.#byId.get(id);
    if (!link) return 'unknown';
    while (this.#status(link) === 'pending') {
      if (signal.aborted) return 'aborted';
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stop = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 1000);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([link.settled, stop]);
      clearTimeout(timer);
      if (link.status === 'pending' && !signal.aborted) await tick(Math.max(0, link.expiresAt - link.now())).catch(() => undefined);
    }
    return link.status;
  }

  /** Uses a confirmed link: true once, while it is in time; it decides nothing more. */
  take(id: string): boolean {
    const link = this.#byId.get(id);
    if (!link || this.#status(link) !== 'confirmed') return false;
    link.status = 'used';
    return true;
  }

  /** Ends a link that is still waiting (the person refused to open it): nothing it names is sent. */
  end(id: string): void {
    const link = this.#byId.get(id);
    if (link && this.#status(link) === 'pending') this.#finish(link, 'declined');
    if (link) link.reported = true;
  }

  async fetch(request: Request): Promise<Response> {
    const token = TOKEN.exec(new URL(request.url).pathname)?.[1];
    if (request.method === 'POST') return this.#decide(request, token);
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, outcomePage('Not allowed', 'This page is read with GET and answered with its own form.'), { allow: 'GET, HEAD, POST' });
    const link = token === undefined ? undefined : await this.#link(token);
    if (!link) return answer(404, outcomePage('This link is not valid', 'It may have been mistyped, or the server restarted. Nothing was sent.'));
    const status = this.#status(link);
    if (status !== 'pending') return outcome(status, 200);
    return answer(200, this.#form(link));
  }

  async #link(token: string): Promise<Link | undefined> {
    return this.#byToken.get(hex(await sha256(token)));
  }

  #form(link: Link, notice?: string): string {
    return formPage({ token: link.token, lines: link.lines, expiresAt: link.expiresAt, passphrase: link.secret !== undefined, ...(notice ? { notice } : {}) });
  }

  /** A POST: from the page's own origin, with its token in the path and the form, decides once. */
  async #decide(request: Request, token: string | undefined): Promise<Response> {
    const link = token === undefined ? undefined : await this.#link(token);
    const origin = request.headers.get('origin');
    if (!link || origin === null || origin !== new URL(link.url).origin) {
      return answer(403, outcomePage('Refused', 'This page takes decisions only from its own form, at its own address. Nothing was decided.'));
    }
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '')) return answer(415, outcomePage('Refused', 'Send the page’s own form. Nothing was decided.'));
    const body = await request.text();
    if (body.length > MAX_FORM_BYTES) return answer(413, outcomePage('Refused', 'The form is too large. Nothing was decided.'));
    const form = new URLSearchParams(body);
    const carried = form.get('token');
    if (carried === null || !sameBytes(await sha256(carried), await sha256(link.token))) {
      return answer(400, outcomePage('Refused', 'The form did not carry this page’s token. Nothing was decided.'));
    }
    const status = this.#status(link);
    if (status !== 'pending') return outcome(status);
    const decision = form.get('decision');
    if (decision === 'decline') {
      this.#finish(link, 'declined');
      return answer(200, outcomePage('Declined', 'Nothing was sent. The agent is told you declined.'));
    }
    if (decision !== 'confirm') return answer(400, outcomePage('Refused', 'Choose Confirm or Decline. Nothing was decided.'));
    if (link.secret !== undefined && !sameBytes(await sha256(form.get('passphrase') ?? ''), await sha256(link.secret))) {
      link.wrong += 1;
      if (link.wrong >= PASSPHRASE_TRIES) {
        this.#finish(link, 'ended');
        return outcome('ended', 403);
      }
      const left = PASSPHRASE_TRIES - link.wrong;
      return answer(403, this.#form(link, `Wrong passphrase: nothing was decided. ${left} ${left === 1 ? 'try' : 'tries'} left before this link ends.`));
    }
    this.#finish(link, 'confirmed');
    const next = link.via === 'elicitation' ? 'It is sent now, exactly as shown, and the agent gets the answer.' : `It is sent when the agent calls ${link.tool} again with the same idempotency key, before this link expires.`;
    return answer(200, outcomePage('Confirmed', `${next} You can close this page.`));
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const link of this.#byId.values()) if (link.status === 'pending' || link.status === 'confirmed') this.#finish(link, 'closed');
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener) await (await listener).close();
  }
}

/** An HTML answer with the page's headers: no script, no framing, nothing cached, no referrer to another origin. */
async function answer(status: number, html: string, extra: Record<string, string> = {}): Promise<Response> {
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': await pagePolicy(),
      'x-frame-options': 'DENY',
      // Not no-referrer: Chromium then sends the page's own form with Origin: null.
      'referrer-policy': 'same-origin',
      'x-content-type-options': 'nosniff',
      ...extra,
    },
  });
}

function outcome(status: Exclude<LinkStatus, 'pending'>, code?: number): Promise<Response> {
  const [fallback, heading, text] = OUTCOMES[status];
  return answer(code ?? fallback, outcomePage(heading, text));
}

/**
 * A confirmation page to give `createMcpServer` (as `confirmPage`) when your own HTTP server
 * serves it: route `…/confirm/*` to `page.fetch`. Without one, the MCP server makes its own,
 * which listens on an ephemeral `127.0.0.1` port once a person is first asked.
 *
 * @example
 * ```ts
 * import { OpenBanking } from 'openbanking-ng';
 * import { createConfirmationPage, createMcpServerFactory } from 'openbanking-ng/mcp';
 * declare const ob: OpenBanking;
 * const confirmPage = createConfirmationPage({ url: 'https://agent.example.com' });
 * const factory = createMcpServerFactory(ob, { allow: ['transfers.create'], limits: { perCall: 50_000, perDay: 200_000 }, confirmPage });
 * // in your HTTP server: if (new URL(request.url).pathname.startsWith('/confirm/')) return confirmPage.fetch(request);
 * ```
 * @group Agents
 */
export function createConfirmationPage(options?: ConfirmationPageOptions): ConfirmationPage {
  return new ConfirmationPages(options);
}
