import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ToolRefusal } from './results.js';

// The person's confirmation of a money or instrument tool, as MCP elicitation carries it: returned
// as `input_required` so both protocol eras carry it (the 2026-07-28 client answers and retries,
// the SDK's shim asks 2025-era clients itself). The form asks one boolean `confirm`; the URL mode
// sends the person to this server's page (channels.ts). The request state is signed, bound to the
// session, and names the input's digest, the idempotency key and a nonce the ledger spends once
// (DESIGN "Agents", row "confirmation").

/** What a confirmation is bound to. */
export interface Confirmation {
  /** The digest of the very input the person was shown. */
  input: string;
  /** The idempotency key the confirmed call is sent under, and only that one. */
  key: string;
  /** Spent by the first answer that uses it: a confirmation serves one send. */
  nonce: string;
  /** The page link the person decides on, when they were asked through URL elicitation. */
  link?: string;
}

/** How long a confirmation may be answered. */
export const CONFIRMATION_TTL_SECONDS = 300;

/** The session a request belongs to over HTTP (2025-era sessions); one scope elsewhere. */
const sessionOf = (ctx: ServerContext): string => ctx.sessionId ?? '';

/** The HMAC codec of the confirmation's request state: one key per server (and its per-request instances). */
export function confirmationCodec(): RequestStateCodec<Confirmation> {
  return createRequestStateCodec<Confirmation>({ key: crypto.getRandomValues(new Uint8Array(32)), ttlSeconds: CONFIRMATION_TTL_SECONDS, bind: sessionOf });
}

/** The elicitation modes the client declared: on the request (2026-07-28) or at initialize (2025 era). */
export function declaredElicitation(server: McpServer, ctx: ServerContext): { form: boolean; url: boolean } {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.server.getClientCapabilities();
  const elicitation = declared?.elicitation as { form?: object; url?: object } | undefined;
  if (elicitation === undefined) return { form: false, url: false };
  // An empty `elicitation: {}` means form mode (the revisions before modes existed).
  return { form: elicitation.form !== undefined || elicitation.url === undefined, url: elicitation.url !== undefined };
}

/** The confirmation request: returned from the tool, answered by the client, the tool entered again. */
export async function askPerson(message: string, codec: RequestStateCodec<Confirmation>, bound: Omit<Confirmation, 'nonce'>, ctx: ServerContext): Promise<InputRequiredResult> {
  return inputRequired({
    inputRequests: {
      confirm: inputRequired.elicit({
        mode: 'form',
        message,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Confirm', description: 'Tick to do exactly what is shown; leave it to refuse.' } },
          required: ['confirm'],
        },
      }),
    },
    requestState: await codec.mint({ ...bound, nonce: crypto.randomUUID() }, ctx),
  });
}

/** An answer the client brought, its confirmation verified and spent. */
export interface Answer {
  state: Confirmation;
  action: 'accept' | 'decline' | 'cancel';
  ticked: boolean;
}

/**
 * The answer this round carries, if any: its request state verified here (a forged, expired or
 * foreign one is a refusal, as a tool error) and spent at once, before anything else is read, so
 * that a confirmation serves exactly one answer whatever came with it (a decline replayed as an
 * accept is still a decline; an answer beside bad input is used up too).
 */
export async function takeAnswer(ctx: ServerContext, codec: RequestStateCodec<Confirmation>, spend: (nonce: string) => Promise<boolean>): Promise<Answer | undefined> {
  const raw = ctx.mcpReq.requestState<unknown>();
  const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
  if (view.kind !== 'elicit' || raw === undefined) return undefined;
  let state: Confirmation;
  try {
    state = await codec.verify(String(raw), ctx);
  } catch (error) {
    const expired = error instanceof Error && error.message === 'expired';
    throw new ToolRefusal('NotConfirmed', expired ? `The confirmation expired (a confirmation is valid for ${CONFIRMATION_TTL_SECONDS / 60} minutes): nothing was sent. Call the tool again to ask the person anew.` : 'The confirmation is not one this server asked for in this session: nothing was sent. Call the tool again to ask the person.');
  }
  if (typeof state !== 'object' || state === null || typeof state.nonce !== 'string' || typeof state.key !== 'string' || typeof state.input !== 'string') return undefined;
  if (state.link !== undefined && typeof state.link !== 'string') return undefined;
  if (!(await spend(state.nonce))) throw new ToolRefusal('NotConfirmed', 'This confirmation was already answered: a confirmation serves one answer. Nothing was sent; call the tool again to ask the person anew.');
  return { state, action: view.action, ticked: view.content?.confirm === true };
}

/**
 * What an answer means for `input` sent under `key` (when the caller gave one): `'ask'` when there
 * is none or it was about other input or another key; the confirmation when accepted and ticked;
 * a refusal when declined, cancelled or left unticked.
 */
export function verdict(answer: Answer | undefined, input: string, key: string | undefined): 'ask' | Confirmation {
  if (!answer || answer.state.input !== input || (key !== undefined && answer.state.key !== key)) return 'ask';
  if (answer.action === 'decline') throw new ToolRefusal('NotConfirmed', 'The person declined: nothing was sent.');
  if (answer.action === 'cancel') throw new ToolRefusal('NotConfirmed', 'The person dismissed the confirmation: nothing was sent.');
  if (!answer.ticked) throw new ToolRefusal('NotConfirmed', 'The person did not tick confirm: nothing was sent.');
  return answer.state;
}
