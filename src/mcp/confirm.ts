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
import type { McpLimits } from './options.js';
import { ToolRefusal } from './results.js';

// The person's confirmation of a money movement: one boolean `confirm` asked through MCP
// elicitation (form mode), returned as `input_required` so both protocol eras carry it: the
// 2026-07-28 client answers and retries, the SDK's shim asks 2025-era clients itself.

/** What a confirmation is bound to: the digest of the very input the person was shown. */
export interface Confirmation {
  input: string;
}

/** The HMAC codec of the confirmation's request state, one key per server (and its per-request instances). */
export function confirmationCodec(): RequestStateCodec<Confirmation> {
  return createRequestStateCodec<Confirmation>({ key: crypto.getRandomValues(new Uint8Array(32)), ttlSeconds: 900 });
}

/** What the person is shown of a money movement. */
export interface MoneyMovement {
  tool: string;
  amount: number;
  currency: string;
  source: string;
  destination: string;
  narration: string | undefined;
}

const money = (amount: number, currency: string) => `${amount} ${currency} (${amount.toLocaleString('en-NG', { minimumFractionDigits: 2, maximumFractionDigits: 2 })})`;

/** The confirmation's text: amount, currency, source, destination and narration, and where the day stands. */
export function confirmationMessage(m: MoneyMovement, limits: McpLimits, spentToday: number): string {
  return [
    `Confirm ${m.tool}: an AI agent asks to move money for you.`,
    `Amount: ${money(m.amount, m.currency)}`,
    `Currency: ${m.currency}`,
    `From: ${m.source}`,
    `To: ${m.destination}`,
    `Narration: ${m.narration ?? '(none)'}`,
    `Limits: ${money(limits.perCall, m.currency)} per call, ${money(limits.perDay, m.currency)} per day; ${money(spentToday, m.currency)} sent today (Lagos time).`,
  ].join('\n');
}

/** The client declared form elicitation: on the request (2026-07-28) or at initialize (2025 era). */
export function canAskPerson(server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.server.getClientCapabilities();
  const elicitation = declared?.elicitation as { form?: object; url?: object } | undefined;
  // An empty `elicitation: {}` means form mode (the revisions before modes existed).
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** The confirmation request: returned from the tool, answered by the client, the tool entered again. */
export async function askPerson(message: string, codec: RequestStateCodec<Confirmation>, input: string): Promise<InputRequiredResult> {
  return inputRequired({
    inputRequests: {
      confirm: inputRequired.elicit({
        mode: 'form',
        message,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Send it', description: 'Tick to move the money as shown; leave it to refuse.' } },
          required: ['confirm'],
        },
      }),
    },
    requestState: await codec.mint({ input }),
  });
}

/**
 * Where the confirmation of `input` stands in this round: `'ask'` when the person has not been
 * asked about this very input, `'confirmed'`, or a refusal (declined, cancelled, left unticked).
 */
export function answerOf(ctx: ServerContext, input: string): 'ask' | 'confirmed' {
  const state = ctx.mcpReq.requestState<Confirmation>();
  const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
  // An answer counts only beside the state this server minted for this input.
  if (view.kind !== 'elicit' || typeof state !== 'object' || state === null || state.input !== input) return 'ask';
  if (view.action === 'decline') throw new ToolRefusal('NotConfirmed', 'The person declined: nothing was sent.');
  if (view.action === 'cancel') throw new ToolRefusal('NotConfirmed', 'The person dismissed the confirmation: nothing was sent.');
  if (view.content?.confirm !== true) throw new ToolRefusal('NotConfirmed', 'The person did not tick confirm: nothing was sent.');
  return 'confirmed';
}
