// Reference, not a budget: the dependencies alone doing what the full client needs for one call
// (ky, oauth4webapi's client-credentials grant, uuid v4, zod/mini with the card schemas), to show
// how much of the full client's bundle is the SDK's own code.
import ky from 'ky';
import * as oauth from 'oauth4webapi';
import { v4 } from 'uuid';
import { cardSchema, createCardSchema } from '../../src/schemas/cards.ts';

const as = { issuer: 'https://identity-sandbox.sparkle.fyi', token_endpoint: 'https://identity-sandbox.sparkle.fyi/oauth2/token' };
const client = { client_id: 'client-id' };
oauth
  .clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost('client-secret'), new URLSearchParams({ scope: 'cards.create' }))
  .then((response) => oauth.processClientCredentialsResponse(as, client, response))
  .then((token) => ky.post('https://api-sandbox.sparkle.fyi/openapi/v1/cards', { headers: { authorization: `Bearer ${token.access_token}`, 'idempotency-key': v4() }, json: createCardSchema().parse({}) }).json())
  .then((envelope) => console.log(cardSchema().parse(envelope.data)));
