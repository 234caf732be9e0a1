/**
 * Runs `load` with the `console.warn` lines matching `pattern` dropped (others pass through), for a
 * third-party module that warns when it loads: the warning stays out of the run's output, in the
 * one test file that loads it, and nowhere else.
 */
export async function withoutWarning<T>(pattern: RegExp, load: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!(typeof args[0] === 'string' && pattern.test(args[0]))) warn(...args);
  };
  try {
    return await load();
  } finally {
    console.warn = warn;
  }
}
