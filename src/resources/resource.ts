import type { RequestOptions } from '../core/validation.js';
import type { OperationRunner } from './runner.js';

/**
 * A namespace of operations (`ob.cards`, `session.accounts`, …): thin methods over the runner that
 * the client or customer session built it with. The runner is held privately, so printing a
 * namespace shows no part of the client.
 */
export abstract class Resource {
  readonly #runner: OperationRunner;

  /** @internal */
  constructor(runner: OperationRunner) {
    this.#runner = runner;
  }

  /** @internal The runner this namespace's methods call. */
  protected get run(): OperationRunner {
    return this.#runner;
  }

  /** A view for logs: the namespace's name only. */
  toJSON(): Record<string, unknown> {
    return { namespace: this.constructor.name };
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `${this.constructor.name} {}`;
  }
}

/**
 * The arguments of a method whose operation takes no input: `list(options)` or `list(undefined,
 * options)` (per-call options second, like every other method) → `[input, options]`.
 */
export function noInput(first: unknown, second: RequestOptions | undefined): [unknown, RequestOptions | undefined] {
  return second === undefined ? [undefined, first as RequestOptions | undefined] : [first, second];
}
