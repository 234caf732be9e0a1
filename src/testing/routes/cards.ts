import { createCardSchema } from '../../schemas/card-schemas.js';
import { type Card, CARD_SECRET_RESPONSE_FIELDS } from '../../schemas/cards.js';
import { toIssues } from '../../schemas/issues.js';
import type { RouteHandler, SandboxContext } from '../context.js';
import { canonicalJson } from '../idempotency.js';
import { apiError, badRequest, json } from '../responses.js';
import { type AdmittedCall, admit } from './gateway.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The card with its secret fields encrypted by the sandbox's cipher, as the service sends it. */
async function onTheWire(ctx: SandboxContext, card: Card): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = structuredClone(card);
  for (const field of CARD_SECRET_RESPONSE_FIELDS) {
    if (typeof out[field] === 'string') out[field] = await ctx.options.cipher.encrypt(out[field] as string);
  }
  return out;
}

/** Decrypts the PIN, validates the body, stores the card and answers 201. */
async function storeCard(ctx: SandboxContext, body: Record<string, unknown>, call: AdmittedCall): Promise<Response> {
  const plain = { ...body };
  if (typeof plain.card_default_pin === 'string') {
    let pin: unknown;
    try {
      pin = await ctx.options.cipher.decrypt(plain.card_default_pin);
    } catch {
      pin = undefined;
    }
    if (typeof pin !== 'string') return badRequest('INVALID_FIELD', 'card_default_pin could not be decrypted with the client secret', 'card_default_pin');
    plain.card_default_pin = pin;
  }
  const parsed = createCardSchema.safeParse(plain);
  if (!parsed.success) {
    const issues = toIssues(parsed.error, plain);
    const first = issues.find((i) => i.code === 'missing') ?? issues[0]!;
    return badRequest(first.code === 'missing' ? 'MISSING_FIELD' : 'INVALID_FIELD', `${first.path} ${first.message}`, first.path);
  }
  const input = parsed.data;
  const card: Card = {
    card_id: ctx.random.id('card_', 20),
    customer_id: ctx.cards.customerFor(input.account_number, () => ctx.random.id('cus_', 16)),
    product_id: input.product_id ?? 'PRD_DEBIT_STANDARD',
    account_number: input.account_number,
    card_scheme: 'VERVE',
    card_type: input.card_type ?? 'VIRTUAL',
    card_mode: input.card_mode ?? 'DEBIT',
    card_status: input.card_status,
    card_currency: input.card_currency ?? 'NGN',
    card_holder_name: input.card_holder_name,
    card_number: ctx.random.digits(4),
    card_cvv2: ctx.random.digits(3),
    card_default_pin: input.card_default_pin,
    card_token: ctx.random.id('tok_', 24),
    card_expiry: { ...input.card_expiry },
  };
  if (input.card_address) card.card_address = { ...input.card_address };
  if (input.custom_properties) card.custom_properties = input.custom_properties.map((p) => ({ ...p }));
  let data: Record<string, unknown>;
  try {
    data = await onTheWire(ctx, card);
  } catch {
    return apiError(500, 'Internal error: the configured cipher could not encrypt the card');
  }
  ctx.cards.add({ card, clientId: call.token.clientId, idempotencyKey: call.idempotencyKey, createdAt: ctx.options.now() });
  return json(201, { status: '00', message: 'Card created successfully', data });
}

/** `POST {base_url}/cards`: create a card (scope `cards.create`), idempotent per key. */
export const createCard: RouteHandler = async (ctx, request, url) => {
  const call = await admit(ctx, request, 'cards.create');
  if (call instanceof Response) return call;
  const text = await request.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!isRecord(body)) return badRequest('INVALID_REQUEST', 'The body must be a JSON object');
  const fingerprint = `POST ${url.pathname}\n${canonicalJson(body)}`;
  const result = await ctx.idempotency.run(call.token.clientId, call.idempotencyKey, fingerprint, () => storeCard(ctx, body, call));
  if (result.kind === 'reused') {
    return badRequest('IDEMPOTENCY_KEY_REUSED', 'idempotency-key was already used with a different request; use a new key for a new request', 'idempotency-key');
  }
  return result.response;
};

/** `GET {base_url}/cards`: the caller's cards (scope `cards.list`), secret fields encrypted. */
export const listCards: RouteHandler = async (ctx, request) => {
  const call = await admit(ctx, request, 'cards.list');
  if (call instanceof Response) return call;
  const cards = await Promise.all(ctx.cards.list(call.token.clientId).map((stored) => onTheWire(ctx, stored.card)));
  return json(200, { status: '00', message: 'Cards retrieved successfully', data: { cards } });
};
