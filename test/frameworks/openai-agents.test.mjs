// The OpenAI Agents SDK for JavaScript (`@openai/agents` 0.20) driving openbanking-ng-mcp through
// its MCPServerStdio, the model a scripted `Model` (no API key; tracing off). Its MCP client
// declares no elicitation, so a money tool cannot ask the person in the chat: the tool answers an
// error saying so and nothing is sent (DESIGN "Agents", row "confirmation"). It gives the model only
// a tool's text, so the text carries what the next call needs. Runs on Node 22: node
// scripts/agent-frameworks.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, MCPServerStdio, run, setTracingDisabled, Usage } from '@openai/agents';
import { openAiStrictProblems } from '../support/openai-strict.mjs';
import { BIN, bank, MONEY, TRANSFER } from './support.mjs';

setTracingDisabled(true);

const call = (name, args) => ({ type: 'function_call', callId: `call-${name}-${Math.random().toString(36).slice(2)}`, name, arguments: JSON.stringify(args), status: 'completed' });
const say = (text) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });
/** The text of the last tool output the model was given. */
const lastOutput = (input) => {
  const item = input.at(-1);
  return Array.isArray(item.output) ? item.output.map((o) => o.text).join('\n') : String(item.output?.text ?? item.output);
};

/** A scripted model: each turn sees the request and returns the next items; it records what it was given. */
function scripted(turns) {
  const requests = [];
  return {
    requests,
    async getResponse(request) {
      requests.push(request);
      const output = turns[requests.length - 1](request);
      return { output: [output], usage: new Usage() };
    },
    async *getStreamedResponse() {
      throw new Error('this scripted model does not stream');
    },
  };
}

async function runAgent(b, args, turns) {
  const server = new MCPServerStdio({ name: 'openbanking-ng', command: process.execPath, args: [BIN, ...args], env: b.env });
  await server.connect();
  const model = scripted(turns);
  try {
    const agent = new Agent({ name: 'Banker', instructions: "Help the customer with their bank accounts.", model, mcpServers: [server], mcpConfig: { convertSchemasToStrict: true } });
    const result = await run(agent, 'What do I have, and pay my rent: ₦5,000 to 0987654321 at bank 000013.');
    return { model, result };
  } finally {
    await server.close();
  }
}

describe('the OpenAI Agents SDK, MCPServerStdio and a scripted model', () => {
  let b;
  before(async () => (b = await bank()));
  after(() => b.close());

  it('with --strict-schemas every tool is given to the model as a strict function whose parameters meet OpenAI\'s rules', async () => {
    const { model } = await runAgent(b, ['--strict-schemas', ...MONEY], [() => say('Nothing to do.')]);
    const tools = model.requests[0].tools.filter((t) => t.type === 'function');
    assert.ok(tools.some((t) => t.name === 'transfers_create'));
    for (const tool of tools) {
      assert.equal(tool.strict, true, tool.name);
      assert.deepEqual(openAiStrictProblems(tool.parameters), [], tool.name);
    }
  });

  it('reads the account numbers from text, then the balances; the transfer is a tool error (no elicitation here) and nothing is sent', async () => {
    const before = b.transfers();
    let account;
    const { model, result } = await runAgent(b, ['--strict-schemas', ...MONEY], [
      () => call('accounts_list', {}),
      (request) => {
        // Only the text reaches this model: the first account number is read from it.
        account = /^- "(\d{10})" \|/m.exec(lastOutput(request.input))?.[1];
        return call('accounts_balances_retrieve', { account_number: account });
      },
      () => call('transfers_create', { ...TRANSFER, reference: null, currency: null, idempotency_key: null }),
      (request) => say(lastOutput(request.input)),
    ]);
    assert.equal(account, TRANSFER.source_account_number);
    assert.match(lastOutput(model.requests[2].input), /^available_balance: \d+/m);
    assert.match(result.finalOutput, /^NotConfirmed: /);
    assert.equal(b.transfers() - before, 0);
  });
});
