import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * `global.gc`, from `--expose-gc` or switched on here. Throws when neither works: a heap bound
 * measured without collections would pass or fail by chance, so the test fails instead.
 */
export function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  let gc: unknown;
  try {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc');
  } catch (error) {
    throw new Error('gc cannot be exposed in this process: the heap bounds cannot be measured', { cause: error });
  }
  if (typeof gc !== 'function') throw new Error('gc cannot be exposed in this process: the heap bounds cannot be measured');
  return gc as () => void;
}

/** The heap in use after full collections, once the event loop has turned. */
export async function heapAfterGc(gc: () => void): Promise<number> {
  // Node frees the bookkeeping of settled fetches (abort-signal links held through WeakRefs)
  // from tasks of the event loop; calls on an in-process handler settle in microtasks alone, so
  // let the loop turn a few times (not a wait for any condition) before measuring.
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
