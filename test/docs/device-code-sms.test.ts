import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

// docs/authentication.md's device-code block, run as written against the package's source: the SMS it
// sends carries the user code the customer must enter, whatever the provider's consent_message says.
const root = resolve(import.meta.dirname, '../..');

/** The ts block of `guide` whose first line names `file`. */
function block(guide: string, file: string): string {
  const found = [...readFileSync(join(root, guide), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).find((code) => code.startsWith(`// ${file}\n`));
  if (!found) throw new Error(`${guide} has no block named ${file}`);
  return found;
}

afterEach(() => vi.restoreAllMocks());

describe('docs/authentication.md, device code', () => {
  it('device-code.mts sends an SMS that carries the user code', async () => {
    const code = block('docs/authentication.md', 'device-code.mts')
      .replace(/from 'openbanking-ng'/g, `from '${join(root, 'src/index.ts')}'`)
      .replace(/from 'openbanking-ng\/testing'/g, `from '${join(root, 'src/testing.ts')}'`);
    const dir = join(root, '.tmp', 'device-code-block');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `device-code-${process.pid}.ts`);
    writeFileSync(file, code);
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    await import(pathToFileURL(file).href);
    const sms = printed.find((line) => line.startsWith('SMS to '));
    expect(sms, printed.join('\n')).toBeDefined();
    // The sandbox's user codes: five readable characters; its consent_message names none.
    expect(sms).toMatch(/Your code: [A-HJ-NP-Z2-9]{5}$/);
    expect(printed.at(-1)).toMatch(/^\d+ accounts$/);
  }, 20_000);
});
