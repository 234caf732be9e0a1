// An agent built with the OpenAI Agents SDK (`@openai/agents`) using openbanking-ng-mcp through its
// MCPServerStdio, against the command's built-in local sandbox. The model is a scripted `Model`, so
// no API key is needed: it lists the accounts, reads one's balance from the text it is given, then
// asks for a transfer. The Agents SDK's MCP client cannot ask the person in the chat (it declares
// no elicitation), so the command refuses the transfer with a tool error saying so, and nothing is
// sent; reads work as usual. `--strict-schemas` makes every tool a strict function for OpenAI
// models. With a real model, drop `model` (the SDK then uses OpenAI's, with OPENAI_API_KEY). See
// docs/agents.md.
//
//   npm install openbanking-ng @modelcontextprotocol/server @openai/agents zod
//   node node_modules/openbanking-ng/examples/frameworks/openai-agents.mjs   # Node 22 or later (openai 7 needs it)
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Agent, MCPServerStdio, run, setTracingDisabled, Usage } from '@openai/agents';

setTracingDisabled(true); // the traces would go to OpenAI; there is no key here

// The installed command: `npx -y openbanking-ng-mcp …` in a host's configuration does the same.
const command = join(dirname(createRequire(import.meta.url).resolve('openbanking-ng/package.json')), 'dist', 'bin', 'openbanking-ng-mcp.js');
const bank = new MCPServerStdio({ name: 'openbanking-ng', command: process.execPath, args: [command, '--strict-schemas', '--allow', 'transfers.create', '--max-amount', '50000', '--daily-amount', '200000', '--ledger', 'memory'] });

/** The text of the last tool output the model was given (the Agents SDK passes a tool's text, not its structured content). */
const lastOutput = (input) => input.at(-1).output.map((o) => o.text).join('\n');
const call = (name, args) => ({ type: 'function_call', callId: `call-${name}`, name, arguments: JSON.stringify(args), status: 'completed' });
const turns = [
  () => call('accounts_list', {}),
  (input) => call('accounts_balances_retrieve', { account_number: /^- "(\d{10})" \|/m.exec(lastOutput(input))[1] }),
  // Strict functions send every argument: null for the ones left out.
  () => call('transfers_create', { amount: 5000, source_account_number: '0123456789', destination_bank_code: '000013', destination_account_number: '0987654321', narration: 'Rent for June', reference: null, currency: null, idempotency_key: null }),
  (input) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `I could not send it: ${lastOutput(input).split('\n')[0]}` }] }),
];
let turn = 0;
const model = {
  async getResponse(request) {
    const last = request.input.at(-1);
    if (last?.type === 'function_call_result') console.log(`${last.name} ← ${lastOutput(request.input).replace(/\n/g, '\n    ')}\n`);
    return { output: [turns[turn++](request.input)], usage: new Usage() };
  },
  async *getStreamedResponse() {
    throw new Error('this scripted model does not stream');
  },
};

await bank.connect();
try {
  const agent = new Agent({ name: 'Banker', instructions: 'Help the customer with their bank accounts.', model, mcpServers: [bank], mcpConfig: { convertSchemasToStrict: true } });
  const result = await run(agent, 'What do I have? Then pay my rent: ₦5,000 to 0987654321 at bank 000013.');
  console.log(`model: ${result.finalOutput}`);
  if (!/NotConfirmed/.test(result.finalOutput)) throw new Error('the transfer was not refused for want of a confirmation');
} finally {
  await bank.close();
}
