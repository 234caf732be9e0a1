import { type InputRequiredResult, inputRequired, type McpServer, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { type Answer, askPerson, type Confirmation, declaredElicitation, verdict } from './confirm.js';
import type { Ledger } from './ledger.js';
import type { ConfirmationLines } from './movement.js';
import { type ConfirmationPages, type LinkStatus, type LinkView, MAX_PENDING } from './page.js';
import { ToolRefusal } from './results.js';

// Which channel asks the person, per client (DESIGN "Agents", row "confirmation"): the page through
// URL elicitation where the client declares it (the tool answers once the person decided); the
// form where it declares only that, unless the operator requires the page; else the page's link
// goes to the operator only, and the model is told to have the person approve outside the chat and
// to call again with the same idempotency key. A page decision is used once, in time, for its input
// and key, and its use is spent in the ledger too.

/**
 * A confirmation link handed to the operator, for a client that cannot ask the person itself.
 * @group Agents
 */
export interface ConfirmationLink {
  /** The page's one-time address: give it to the person only (it is never shown to the model). */
  url: string;
  /** The tool that waits for the decision, `transfers_create`. */
  tool: string;
  /** When the link stops taking a decision. */
  expiresAt: Date;
}

/** The page side of a server state: its page, the operator's passphrase, where operator links go. */
export interface PageConfirm {
  page: ConfirmationPages;
  secret: string | undefined;
  onLink: (link: ConfirmationLink) => void;
  now: () => number;
}

/** One call that needs the person's confirmation. */
export interface Asking {
  server: McpServer;
  ctx: ServerContext;
  codec: RequestStateCodec<Confirmation>;
  ledger: Ledger;
  mode: 'elicit' | 'page';
  pages: PageConfirm;
  tool: string;
  /** The answer this round carried, verified and spent. */
  answer: Answer | undefined;
  /** The digest of the input shown. */
  input: string;
  /** The idempotency key the agent gave, if any. */
  key: string | undefined;
  /** The ledger's scope of the customer. */
  scope: string;
  lines: ConfirmationLines;
  text: string;
}

const refuse = (message: string) => new ToolRefusal('NotConfirmed', message);
const DECLINED = 'The person declined on the confirmation page: nothing was sent.';

/** What the page's end means for the agent, when it is not a confirmation. */
function ended(status: Exclude<LinkStatus, 'confirmed'> | 'unknown' | 'aborted', tool: string, key: string): string {
  switch (status) {
    case 'declined':
      return DECLINED;
    case 'expired':
      return 'The confirmation page expired before the person decided (a link works for 5 minutes): nothing was sent. Call the tool again to ask anew.';
    case 'ended':
      return "Five wrong passphrases ended the confirmation page's link: nothing was sent.";
    case 'closed':
      return 'The server stopped before the person decided: nothing was sent.';
    case 'aborted':
      return `The call was cancelled while the person had the confirmation page: nothing was sent. If they confirm it within 5 minutes, call ${tool} again with the same arguments and idempotency_key "${key}".`;
    case 'unknown':
      return 'This server process holds no such confirmation page (another process made it, or this one restarted): nothing was sent. Call the tool again to ask anew.';
    default:
      return 'This confirmation was already used: a confirmation serves one send. Nothing more was sent.';
  }
}

/** Uses a confirmed page link: once, in time, and spent in the ledger so no process of a fleet uses it again. */
async function take(a: Asking, link: Pick<LinkView, 'id' | 'key'>): Promise<Confirmation> {
  if (!a.pages.page.take(link.id) || !(await a.ledger.spendConfirmation(`page:${link.id}`))) throw refuse(ended('used', a.tool, link.key));
  return { input: a.input, key: link.key, nonce: link.id };
}

/** Progress notifications while the person has the page, every 5 s, when the call carries a progress token. */
function progress(ctx: ServerContext): (left: number) => Promise<void> {
  const token = ctx.mcpReq._meta?.progressToken;
  let seconds = 0;
  return async (left) => {
    seconds += 1;
    if (token === undefined || seconds % 5 !== 0) return;
    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: seconds, message: `Waiting for the person to confirm or decline on the page (${Math.ceil(left / 1000)} s left).` } });
  };
}

/** A new link for this call; refused while too many wait for the person already. */
async function open(a: Asking, scope: string, via: 'elicitation' | 'operator'): Promise<LinkView> {
  const link = await a.pages.page.open({ scope, input: a.input, key: a.key ?? crypto.randomUUID(), tool: a.tool, lines: a.lines, secret: a.pages.secret, via, now: a.pages.now });
  if (!link) throw refuse(`${MAX_PENDING} confirmations already wait for the person: nothing was sent. Call again once they have decided or their links have expired (5 minutes).`);
  return link;
}

/** The URL elicitation: the page's link, and a state naming it. */
async function askOnPage(a: Asking, scope: string): Promise<InputRequiredResult> {
  const link = await open(a, scope, 'elicitation');
  const amount = a.lines.rows.find((r) => r.label.startsWith('Amount'));
  const message = `${a.lines.title}${amount ? ` ${amount.label}: ${amount.value}.` : ''} Open this page of the server to read exactly what would be sent, and confirm or decline it there. The link serves one decision, for 5 minutes.`;
  return inputRequired({
    inputRequests: { confirm: inputRequired.elicitUrl({ message, url: link.url }) },
    requestState: await a.codec.mint({ input: a.input, key: link.key, nonce: crypto.randomUUID(), link: link.id }, a.ctx),
  });
}

/** The person opened (or refused to open) the page: wait for their decision there. */
async function afterOpening(a: Asking, answer: Answer): Promise<Confirmation> {
  const id = answer.state.link!;
  if (answer.action !== 'accept') {
    a.pages.page.end(id);
    throw refuse(answer.action === 'decline' ? 'The person declined to open the confirmation page: nothing was sent.' : 'The person dismissed the confirmation page: nothing was sent.');
  }
  const status = await a.pages.page.wait(id, a.ctx.mcpReq.signal, progress(a.ctx));
  if (status === 'confirmed') return take(a, { id, key: answer.state.key });
  if (status !== 'aborted') a.pages.page.end(id);
  throw refuse(ended(status, a.tool, answer.state.key));
}

/**
 * The confirmation a call is sent under, or the request that asks the person: a page decision
 * made for this input (and key) is used first; then the URL elicitation, the form, or the
 * operator's link, by what the client declared and what the operator requires.
 */
export async function confirmCall(a: Asking): Promise<Confirmation | InputRequiredResult> {
  const scope = `${a.scope}:${a.ctx.sessionId ?? ''}`;
  const pageOnly = a.mode === 'page' || a.pages.secret !== undefined;
  const answer = a.answer && a.answer.state.input === a.input && (a.key === undefined || a.answer.state.key === a.key) ? a.answer : undefined;
  if (answer?.state.link !== undefined) return afterOpening(a, answer);
  if (answer && !pageOnly) {
    const confirmed = verdict(answer, a.input, a.key);
    if (confirmed !== 'ask') return confirmed;
  }
  const found = a.pages.page.find({ scope, input: a.input, key: a.key });
  if (found?.status === 'confirmed') return take(a, found);
  if (found?.status === 'declined') throw refuse(DECLINED);
  const declared = declaredElicitation(a.server, a.ctx);
  if (declared.url) return askOnPage(a, scope);
  if (declared.form && !pageOnly) return askPerson(a.text, a.codec, { input: a.input, key: a.key ?? crypto.randomUUID() }, a.ctx);

  const again = (key: string) => `call ${a.tool} again with the same arguments and idempotency_key "${key}" within 5 minutes; it is then sent once`;
  if (found?.status === 'pending') throw refuse(`The person has not approved this request yet on the confirmation page: nothing was sent. Once they have, ${again(found.key)}.`);
  const link = await open(a, scope, 'operator');
  a.pages.onLink({ url: link.url, tool: a.tool, expiresAt: new Date(link.expiresAt) });
  const why = declared.form ? 'this server requires its confirmation page, and this MCP client declared no URL elicitation' : 'this MCP client declared no elicitation capability';
  throw refuse(`The person must approve this request outside the chat (${why}), so nothing was sent yet. The operator of this server has been given the link to its confirmation page for the person. Once they have approved it, ${again(link.key)}.`);
}
