// What a bundle carries for the full client making one call: construct it and create a card.
import { OpenBanking } from 'openbanking-ng';
import { card } from './card.js';

const ob = new OpenBanking({ clientId: 'client-id', clientSecret: 'client-secret', environment: 'sandbox', dangerouslyAllowBrowser: true });
ob.cards
  .create(card)
  .then((created) => console.log(created.card_id));
