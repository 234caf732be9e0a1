import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { validCard } from '../support/cards.js';

// The built package carries its own tree-shaken copy of zod/mini; a user's schemas come from their own
// zod. zod 4's core is shared by shape, not by identity, so the two compose (DESIGN, Package).
const built = new URL('../../dist/schemas.js', import.meta.url);

describe("the exported schemas in the user's own zod", () => {
  it.skipIf(!existsSync(built))("compose into the user's zod schema and convert with the user's z.toJSONSchema", async () => {
    const { operations } = (await import(built.href)) as typeof import('../../src/schemas.js');
    const order = z.object({ reference: z.string(), card: operations['cards.create'].body });
    expect(order.safeParse({ reference: 'order-1', card: validCard() }).success).toBe(true);
    const refused = order.safeParse({ reference: 'order-1', card: { card_status: 'ACTIVE' } });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.some((issue) => issue.path[0] === 'card')).toBe(true);
    const schema = z.toJSONSchema(order, { io: 'input' }) as unknown as { properties: { card: { required?: string[] } } };
    expect(schema.properties.card.required).toEqual(expect.arrayContaining(['account_number', 'card_holder_name']));
  });
});
