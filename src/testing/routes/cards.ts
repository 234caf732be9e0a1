import type { StoredCard } from '../card-store.js';
import type { SandboxContext } from '../context.js';
import { FIELD_TABLES } from '../fields.js';
import { apiError, badRequest, ok } from '../responses.js';
import { type AdmittedCall, fieldError, read, write } from './gateway.js';

type Card = StoredCard['card'];

/**
 * The answer's fields the spec says are "encrypted with the client secret": card number, CVV2,
 * default PIN and card token. Listed from the spec here, not taken from the client, so that a
 * client that forgets one shows it.
 */
const ENCRYPTED_ANSWER_FIELDS = ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] as const;

/** The card with its secret fields encrypted by the sandbox's cipher, as the service sends it. */
async function onTheWire(ctx: SandboxContext, card: Card): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = structuredClone(card);
  for (const field of ENCRYPTED_ANSWER_FIELDS) {
    if (typeof out[field] === 'string') out[field] = await ctx.options.cipher.encrypt(out[field] as string);
  }
  return out;
}

/** Decrypts the PIN, checks the body against the spec's table, stores the card and answers 201. */
async function storeCard(ctx: SandboxContext, body: Record<string, unknown>, call: AdmittedCall): Promise<Response> {
  const input = { ...body };
  if (typeof input.card_default_pin === 'string') {
    let pin: unknown;
    try {
      pin = await ctx.options.cipher.decrypt(input.card_default_pin);
    } catch {
      pin = undefined;
    }
    if (typeof pin !== 'string') return badRequest('INVALID_FIELD', 'card_default_pin could not be decrypted with the client secret', 'card_default_pin');
    input.card_default_pin = pin;
  }
  const refused = fieldError(FIELD_TABLES['cards.create'], input);
  if (refused) return refused;
  const text = (name: string, fallback: string) => (typeof input[name] === 'string' ? (input[name] as string) : fallback);
  const accountNumber = input.account_number as string;
  const card: Card = {
    card_id: ctx.random.id('card_', 20),
    customer_id: ctx.cards.customerFor(accountNumber, () => ctx.random.id('cus_', 16)),
    product_id: text('product_id', 'PRD_DEBIT_STANDARD'),
    account_number: accountNumber,
    card_scheme: 'VERVE',
    card_type: text('card_type', 'VIRTUAL') as Card['card_type'],
    card_mode: text('card_mode', 'DEBIT') as Card['card_mode'],
    card_status: input.card_status as Card['card_status'],
    card_currency: text('card_currency', 'NGN'),
    card_holder_name: input.card_holder_name as string,
    card_number: ctx.random.digits(4),
    card_cvv2: ctx.random.digits(3),
    card_default_pin: input.card_default_pin as string,
    card_token: ctx.random.id('tok_', 24),
    card_expiry: { ...(input.card_expiry as Record<string, string>) },
  };
  if (input.card_address) card.card_address = { ...(input.card_address as Record<string, string>) };
  if (Array.isArray(input.custom_properties)) card.custom_properties = input.custom_properties.map((p) => ({ ...(p as Record<string, string>) }));
  let data: Record<string, unknown>;
  try {
    data = await onTheWire(ctx, card);
  } catch {
    return apiError(500, 'Internal error: the configured cipher could not encrypt the card');
  }
  ctx.cards.add({ card, clientId: call.token.clientId, idempotencyKey: call.idempotencyKey, createdAt: ctx.options.now() });
  return ok('Card created successfully', data, 201);
}

/** `POST {base_url}/cards`: create a card (scope `cards.create`), idempotent per key. */
export const createCard = write('cards.create', 'both', (ctx, body, call) => storeCard(ctx, body, call));

/** `GET {base_url}/cards`: the caller's cards (scope `cards.list`), secret fields encrypted. */
export const listCards = read('cards.list', 'both', async (ctx, call) => {
  const cards = await Promise.all(ctx.cards.list(call.token.clientId).map((stored) => onTheWire(ctx, stored.card)));
  return ok('Cards retrieved successfully', { cards });
});
