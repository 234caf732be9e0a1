import type * as z from 'zod/mini';
import type { APIPromise } from '../core/promise.js';
import type { RequestOptions } from '../core/validation.js';
import { defineOperation } from '../core/operation.js';
import { OPERATION_SCOPES } from '../core/scopes.js';
import * as S from '../schemas/cards.js';
import { Resource } from '../core/call.js';

/** Body of `ob.cards.create`, from the spec's table. @group Cards */
export interface CreateCardParams extends z.input<ReturnType<typeof S.createCardSchema>> {}
/** A card as `cards.create` returns it, secret fields decrypted by the cipher. Unknown fields are kept. @group Cards */
export interface Card extends z.output<ReturnType<typeof S.cardSchema>> {}
/** A card of `cards.list`: every member optional, `card_status` open. Unknown fields are kept. @group Cards */
export interface ListedCard extends z.output<ReturnType<typeof S.listedCardSchema>> {}
/** `data` of `ob.cards.list`. @group Cards */
export interface CardList extends z.output<ReturnType<typeof S.cardListSchema>> {}
/** Expiry of a card. @group Cards */
export type CardExpiry = CreateCardParams['card_expiry'];
/** Delivery address of a card; fill it in for physical cards. @group Cards */
export type CardAddress = NonNullable<CreateCardParams['card_address']>;
/** An extension item carried on most requests and responses. @group Cards */
export type CustomProperty = NonNullable<CreateCardParams['custom_properties']>[number];

/** This namespace's operations: name, HTTP method, path, token, scopes, secret fields, paging. */
export const operations = {
  create: defineOperation({ name: 'cards.create', schemas: () => S.schemas['cards.create'], method: 'POST', path: '/cards', token: 'both', scopes: OPERATION_SCOPES['cards.create'], input: 'body', secretRequestFields: S.CARD_SECRET_REQUEST_FIELDS, secretResponseFields: S.CARD_SECRET_RESPONSE_FIELDS, source: '§12.1', completeness: 'full' }),
  list: defineOperation({ name: 'cards.list', schemas: () => S.schemas['cards.list'], method: 'GET', path: '/cards', token: 'both', scopes: OPERATION_SCOPES['cards.list'], input: 'none', secretResponseFields: S.CARD_SECRET_RESPONSE_FIELDS.map((f) => `cards.*.${f}`), source: '§12.2', completeness: 'full' }),
};

/**
 * Customer cards: `ob.cards` (client credentials) and `session.cards` (the customer's token).
 * @group Cards
 */
export class Cards extends Resource {
  /**
   * Creates a card (`POST {base_url}/cards`, scope `cards.create`). The PIN is encrypted by the
   * client's cipher; the secret fields of the answer are decrypted.
   *
   * @example
   * ```ts
   * const card = await ob.cards.create({
   *   account_number: '0123456789',
   *   card_holder_name: 'Ada Obi',
   *   card_status: 'ACTIVE',
   *   card_default_pin: '1234',
   *   card_expiry: { month: '09', year: '2029' },
   * });
   * ```
   */
  create(body: CreateCardParams, options?: RequestOptions): APIPromise<Card> {
    return this.run.call(operations.create, [], body, options);
  }

  /**
   * Lists the cards (`GET {base_url}/cards`, scope `cards.list`), secret fields decrypted. The
   * operation takes no parameters: pass the per-call options first, `list({ signal })`, or second
   * like every other method, `list(undefined, { signal })`.
   */
  list(options?: RequestOptions): APIPromise<CardList>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<CardList>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<CardList> {
    return this.run.call(operations.list, [], first, second);
  }
}
