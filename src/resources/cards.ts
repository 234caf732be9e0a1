import type { APIPromise } from '../core/api-promise.js';
import type { BearerSource, RequestOptions } from '../core/transport.js';
import type { ResourceContext } from './resource.js';
import { Lazy } from '../core/lazy.js';
import { ValidationError } from '../errors.js';
import { CARD_SECRET_REQUEST_FIELDS, CARD_SECRET_RESPONSE_FIELDS, type Card, type CardList, type CreateCardParams } from '../schemas/cards.js';

// The card schemas (and zod with them) load with the first card call, not with the package.
const createSchemas = new Lazy(() => import('../schemas/card-schemas.js').then((m) => ({ request: m.createCardSchema, response: m.cardSchema })));
const listSchemas = new Lazy(() => import('../schemas/card-schemas.js').then((m) => ({ response: m.cardListSchema })));

const LIST_SECRET_RESPONSE_FIELDS: readonly string[] = CARD_SECRET_RESPONSE_FIELDS.map((f) => `cards.*.${f}`);

/**
 * Customer cards: `ob.cards`.
 * @group Cards
 */
export class Cards {
  // Token sources are built once, not on every call.
  readonly #createBearer: BearerSource;
  readonly #listBearer: BearerSource;

  /** @internal */
  constructor(private readonly ctx: ResourceContext) {
    this.#createBearer = ctx.bearer(['cards.create']);
    this.#listBearer = ctx.bearer(['cards.list']);
  }

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
    return this.ctx.transport.request(
      {
        method: 'POST',
        path: '/cards',
        body,
        schemas: createSchemas,
        envelope: true,
        secretRequestFields: CARD_SECRET_REQUEST_FIELDS,
        secretResponseFields: CARD_SECRET_RESPONSE_FIELDS,
        bearer: this.#createBearer,
      },
      options,
    );
  }

  /**
   * Lists the cards (`GET {base_url}/cards`, scope `cards.list`), secret fields decrypted. The
   * operation takes no parameters: pass the per-call options first, `list({ signal })`, or second
   * like every other method, `list(undefined, { signal })`.
   */
  list(options?: RequestOptions): APIPromise<CardList>;
  list(params: undefined | Record<string, never>, options?: RequestOptions): APIPromise<CardList>;
  list(first?: RequestOptions | Record<string, never>, second?: RequestOptions): APIPromise<CardList> {
    const twoArguments = arguments.length >= 2;
    const precheck = () => {
      if (twoArguments && first !== undefined && (typeof first !== 'object' || first === null || Object.keys(first).length > 0)) {
        throw new ValidationError('Invalid parameters', [{ path: '', message: 'cards.list takes no parameters: pass undefined or {} before the request options', code: 'unrecognized_keys' }]);
      }
    };
    return this.ctx.transport.request(
      {
        method: 'GET',
        path: '/cards',
        schemas: listSchemas,
        envelope: true,
        secretResponseFields: LIST_SECRET_RESPONSE_FIELDS,
        bearer: this.#listBearer,
      },
      twoArguments ? second : (first as RequestOptions | undefined),
      precheck,
    );
  }
}
