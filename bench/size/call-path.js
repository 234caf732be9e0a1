// Reference, not a budget: what a client limited to the call path would bundle (the pipeline,
// client-credentials tokens and `cards`, without the OAuth flows, customer sessions, registration
// and the other namespaces that `OpenBanking` carries). Built from the sources, as a measure of
// how far a different public surface could go; the package offers no such client.
import { ClientCredentialsTokens } from '../../src/auth/client-credentials.ts';
import { OperationRunner } from '../../src/core/call.ts';
import { FieldCrypto } from '../../src/core/field-crypto.ts';
import { resolveOptions } from '../../src/options.ts';
import { Cards } from '../../src/resources/cards.ts';
import { card } from './card.js';

const config = resolveOptions({ clientId: 'client-id', clientSecret: 'client-secret', environment: 'sandbox', dangerouslyAllowBrowser: true });
const grant = { clientId: config.clientId, clientSecret: config.clientSecret, authUrl: config.authUrl, fetch: config.fetch, timeout: config.timeout, now: config.now, endpoints: config.endpoints, loopback: false };
const tokens = new ClientCredentialsTokens(grant, config.tokenStore);
const runner = new OperationRunner({
  config,
  crypto: new FieldCrypto(config),
  endpoints: config.endpoints,
  operationScopes: {},
  clientTokens: tokens,
  customerBearer: undefined,
  clock: { now: config.now, sleep: config.sleep },
});
new Cards(runner)
  .create(card)
  .then((created) => console.log(created.card_id));
