import * as z from 'zod/mini';
import { CARD_MODES, CARD_STATUSES, CARD_TYPES, type Card, type CardList, type CreateCardParams } from './cards.js';

/*
 * The zod schemas of the card operations. The transport loads this module with the first card
 * call (see `cardSchemas` in resources/cards.ts): `import 'zod/mini'` costs more than the rest of
 * the package's import together, and a process that never sends a card need not pay it.
 */

const text = (max = 255) => z.string().check(z.minLength(1), z.maxLength(max));

/**
 * zod takes any object where an object schema stands: a Date, a Map or a RegExp passes as `{}`
 * (it has no own keys), so an all-optional object such as `card_address` would be sent empty.
 * This lets only plain objects through to `schema`; anything else that is not an object is left
 * to `schema`, which reports it as missing or of the wrong type as before.
 */
function plainObject<T extends z.ZodMiniType>(schema: T): z.ZodMiniPipe<z.ZodMiniCustom<z.input<T>, z.input<T>>, T> {
  const plain = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return true;
    const proto = Object.getPrototypeOf(value) as unknown;
    return Array.isArray(value) || proto === Object.prototype || proto === null;
  };
  return z.pipe(z.custom<z.input<T>>(plain, { error: 'must be a plain object' }), schema as never) as never;
}

/** Expiry month (`'01'`–`'12'`) and four-digit year, as strings. */
export const cardExpirySchema = plainObject(z.strictObject({
  month: z.string().check(z.regex(/^(0[1-9]|1[0-2])$/, 'must be two digits from 01 to 12')),
  year: z.string().check(z.regex(/^\d{4}$/, 'must be four digits, e.g. 2029')),
}));

/** Delivery address of a card (needed for physical cards). */
export const cardAddressSchema = plainObject(
  z.strictObject({
    street: z.optional(text()),
    city: z.optional(text()),
    state: z.optional(text()),
    country: z.optional(text()),
  }),
);

/** One item of `custom_properties`: `id`, `description`, `type` and `value`, all strings. */
export const customPropertySchema = plainObject(
  z.strictObject({
    id: text(),
    description: z.string().check(z.maxLength(255)),
    type: text(),
    value: z.string().check(z.maxLength(255)),
  }),
);

/**
 * Body of `POST /cards`, from the spec's table. Unknown fields are refused (a typo would
 * otherwise be dropped silently by the service).
 * @group Cards
 */
export const createCardSchema = plainObject(z.strictObject({
  product_id: z.optional(text()),
  card_type: z.optional(z.enum(CARD_TYPES)),
  card_mode: z.optional(z.enum(CARD_MODES)),
  card_status: z.enum(CARD_STATUSES),
  card_currency: z.optional(z.literal('NGN')),
  /** NUBAN account number: 10 digits. */
  account_number: z.string().check(z.regex(/^\d{10}$/, 'must be a 10-digit NUBAN account number')),
  card_holder_name: text(),
  /** The default PIN in plaintext; the cipher encrypts it on the wire. */
  card_default_pin: z.string().check(z.regex(/^\d{4,12}$/, 'must be 4 to 12 digits')),
  card_expiry: cardExpirySchema,
  card_address: z.optional(cardAddressSchema),
  custom_properties: z.optional(z.array(customPropertySchema)),
}));

/** `data` of a created card. `card_id` and `card_status` are required; unknown fields are kept. */
export const cardSchema = z.looseObject({
  card_id: z.string(),
  card_status: z.enum(CARD_STATUSES),
  customer_id: z.optional(z.string()),
  product_id: z.optional(z.string()),
  account_number: z.optional(z.string()),
  card_scheme: z.optional(z.string()),
  card_type: z.optional(z.enum(CARD_TYPES)),
  card_mode: z.optional(z.enum(CARD_MODES)),
  card_currency: z.optional(z.string()),
  card_holder_name: z.optional(z.string()),
  card_number: z.optional(z.string()),
  card_cvv2: z.optional(z.string()),
  card_default_pin: z.optional(z.string()),
  card_token: z.optional(z.string()),
  card_expiry: z.optional(z.looseObject({ month: z.optional(z.string()), year: z.optional(z.string()) })),
  card_address: z.optional(
    z.looseObject({ street: z.optional(z.string()), city: z.optional(z.string()), state: z.optional(z.string()), country: z.optional(z.string()) }),
  ),
  custom_properties: z.optional(z.array(z.looseObject({ id: z.optional(z.string()), description: z.optional(z.string()), type: z.optional(z.string()), value: z.optional(z.string()) }))),
});

/** `data` of `GET /cards`: the list of the customer's cards. */
export const cardListSchema = z.looseObject({ cards: z.array(cardSchema) });

// The interfaces document the shapes; these lines fail the typecheck if a schema drifts from them.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const drift: [Same<z.input<typeof createCardSchema>, CreateCardParams>, Same<z.output<typeof cardSchema>, Card>, Same<z.output<typeof cardListSchema>, CardList>] = [true, true, true];
void drift;

