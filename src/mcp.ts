/**
 * openbanking-ng/mcp: a Model Context Protocol server that lets an AI agent call the API through
 * this client for one customer. Read-only by default; money moves only for the operations you
 * allow, within per-call and daily limits, after the person confirms. Needs
 * `@modelcontextprotocol/server` (`npm install @modelcontextprotocol/server`). The command
 * `openbanking-ng-mcp` serves it over stdio or Streamable HTTP. See `docs/agents.md`.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
 * import { OpenBanking, type TokenSet } from 'openbanking-ng';
 * import { createMcpServer } from 'openbanking-ng/mcp';
 * declare const ob: OpenBanking, tokens: TokenSet;
 * const server = createMcpServer(ob, { customer: ob.forCustomer(tokens, { id: 'customer-42' }) });
 * await server.connect(new StdioServerTransport());
 * ```
 * @module openbanking-ng/mcp
 */
export { createMcpServer, createMcpServerFactory } from './mcp/server.js';
export type { AllowName, McpLimits, McpServerOptions } from './mcp/options.js';
export { createConfirmationPage } from './mcp/page.js';
export type { ConfirmationPage, ConfirmationPageOptions } from './mcp/page.js';
export type { ConfirmationLink } from './mcp/channels.js';
