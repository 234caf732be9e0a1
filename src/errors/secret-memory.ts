// The secret values the SDK remembers to mask in any text (client secrets, tokens, code verifiers,
// signatures it sent), each owned by the client or the customer session that learnt it, for as long
// as that owner lives; and the one pass that finds them all in a text.

/** Placeholder written in place of every secret value. */
export const REDACTED = '[REDACTED]';

/** Work done by the matcher of remembered secrets: passes over texts, and candidate comparisons. */
export const redactionWork = { passes: 0, comparisons: 0 };

const ANCHOR = 8; // remembered secrets are at least this long: a rolling hash of their first 8 characters finds them
const BASE = 31;
const BASE_TOP = /* @__PURE__ */ Array.from({ length: ANCHOR - 1 }).reduce<number>((power) => Math.imul(power, BASE), 1);

function anchorHash(text: string, at: number): number {
  let hash = 0;
  for (let i = at; i < at + ANCHOR; i++) hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/** The values that share an anchor, by length (longest first): a position is probed once per length, never once per value. */
interface Bucket {
  lengths: number[];
  byLength: Map<number, Set<string>>;
}

/**
 * Every value some live owner remembers, indexed by the rolling hash of its first characters: one
 * pass over a text finds them all, and each position costs one probe per distinct length sharing
 * its anchor, whatever the number of values. A value stays while any owner holds it.
 */
class SecretIndex {
  readonly #holders = new Map<string, number>();
  readonly #buckets = new Map<number, Bucket>();
  #filter: Uint16Array | undefined;

  add(value: string): void {
    const held = this.#holders.get(value) ?? 0;
    this.#holders.set(value, held + 1);
    if (held > 0) return;
    const hash = anchorHash(value, 0);
    let bucket = this.#buckets.get(hash);
    if (bucket === undefined) this.#buckets.set(hash, (bucket = { lengths: [], byLength: new Map() }));
    let same = bucket.byLength.get(value.length);
    if (same === undefined) {
      bucket.byLength.set(value.length, (same = new Set()));
      bucket.lengths = [...bucket.byLength.keys()].sort((a, b) => b - a);
    }
    same.add(value);
    this.#filter ??= new Uint16Array(1 << 16);
    this.#filter[(hash ^ (hash >>> 16)) & 0xffff]! += 1;
  }

  remove(value: string): void {
    const held = this.#holders.get(value) ?? 0;
    if (held > 1) return void this.#holders.set(value, held - 1);
    if (held === 0) return;
    this.#holders.delete(value);
    const hash = anchorHash(value, 0);
    const bucket = this.#buckets.get(hash)!;
    const same = bucket.byLength.get(value.length)!;
    same.delete(value);
    if (same.size === 0) {
      bucket.byLength.delete(value.length);
      bucket.lengths = bucket.lengths.filter((length) => length !== value.length);
    }
    if (bucket.byLength.size === 0) this.#buckets.delete(hash);
    this.#filter![(hash ^ (hash >>> 16)) & 0xffff]! -= 1;
  }

  mask(text: string): string {
    const filter = this.#filter;
    if (filter === undefined || this.#buckets.size === 0 || text.length < ANCHOR) return text;
    redactionWork.passes++;
    let out = '';
    let kept = 0;
    let hash = anchorHash(text, 0);
    for (let at = 0; ; at++) {
      if (at >= kept && filter[(hash ^ (hash >>> 16)) & 0xffff] !== 0) {
        const bucket = this.#buckets.get(hash);
        for (const length of bucket?.lengths ?? []) {
          redactionWork.comparisons++;
          if (at + length > text.length || !bucket!.byLength.get(length)!.has(text.slice(at, at + length))) continue;
          out += text.slice(kept, at) + REDACTED;
          kept = at + length;
          break;
        }
      }
      if (at + ANCHOR >= text.length) break;
      hash = (Math.imul(hash - Math.imul(text.charCodeAt(at), BASE_TOP), BASE) + text.charCodeAt(at + ANCHOR)) | 0;
    }
    return kept === 0 ? text : out + text.slice(kept);
  }
}

const index = /* @__PURE__ */ new SecretIndex();

/** `text` with every value a live client or session remembers masked, in one pass. */
export function maskRemembered(text: string): string {
  return index.mask(text);
}

/** What a memory holds, by kind: released from the index once its owner is collected. */
type Held = Map<SecretKind, Set<string>>;

const release = (held: Held): void => {
  for (const values of held.values()) for (const value of values) index.remove(value);
};
// Where the runtime has none, a memory's values stay remembered for the life of the process.
const collected = /* @__PURE__ */ (() => (typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<Held>(release) : undefined))();

/** What a memory holds: client secrets, tokens, a login's code and verifier, request signatures. */
export type SecretKind = 'secret' | 'token' | 'login' | 'signature';

/**
 * What one client, or one customer session, remembers to mask in any text: per kind, its most
 * recent values up to that kind's limit (no limit: never forgotten). What other clients, sessions
 * or logins remember never evicts it; once its owner is garbage-collected, it is forgotten.
 */
export class SecretMemory {
  readonly #held: Held = new Map();
  readonly #limits: Readonly<Partial<Record<SecretKind, number>>>;

  constructor(limits: Readonly<Partial<Record<SecretKind, number>>>) {
    this.#limits = limits;
    collected?.register(this, this.#held);
  }

  /** Remembers `value` (8 characters or more) as `kind`, or makes it that kind's most recent again; past the kind's limit, its oldest is forgotten. */
  remember(kind: SecretKind, value: unknown): void {
    if (typeof value !== 'string' || value.length < ANCHOR) return;
    let values = this.#held.get(kind);
    if (values === undefined) this.#held.set(kind, (values = new Set()));
    if (values.delete(value)) return void values.add(value);
    values.add(value);
    index.add(value);
    if (values.size <= (this.#limits[kind] ?? Infinity)) return;
    const oldest = values.values().next().value!;
    values.delete(oldest);
    index.remove(oldest);
  }
}

/** A client's memory: its secrets for its whole life, its last 64 logins, 512 tokens and 512 signatures. */
export const clientMemory = (): SecretMemory => new SecretMemory({ login: 64, token: 512, signature: 512 });

/** A customer session's memory: its current token set and the one before. */
export const sessionMemory = (): SecretMemory => new SecretMemory({ token: 4 });
