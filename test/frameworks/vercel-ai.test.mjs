// The Vercel AI SDK (`ai` 7 with `@ai-sdk/mcp` 2, its MCP client) driving openbanking-ng-mcp over
// stdio, the model being the SDK's own mock (`MockLanguageModelV4` from ai/test): no API key, every
// step scripted. The AI SDK's client declares form elicitation when given a handler, so a money
// tool asks the person through it (DESIGN "Agents", row "confirmation") and sends only once they
// accept. Runs on Node 22: node scripts/agent-frameworks.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { BIN, bank, MONEY, TRANSFER } from './support.mjs';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const toolCall = (toolName, input) => ({ content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] });
const answer = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });
/** The text of the last tool result the model was given. */
const lastToolText = (prompt) => prompt.at(-1).content.map((part) => part.output.value.map((v) => v.text).join('\n')).join('\n');

/** The model reads the balances, then asks for the transfer; `person` answers the confirmation. */
async function session(b, person) {
  const asked = [];
  const mcp = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: [BIN, ...MONEY], env: b.env }), capabilities: { elicitation: {} } });
  mcp.onElicitationRequest(ElicitationRequestSchema, async (request) => (asked.push(request.params.message), person));
  const seen = [];
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      if (seen.length > 0 || prompt.at(-1).role === 'tool') seen.push(lastToolText(prompt));
      if (seen.length === 0) return toolCall('accounts_balances_retrieve', { account_number: TRANSFER.source_account_number });
      if (seen.length === 1) return toolCall('transfers_create', TRANSFER);
      return answer('Done.');
    },
  });
  try {
    const tools = await mcp.tools();
    const result = await generateText({ model, tools, prompt: 'Pay my rent: ₦5,000 to 0987654321 at bank 000013.', stopWhen: isStepCount(4) });
    return { tools, asked, seen, result };
  } finally {
    await mcp.close();
  }
}

describe('the Vercel AI SDK, its MCP client and a mock model', () => {
  let b;
  before(async () => (b = await bank()));
  after(() => b.close());

  it('reads the balances, then the transfer: the person confirms it through the form and it is sent once', async () => {
    const before = b.transfers();
    const { tools, asked, seen } = await session(b, { action: 'accept', content: { confirm: true } });
    assert.match(tools.transfers_create.description, /Moves money: a person confirms every call before it is sent, and the server refuses more than ₦50,000\.00 per call/);
    assert.match(seen[0], /^available_balance: \d+/m, 'the model read the balances as text');
    assert.equal(asked.length, 1);
    assert.match(asked[0], /^Amount: ₦5,000\.00 \(5000 NGN\)$/m);
    assert.match(asked[0], /^To: account "0987654321" at bank "000013"$/m);
    assert.match(seen[1], /^batch_reference: "B\w+"$/m, 'the model read the transfer\'s batch reference as text');
    assert.match(seen[1], /^idempotency_key: "[\w-]+"$/m);
    assert.equal(b.transfers() - before, 1);
  });

  it('the person declines: the model reads a tool error and nothing is sent', async () => {
    const before = b.transfers();
    const { asked, seen } = await session(b, { action: 'decline' });
    assert.equal(asked.length, 1);
    assert.match(seen[1], /^NotConfirmed: The person declined: nothing was sent\./);
    assert.equal(b.transfers() - before, 0);
  });
});
