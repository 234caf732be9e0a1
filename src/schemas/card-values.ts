/**
 * The card values of the spec, free of zod so that importing the package does not load it. The
 * zod schemas that check the shapes are in cards.ts, loaded with the first card call.
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

/** Request fields the cipher encrypts. */
export const CARD_SECRET_REQUEST_FIELDS = ['card_default_pin'] as const;
/** Response fields the cipher decrypts. */
export const CARD_SECRET_RESPONSE_FIELDS = ['card_number', 'card_cvv2', 'card_default_pin', 'card_token'] as const;
