// An agent built with the Vercel AI SDK (`ai` and its MCP client `@ai-sdk/mcp`) using openbanking-ng-mcp,
// started over stdio as any host starts it, against the command's built-in local sandbox. The
// model is the AI SDK's mock (`MockLanguageModelV4` from ai/test), scripted so that no API key is
// needed: it reads the balances, then asks for a transfer. The AI SDK's MCP client can ask the
// person (form elicitation), so the command asks them to confirm the exact transfer and sends it
// only once they accept. With a real model, replace the mock by your provider's model. See
// docs/agents.md.
//
//   npm install openbanking-ng @modelcontextprotocol/server ai @ai-sdk/mcp zod
//   node node_modules/openbanking-ng/examples/frameworks/vercel-ai.mjs   # Node 22 or later (ai 7 needs it)
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

// The installed command: `npx -y openbanking-ng-mcp …` in a host's configuration does the same.
const command = join(dirname(createRequire(import.meta.url).resolve('openbanking-ng/package.json')), 'dist', 'bin', 'openbanking-ng-mcp.js');
const mcp = await createMCPClient({
  transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: [command, '--allow', 'transfers.create', '--max-amount', '50000', '--daily-amount', '200000', '--ledger', 'memory'] }),
  // The person answers the confirmations: a real app shows the message and a Confirm button.
  capabilities: { elicitation: {} },
});
mcp.onElicitationRequest(ElicitationRequestSchema, async (request) => {
  console.log(`\n  ┌ the person is asked\n${request.params.message.replace(/^/gm, '  │ ')}\n  └ and confirms\n`);
  return { action: 'accept', content: { confirm: true } };
});

// The scripted model: balances first, then the transfer, then a closing sentence.
const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
const toolCall = (toolName, input) => ({ content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] });
const steps = [
  () => toolCall('accounts_balances_retrieve', { account_number: '0123456789' }),
  () => toolCall('transfers_create', { amount: 5000, source_account_number: '0123456789', destination_bank_code: '000013', destination_account_number: '0987654321', narration: 'Rent for June' }),
  () => ({ content: [{ type: 'text', text: 'Your rent is on its way.' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }),
];
let step = 0;
const model = new MockLanguageModelV4({ doGenerate: async () => steps[step++]() });

try {
  const tools = await mcp.tools();
  console.log(`tools (${Object.keys(tools).length}): ${Object.keys(tools).join(', ')}\n`);
  const result = await generateText({
    model,
    tools,
    prompt: 'Pay my rent: ₦5,000 to 0987654321 at bank 000013.',
    stopWhen: isStepCount(4),
    onStepEnd: (s) => {
      for (const r of s.toolResults) console.log(`${r.toolName} ← ${r.output.content.map((c) => c.text).join('\n').replace(/\n/g, '\n    ')}\n`);
    },
  });
  const sent = result.steps.flatMap((s) => s.toolResults).find((r) => r.toolName === 'transfers_create');
  if (!sent || sent.output.isError || !/^batch_reference: /m.test(sent.output.content[0].text)) throw new Error('the transfer was not sent');
  console.log(`model: ${result.text}`);
} finally {
  await mcp.close();
}
