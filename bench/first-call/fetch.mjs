// The same two requests written by hand with fetch: a client-credentials token, then the card with
// its idempotency key and signature. What a careful integrator writes without the SDK (no
// validation, no retries), the baseline of bench/first-call.mjs.
import { createHash, randomUUID } from 'node:crypto';

const { OB_CLIENT_ID, OB_CLIENT_SECRET, OB_BASE_URL, OB_AUTH_URL } = process.env;
const tokenResponse = await fetch(`${OB_AUTH_URL}/oauth2/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
  body: new URLSearchParams({ grant_type: 'client_credentials', client_id: OB_CLIENT_ID, client_secret: OB_CLIENT_SECRET, scope: 'cards.create' }),
});
if (!tokenResponse.ok) throw new Error(`token: ${tokenResponse.status}`);
const { access_token } = await tokenResponse.json();
const key = randomUUID();
const response = await fetch(`${OB_BASE_URL}/cards`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${access_token}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'idempotency-key': key,
    signature: createHash('sha256').update(`${OB_CLIENT_SECRET};${key}`).digest('hex'),
  },
  body: JSON.stringify({ account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } }),
});
if (response.status !== 201) throw new Error(`card: ${response.status}`);
const { data } = await response.json();
if (!data.card_id) throw new Error('no card');
const usage = process.resourceUsage();
console.log(JSON.stringify({ cpu: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
