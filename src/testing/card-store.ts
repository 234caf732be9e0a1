import type { Card } from '../resources/cards.js';

/**
 * A card the sandbox holds, secret fields in plaintext, with who created it and under which
 * idempotency key.
 * @group Sandbox
 */
export interface StoredCard {
  /** The card as the API describes it, secret fields decrypted. */
  card: Card;
  /** The client whose token created it. */
  clientId: string;
  /** The `idempotency-key` of the request that created it. */
  idempotencyKey: string;
  /** When it was created, on the sandbox's clock (ms). */
  createdAt: number;
}

/** The cards the sandbox holds, in creation order. */
export class CardStore {
  #cards: StoredCard[] = [];
  readonly #customers = new Map<string, string>();

  /** The customer who owns an account: the same id for every card on one account number. */
  customerFor(accountNumber: string, mint: () => string): string {
    let id = this.#customers.get(accountNumber);
    if (id === undefined) this.#customers.set(accountNumber, (id = mint()));
    return id;
  }

  add(record: StoredCard): void {
    this.#cards.push(record);
  }

  /** Copies, so a test cannot change what the sandbox holds. */
  list(clientId?: string): StoredCard[] {
    return this.#cards.filter((c) => clientId === undefined || c.clientId === clientId).map((c) => structuredClone(c));
  }

  reset(): void {
    this.#cards = [];
    this.#customers.clear();
  }
}
