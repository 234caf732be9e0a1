/**
 * A value loaded once, on first use, and read synchronously after that: how the pipeline defers
 * modules whose import is costly (ky, uuid, zod and the schemas built with it) from the import
 * of the package to the first call that needs them. Once loaded, `value` is set, so the hot path
 * pays no promise and no microtask: `lazy.value ?? (await lazy.load())`.
 */
export class Lazy<T> {
  /** The loaded value, or `undefined` until the first `load()` settles. */
  value: T | undefined;
  #loading: Promise<T> | undefined;

  constructor(private readonly loader: () => Promise<T>) {}

  /** Loads the value, once; concurrent callers share the load, and a failed load is tried again by the next call. */
  load(): Promise<T> {
    this.#loading ??= this.loader().then(
      (value) => (this.value = value),
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }
}
