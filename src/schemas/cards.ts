import * as z from 'zod/mini';

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

/** Expiry month (`'01'`–`'12'`) and four-digit year, as strings. @group Cards */
export const cardExpirySchema = plainObject(z.strictObject({
  month: z.string().check(z.regex(/^(0[1-9]|1[0-2])$/, 'must be two digits from 01 to 12')),
  year: z.string().check(z.regex(/^\d{4}$/, 'must be four digits, e.g. 2029')),
}));

/** Delivery address of a card (needed for physical cards). @group Cards */
export const cardAddressSchema = plainObject(
  z.strictObject({
    street: z.optional(text()),
    city: z.optional(text()),
    state: z.optional(text()),
    country: z.optional(text()),
  }),
);

/** One item of `custom_properties`: `id`, `description`, `type` and `value`, all strings. @group Cards */
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

/** `data` of a created card. `card_id` and `card_status` are required; unknown fields are kept. @group Cards */
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

/** `data` of `GET /cards`: the list of the customer's cards. @group Cards */
export const cardListSchema = z.looseObject({ cards: z.array(cardSchema) });

/** Expiry of a card. @group Cards */
export interface CardExpiry {
  /** Two digits, `'01'`–`'12'`. */
  month: string;
  /** Four digits, e.g. `'2029'`. */
  year: string;
}

/** Delivery address of a card; fill it in for physical cards. @group Cards */
export interface CardAddress {
  /** Street and number. */
  street?: string;
  /** City. */
  city?: string;
  /** State, e.g. `'Lagos'`. */
  state?: string;
  /** Country, e.g. `'NG'`. */
  country?: string;
}

/** An extension item carried on most requests and responses. @group Cards */
export interface CustomProperty {
  /** Identifier. */
  id: string;
  /** What it means. */
  description: string;
  /** Its type, as the provider names it. */
  type: string;
  /** Its value. */
  value: string;
}

/** Body of `ob.cards.create`, from the spec's table. @group Cards */
export interface CreateCardParams {
  /** Product identifier. */
  product_id?: string;
  /** `VIRTUAL`, `PHYSICAL` or `OTHER`. */
  card_type?: CardType;
  /** `DEBIT`, `CREDIT`, `PREPAID` or `OTHER`. */
  card_mode?: CardMode;
  /** The status the card is created in. */
  card_status: CardStatus;
  /** `NGN`. */
  card_currency?: 'NGN';
  /** The 10-digit NUBAN account the card draws on. */
  account_number: string;
  /** Name of the card holder (at most 255 characters). */
  card_holder_name: string;
  /** Default PIN in plaintext (4–12 digits); the client's cipher encrypts it on the wire. */
  card_default_pin: string;
  /** Expiry month and year. */
  card_expiry: CardExpiry;
  /** Delivery address. */
  card_address?: CardAddress;
  /** Extension items. */
  custom_properties?: CustomProperty[];
}

/** A card as the API returns it, secret fields decrypted by the cipher. Unknown fields are kept. @group Cards */
export interface Card {
  /** Card identifier. */
  card_id: string;
  /** Current status. */
  card_status: CardStatus;
  /** Customer identifier. */
  customer_id?: string;
  /** Product identifier. */
  product_id?: string;
  /** Account the card is tied to. */
  account_number?: string;
  /** Card scheme, e.g. `'VISA'`. */
  card_scheme?: string;
  /** `VIRTUAL`, `PHYSICAL` or `OTHER`. */
  card_type?: CardType;
  /** `DEBIT`, `CREDIT`, `PREPAID` or `OTHER`. */
  card_mode?: CardMode;
  /** Currency, `NGN`. */
  card_currency?: string;
  /** Card holder name. */
  card_holder_name?: string;
  /** Last four digits of the card number (decrypted). */
  card_number?: string;
  /** CVV2 (decrypted). */
  card_cvv2?: string;
  /** Default PIN (decrypted). */
  card_default_pin?: string;
  /** Card token (decrypted). */
  card_token?: string;
  /** Expiry. */
  card_expiry?: Partial<CardExpiry> & Record<string, unknown>;
  /** Delivery address. */
  card_address?: CardAddress & Record<string, unknown>;
  /** Extension items. */
  custom_properties?: Array<Partial<CustomProperty> & Record<string, unknown>>;
  /** Fields the service added after this SDK was written. */
  [extra: string]: unknown;
}

/** `data` of `ob.cards.list`. @group Cards */
export interface CardList {
  /** The cards. */
  cards: Card[];
  /** Fields the service added after this SDK was written. */
  [extra: string]: unknown;
}

// The interfaces document the shapes; these lines fail the typecheck if a schema drifts from them.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const drift: [Same<z.input<typeof createCardSchema>, CreateCardParams>, Same<z.output<typeof cardSchema>, Card>, Same<z.output<typeof cardListSchema>, CardList>] = [true, true, true];
void drift;

/** Request fields the cipher encrypts. */
export const CARD_SECRET_REQUEST_FIELDS = ['card_default_pin'] as const;
/** Response fields the cipher decrypts. */
export const CARD_SECRET_RESPONSE_FIELDS = ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] as const;
