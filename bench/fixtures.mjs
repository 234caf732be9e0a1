// What the benchmark's server and clients agree on: credentials, the request body, the answer.
import { createHash } from 'node:crypto';

export const CLIENT_ID = 'bench-client';
export const CLIENT_SECRET = 'bench-secret-5f0c6a1e-7d3b-4b8e-9a51';
export const ACCESS_TOKEN = 'bench-access-token-0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c';
export const CARDS_PATH = '/openapi/v1/cards';
export const TOKEN_PATH = '/oauth2/token';

/** Calls per phase. The warm-up matters: undici needs a few thousand requests to reach its steady state. */
export const PHASES = {
  warmupSequential: 1_500,
  warmupConcurrent: 3_000,
  sequential: 2_000,
  concurrent: 3_000,
  concurrency: 32,
  retry: 1_000,
  retryConcurrency: 8,
  heap: 10_000,
};

/** SHA-256 of `secret;key`, lowercase hex: the spec's `signature` header. */
export const signatureOf = (key) => createHash('sha256').update(`${CLIENT_SECRET};${key}`, 'utf8').digest('hex');

/**
 * A realistic `POST /cards` body (~650 bytes of JSON): a card with its address and a few custom
 * properties. `seq` is carried in a custom property so that the server can tell the attempts of
 * one call apart from another call, whatever idempotency key each carries.
 */
export function cardBody(seq) {
  return {
    product_id: 'prod_visa_classic_ngn_0001',
    card_type: 'PHYSICAL',
    card_mode: 'DEBIT',
    card_status: 'ACTIVE',
    card_currency: 'NGN',
    account_number: '0123456789',
    card_holder_name: 'Adaeze Obi',
    card_default_pin: '1234',
    card_expiry: { month: '09', year: '2029' },
    card_address: { street: '12 Admiralty Way, Lekki', city: 'Lagos', state: 'Lagos', country: 'Nigeria' },
    custom_properties: [
      { id: 'bench_seq', description: 'Call number', type: 'string', value: String(seq).padStart(8, '0') },
      { id: 'channel', description: 'Where the customer asked', type: 'string', value: 'mobile_app' },
      { id: 'branch_code', description: 'Card pick-up branch', type: 'string', value: 'LAG-LEKKI-0042' },
    ],
  };
}

/** The `{status, message, data}` envelope of a created card: 18 fields in `data`. */
export function createdCard(seq) {
  return {
    status: '00',
    message: 'Card created successfully',
    data: {
      card_id: `card_${seq}`,
      card_status: 'ACTIVE',
      customer_id: 'cus_7f3a9c2e51',
      product_id: 'prod_visa_classic_ngn_0001',
      account_number: '0123456789',
      card_scheme: 'VISA',
      card_type: 'PHYSICAL',
      card_mode: 'DEBIT',
      card_currency: 'NGN',
      card_holder_name: 'Adaeze Chukwuemeka Obi',
      card_number: '4187451234567890',
      card_cvv2: '123',
      card_default_pin: '1234',
      card_token: 'tok_5b2f8e1d9c7a4e3b',
      card_expiry: { month: '09', year: '2029' },
      card_address: { street: '12 Admiralty Way, Lekki Phase 1', city: 'Lagos', state: 'Lagos', country: 'Nigeria' },
      created_at: '2025-09-01T10:15:30.000Z',
      updated_at: '2025-09-01T10:15:30.000Z',
    },
  };
}
