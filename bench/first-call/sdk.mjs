// One whole process with the SDK: import, client, first cards.create against the sandbox, exit.
// Run by bench/first-call.mjs from a scratch project where the packed package is installed.
import { OpenBanking } from 'openbanking-ng';

const { OB_CLIENT_ID, OB_CLIENT_SECRET, OB_BASE_URL, OB_AUTH_URL } = process.env;
const ob = new OpenBanking({ clientId: OB_CLIENT_ID, clientSecret: OB_CLIENT_SECRET, baseUrl: OB_BASE_URL, authUrl: OB_AUTH_URL, logLevel: 'off' });
const card = await ob.cards.create({ account_number: '0123456789', card_holder_name: 'Ada Obi', card_status: 'ACTIVE', card_default_pin: '1234', card_expiry: { month: '09', year: '2029' } });
if (!card.card_id) throw new Error('no card');
const usage = process.resourceUsage();
console.log(JSON.stringify({ cpu: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
