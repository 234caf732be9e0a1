import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { createMcpServer, createMcpServerFactory } from '../../src/mcp.js';
import { bank } from './support.js';

// DESIGN "Agents", row "limits": money tools without both limits are refused at start-up.
describe('createMcpServer options', () => {
  const { ob, session } = bank();

  it('a money tool without both limits throws a ValidationError naming the missing one', () => {
    for (const [limits, missing] of [
      [undefined, ['limits.perCall', 'limits.perDay']],
      [{ perCall: 50_000 }, ['limits.perDay']],
      [{ perDay: 200_000 }, ['limits.perCall']],
    ] as const) {
      for (const create of [createMcpServer, createMcpServerFactory]) {
        const error = (() => {
          try {
            create(ob, { customer: session, allow: ['transfers.create'], limits: limits as never });
          } catch (e) {
            return e;
          }
        })();
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues.filter((i) => i.code === 'missing').map((i) => i.path)).toEqual(missing);
        expect((error as ValidationError).message).toMatch(/transfers\.create/);
      }
    }
  });

  it('every money tool needs them; reads and other writes do not', () => {
    for (const name of ['bills.pay', 'directDebits.charge', 'accounts.holds.create'] as const) expect(() => createMcpServer(ob, { allow: [name] })).toThrow(ValidationError);
    expect(() => createMcpServer(ob, { customer: session })).not.toThrow();
    expect(() => createMcpServer(ob, { customer: session, allow: ['writes', 'cards.create'] })).not.toThrow();
  });

  it('bad options are listed together', () => {
    const error = (() => {
      try {
        createMcpServer(ob, { allow: ['transfers.send' as never, 'transfers.create'], limits: { perCall: -1, perDay: Number.NaN }, confirm: 'maybe' as never, customer: {} as never, extra: 1 } as never);
      } catch (e) {
        return e as ValidationError;
      }
    })();
    expect(error?.issues.map((i) => i.path).sort()).toEqual(['allow.0', 'confirm', 'customer', 'extra', 'ledger', 'limits.perCall', 'limits.perDay']);
    expect(() => createMcpServer({} as never)).toThrow(ValidationError);
  });
});
