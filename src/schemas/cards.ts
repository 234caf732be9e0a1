import * as z from 'zod/mini';
import { once } from '../core/validation.js';
import { byOperation, customPropertiesSchema, matching, oneOf, str, text } from './common.js';

/** Card types of the spec. @group Cards */
export const CARD_TYPES = ['VIRTUAL', 'PHYSICAL', 'OTHER'] as const;
/** Card modes of the spec. @group Cards */
export const CARD_MODES = ['DEBIT', 'CREDIT', 'PREPAID', 'OTHER'] as const;
/** Card statuses of the spec; a card is created in the status given. @group Cards */
export const CARD_STATUSES = ['ACTIVE', 'INACTIVE', 'BLOCKED', 'LOST', 'STOLEN'] as const;

/** `VIRTUAL`, `PHYSICAL` or `OTHER`. @group Cards */
export type CardType = (typeof CARD_TYPES)[number];
/** `DEBIT`, `CREDIT`, `PREPAID` or `OTHER`. @group Cards */
export type CardMode = (typeof CARD_MODES)[number];
/** `ACTIVE`, `INACTIVE`, `BLOCKED`, `LOST` or `STOLEN`. @group Cards */
export type CardStatus = (typeof CARD_STATUSES)[number];

/** Request fields the cipher encrypts. */
export const CARD_SECRET_REQUEST_FIELDS = ['card_default_pin'] as const;
/** Response fields the cipher decrypts. */
export const CARD_SECRET_RESPONSE_FIELDS = ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] as const;

// The zod schemas of the card operations; the public types (`Card`, `CreateCardParams`, …) are inferred from them.

/** Expiry month (`'01'`–`'12'`) and four-digit year, as strings. */
export const cardExpirySchema = once(() => z.strictObject({
  /** Two digits, `'01'`–`'12'`. */
  month: matching(/^(0[1-9]|1[0-2])$/, 'must be two digits from 01 to 12'),
  /** Four digits, e.g. `'2029'`. */
  year: matching(/^\d{4}$/, 'must be four digits, e.g. 2029'),
}));

/** Delivery address of a card (needed for physical cards). */
export const cardAddressSchema = once(() => z.strictObject({
  /** Street and number. */
  street: z.optional(text()),
  /** City. */
  city: z.optional(text()),
  /** State, e.g. `'Lagos'`. */
  state: z.optional(text()),
  /** Country, e.g. `'NG'`. */
  country: z.optional(text()),
}));

/**
 * Body of `POST /cards`, from the spec's table. Unknown fields are refused (a typo would
 * otherwise be dropped silently by the service).
 */
export const createCardSchema = once(() => z.strictObject({
  /** Product identifier. */
  product_id: z.optional(text()),
  /** `VIRTUAL`, `PHYSICAL` or `OTHER`. */
  card_type: z.optional(oneOf(CARD_TYPES)),
  /** `DEBIT`, `CREDIT`, `PREPAID` or `OTHER`. */
  card_mode: z.optional(oneOf(CARD_MODES)),
  /** The status the card is created in. */
  card_status: oneOf(CARD_STATUSES),
  /** `NGN`. */
  card_currency: z.optional(oneOf(['NGN'])),
  /** The 10-digit NUBAN account the card draws on. */
  account_number: matching(/^\d{10}$/, 'must be a 10-digit NUBAN account number'),
  /** Name of the card holder (at most 255 characters). */
  card_holder_name: text(),
  /** Default PIN in plaintext (4–12 digits); the client's cipher encrypts it on the wire. */
  card_default_pin: matching(/^\d{4,12}$/, 'must be 4 to 12 digits'),
  /** Expiry month and year. */
  card_expiry: cardExpirySchema(),
  /** Delivery address. */
  card_address: z.optional(cardAddressSchema()),
  /** Extension items. */
  custom_properties: customPropertiesSchema(),
}));

/** A card's expiry as the service returns it. */
const expiryOut = once(() => z.looseObject({
  /** Two digits, `'01'`–`'12'`. */
  month: z.optional(str()),
  /** Four digits. */
  year: z.optional(str()),
}));

/** A card's delivery address as the service returns it. */
const addressOut = once(() => z.looseObject({
  /** Street and number. */
  street: z.optional(str()),
  /** City. */
  city: z.optional(str()),
  /** State. */
  state: z.optional(str()),
  /** Country. */
  country: z.optional(str()),
}));

/** A `custom_properties` item of a card. */
const propertyOut = once(() => z.looseObject({
  /** Identifier. */
  id: z.optional(str()),
  /** What it means. */
  description: z.optional(str()),
  /** Its type, as the provider names it. */
  type: z.optional(str()),
  /** Its value. */
  value: z.optional(str()),
}));

const cardFields = once(() => ({
  /** Customer identifier. */
  customer_id: z.optional(str()),
  /** Product identifier. */
  product_id: z.optional(str()),
  /** Account the card is tied to. */
  account_number: z.optional(str()),
  /** Card scheme, e.g. `'VISA'`. */
  card_scheme: z.optional(str()),
  /** `VIRTUAL`, `PHYSICAL` or `OTHER`. */
  card_type: z.optional(oneOf(CARD_TYPES)),
  /** `DEBIT`, `CREDIT`, `PREPAID` or `OTHER`. */
  card_mode: z.optional(oneOf(CARD_MODES)),
  /** Currency, `NGN`. */
  card_currency: z.optional(str()),
  /** Card holder name. */
  card_holder_name: z.optional(str()),
  /** Card number as the service returns it (decrypted by the cipher). */
  card_number: z.optional(str()),
  /** CVV2 (decrypted). */
  card_cvv2: z.optional(str()),
  /** Default PIN (decrypted). */
  card_default_pin: z.optional(str()),
  /** Card token (decrypted). */
  card_token: z.optional(str()),
  /** Expiry. */
  card_expiry: z.optional(expiryOut()),
  /** Delivery address. */
  card_address: z.optional(addressOut()),
  /** Extension items. */
  custom_properties: z.optional(z.array(propertyOut())),
}));

/** `data` of a created card: `card_id` and `card_status` are required; unknown fields are kept. */
export const cardSchema = once(() => z.looseObject({
  /** Card identifier. */
  card_id: str(),
  /** Current status. */
  card_status: oneOf(CARD_STATUSES),
  ...cardFields(),
}));

/** A card of `GET /cards`: every member optional, `card_status` an open enum (the seed marks fields required only in the create response). */
export const listedCardSchema = once(() => z.looseObject({
  /** Card identifier. */
  card_id: z.optional(str()),
  /** Current status: one of {@link CARD_STATUSES}, or a status this SDK does not know yet. */
  card_status: z.optional(str() as unknown as z.ZodMiniType<(typeof CARD_STATUSES)[number] | (string & {})>),
  ...cardFields(),
}));

/** `data` of `GET /cards`: the list of the customer's cards. */
export const cardListSchema = once(() => z.looseObject({
  /** The cards. */
  cards: z.array(listedCardSchema()),
}));

/** The zod schemas of this namespace's operations, by operation name; the operations are declared beside their methods under resources/. */
export const schemas = byOperation({
  'cards.create': () => ({ body: createCardSchema(), response: cardSchema() }),
  'cards.list': () => ({ response: cardListSchema() }),
});
