/** A finished answer kept for replay under its idempotency key. */
interface StoredAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

interface KeyRecord {
  fingerprint: string;
  answer: StoredAnswer | undefined;
  pending: Promise<StoredAnswer | undefined> | undefined;
}

/** What {@link IdempotencyStore.run} decided. */
export type IdempotentResult = { kind: 'fresh' | 'replayed'; response: Response } | { kind: 'reused' };

/** JSON with sorted keys, so two bodies that mean the same compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Idempotency keys per client. The first request with a key runs; a later one with the same key
 * and the same request gets the first answer again (marked `idempotent-replayed: true`), even
 * while the first is still running; the same key with another request is refused. Only 2xx
 * answers are kept: after a refusal the key may be used again.
 */
export class IdempotencyStore {
  readonly #keys = new Map<string, KeyRecord>();

  reset(): void {
    this.#keys.clear();
  }

  async run(scope: string, key: string, fingerprint: string, handler: () => Promise<Response>): Promise<IdempotentResult> {
    const id = `${scope}\u0000${key}`;
    for (;;) {
      const existing = this.#keys.get(id);
      if (!existing) break;
      if (existing.fingerprint !== fingerprint) return { kind: 'reused' };
      const answer = existing.answer ?? (await existing.pending);
      if (answer) return { kind: 'replayed', response: replay(answer) };
      // The first request with this key was refused; this one runs on its own.
    }
    let settle!: (answer: StoredAnswer | undefined) => void;
    const record: KeyRecord = { fingerprint, answer: undefined, pending: new Promise((resolve) => (settle = resolve)) };
    this.#keys.set(id, record);
    let answer: StoredAnswer | undefined;
    try {
      const response = await handler();
      if (response.status >= 200 && response.status < 300) {
        answer = { status: response.status, headers: [...response.headers], body: await response.clone().text() };
        record.answer = answer;
        record.pending = undefined;
      }
      return { kind: 'fresh', response };
    } finally {
      if (!answer && this.#keys.get(id) === record) this.#keys.delete(id);
      settle(answer);
    }
  }
}

function replay(answer: StoredAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set('idempotent-replayed', 'true');
  return new Response(answer.body, { status: answer.status, headers });
}
