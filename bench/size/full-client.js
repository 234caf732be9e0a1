// What a bundle carries for the full client making one call: construct it and create a card.
import { OpenBanking } from 'openbanking-ng';

const ob = new OpenBanking({ clientId: 'client-id', clientSecret: 'client-secret', environment: 'sandbox', dangerouslyAllowBrowser: true });
ob.cards
  .create({
    account_number: '0123456789',
    card_holder_name: 'Ada Obi',
    card_status: 'ACTIVE',
    card_default_pin: '1234',
    card_expiry: { month: '09', year: '2029' },
  })
  .then((card) => console.log(card.card_id));
