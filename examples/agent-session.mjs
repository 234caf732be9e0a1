// An AI agent's session through the MCP server of openbanking-ng/mcp, against the local sandbox: the
// agent lists its tools, reads the customer's accounts, sends a transfer the person confirms, and
// is refused one over the limit. The agent's side is the official MCP client
// (@modelcontextprotocol/client); the person's "yes" comes from its elicitation handler, which prints
// what a real host would show. See docs/agents.md.
//
//   npm install openbanking-ng @modelcontextprotocol/server @modelcontextprotocol/client
//   node node_modules/openbanking-ng/examples/agent-session.mjs
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { OpenBanking, OPERATION_SCOPES } from 'openbanking-ng';
import { createMcpServer } from 'openbanking-ng/mcp';
import { createSandbox } from 'openbanking-ng/testing';

// The bank: the in-process sandbox, an application, and a customer who consented to everything.
const sandbox = createSandbox({ clients: [{ clientId: 'agent-demo', clientSecret: 'agent-demo-secret', name: 'Agent demo' }] });
const ob = new OpenBanking({ clientId: 'agent-demo', clientSecret: 'agent-demo-secret', baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl, fetch: sandbox });
const scope = [...new Set(Object.values(OPERATION_SCOPES).flat())];
const customer = ob.forCustomer(sandbox.issueTokens({ clientId: 'agent-demo', scope, kind: 'customer' }), { id: 'customer-42' });

// The server: reads, plus transfers within 50 000 per call and 60 000 per Lagos day, each confirmed.
// The day's total lives in memory here (a restart starts the day again); give the client a fleet to keep it.
const server = createMcpServer(ob, { customer, allow: ['transfers.create'], limits: { perCall: 50_000, perDay: 60_000 }, ledger: 'memory' });

// The agent's MCP client, and the person answering its confirmations.
const agent = new Client({ name: 'example-agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
agent.setRequestHandler('elicitation/create', async (request) => {
  console.log(`\n  ┌ the person is asked\n${String(request.params.message).replace(/^/gm, '  │ ')}\n  └ and ticks "Confirm"\n`);
  return { action: 'accept', content: { confirm: true } };
});
const [agentSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
await agent.connect(agentSide);

/**
 * One tool call as the agent makes it, printed with its result (its structured content returned).
 * @param {string} name
 * @param {Record<string, unknown>} [args]
 * @returns {Promise<any>}
 */
async function call(name, args = {}) {
  console.log(`agent → ${name} ${JSON.stringify(args)}`);
  const result = await agent.callTool({ name, arguments: args });
  const text = result.content.map((c) => ('text' in c ? c.text : '')).join('\n');
  console.log(`${result.isError ? 'error' : 'result'} ← ${text.length > 300 ? `${text.slice(0, 300)}…` : text}\n`);
  return result.structuredContent;
}

const { tools } = await agent.listTools();
console.log(`tools (${tools.length}): ${tools.map((t) => t.name).join(', ')}\n`);

const accounts = await call('accounts_list');
const [account] = accounts.accounts;
await call('accounts_balances_retrieve', { account_number: account.account_number });

const transfer = { amount: 45_000, source_account_number: account.account_number, destination_bank_code: '000013', destination_account_number: '0987654321', narration: 'Rent for June' };
const sent = await call('transfers_create', transfer);
await call('transfers_wait', { batch_reference: sent.batch_reference, timeout: 10_000 });

// 45 000 sent today: another 45 000 would pass the day's 60 000. Refused before the person is asked.
await call('transfers_create', { ...transfer, narration: 'Rent again' });

console.log(`The bank moved money ${sandbox.payments().length} time(s): ${sandbox.payments().map((p) => `${p.amount} NGN under key ${p.idempotencyKey}`).join('; ')}`);
await agent.close();
