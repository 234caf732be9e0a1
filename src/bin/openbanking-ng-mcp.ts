#!/usr/bin/env node
// `npx openbanking-ng-mcp`: the MCP server for an AI agent (see docs/agents.md). Its MCP SDK is an
// optional peer dependency, so the command checks for it before loading anything that needs it.
const PEER = '@modelcontextprotocol/server';

const fail = (message: string) => {
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
};

async function main(): Promise<void> {
  try {
    await import(PEER);
  } catch (error) {
    const missing = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(PEER);
    if (!missing) throw error;
    return fail(`openbanking-ng-mcp needs ${PEER}, an optional peer dependency of openbanking-ng. Install it:\n  npm install ${PEER}`);
  }
  const { runMcpCli } = await import('./mcp-cli.js');
  const running = await runMcpCli(process.argv.slice(2), process.env, { err: (line) => process.stderr.write(`${line}\n`) });
  if (typeof running === 'number') {
    process.exitCode = running;
    return;
  }
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => fail(`openbanking-ng-mcp: ${error instanceof Error ? error.message : String(error)}`));
