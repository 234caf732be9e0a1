import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { OperationSchemas } from '../../src/core/operation.js';
import { OPERATIONS } from '../../src/resources/namespaces.js';
import * as accounts from '../../src/schemas/accounts.js';
import * as bills from '../../src/schemas/bills.js';
import * as cards from '../../src/schemas/cards.js';
import * as customers from '../../src/schemas/customers.js';
import * as directDebits from '../../src/schemas/direct-debits.js';
import * as disputes from '../../src/schemas/disputes.js';
import * as savings from '../../src/schemas/savings.js';
import * as transfers from '../../src/schemas/transfers.js';
import { registrationRequestSchema } from '../../src/auth/registration.js';

// DESIGN "The API described": every request and response schema converts with z.toJSONSchema,
// input and output, with no unrepresentable part (zod throws on one by default).

const tables: Record<string, OperationSchemas> = Object.assign({}, ...[accounts, bills, cards, customers, directDebits, disputes, savings, transfers].map((m) => m.schemas));

describe('every operation schema is JSON Schema', () => {
  it('each declared operation has its schemas, and each schema belongs to a declared operation', () => {
    expect(Object.keys(tables).sort()).toEqual(OPERATIONS.map((op) => op.name).sort());
    for (const op of OPERATIONS) {
      const schemas = tables[op.name]!;
      expect(schemas.response, op.name).toBeDefined();
      expect(schemas.body !== undefined, op.name).toBe(op.input === 'body');
      expect(schemas.query !== undefined, op.name).toBe(op.input === 'query' || op.input === 'optional-query');
      // The path template's parameters, by name: the object the client checks them with.
      const params = schemas.params && (z.toJSONSchema(schemas.params, { io: 'input' }) as { properties?: object; required?: string[] });
      expect(params && Object.keys(params.properties ?? {}), op.name).toEqual(op.params.length > 0 ? op.params : undefined);
      expect(params?.required, op.name).toEqual(op.params.length > 0 ? op.params : undefined);
    }
  });

  for (const op of OPERATIONS) {
    for (const part of ['body', 'query', 'response'] as const) {
      it(`${op.name} ${part} converts, input and output`, () => {
        const schema = tables[op.name]?.[part];
        if (!schema) return;
        for (const io of ['input', 'output'] as const) {
          const json = z.toJSONSchema(schema, { io }) as { type?: string; properties?: object; items?: { type?: string } };
          const described = json.type === 'array' ? json.items : json;
          expect(described?.type, `${op.name} ${part} ${io}`).toBe('object');
        }
      });
    }
  }

  it('the registration body converts too, its refinements on a typed base', () => {
    for (const io of ['input', 'output'] as const) {
      const json = z.toJSONSchema(registrationRequestSchema, { io }) as { required?: string[] };
      expect(json.required).toEqual(expect.arrayContaining(['username', 'password', 'app_name', 'redirect_url']));
    }
  });

  it('the checks show in the JSON Schema: lengths, patterns and enums of cards.create', () => {
    const json = z.toJSONSchema(cards.createCardSchema(), { io: 'input' }) as { properties: Record<string, Record<string, unknown>>; additionalProperties?: boolean };
    expect(json.additionalProperties).toBe(false);
    expect(json.properties.card_holder_name).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
    expect(json.properties.account_number).toMatchObject({ type: 'string', pattern: '^\\d{10}$' });
    expect(json.properties.card_status).toMatchObject({ enum: expect.arrayContaining(['ACTIVE']) });
  });
});
