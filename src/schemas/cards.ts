/**
 * The card shapes of the spec: constants and types, free of zod so that importing the package does
 * not load it. The zod schemas that check them are in card-schemas.ts, loaded with the first card
 * call.
 */
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
  /**
   * The card number as the service returns it, decrypted by the cipher. The spec describes it as the last
   * four digits and the sandboxes answer four digits; do not rely on its length.
   */
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

/** Request fields the cipher encrypts. */
export const CARD_SECRET_REQUEST_FIELDS = ['card_default_pin'] as const;
/** Response fields the cipher decrypts. */
export const CARD_SECRET_RESPONSE_FIELDS = ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] as const;
