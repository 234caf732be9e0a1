// What the agent frameworks' tests share: the sandbox served on 127.0.0.1 (its counters say what
// was sent), a consented customer's tokens in a file, and the openbanking-ng-mcp command of the
// package in front of them, as a host would start it. Runs on Node 22 (scripts/agent-frameworks.mjs).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { OPERATION_SCOPES } from 'openbanking-ng';
import { startSandboxServer } from 'openbanking-ng/testing';

const APP = { clientId: 'framework-app', clientSecret: 'framework-app-secret' };
const root = dirname(createRequire(import.meta.url).resolve('openbanking-ng/package.json'));

/** The installed command's script. */
export const BIN = join(root, 'dist', 'bin', 'openbanking-ng-mcp.js');
/** A transfer the person is asked to confirm. */
export const TRANSFER = { amount: 5_000, source_account_number: '0123456789', destination_bank_code: '000013', destination_account_number: '0987654321', narration: 'Rent for June' };
/** Money flags: transfers within ₦50,000 a call and ₦200,000 a day, the day's total in memory. */
export const MONEY = ['--allow', 'transfers.create', '--max-amount', '50000', '--daily-amount', '200000', '--ledger', 'memory'];

/** A sandbox on 127.0.0.1 with a consented customer, and the environment that points the command at it. */
export async function bank() {
  const server = await startSandboxServer({ clients: [APP], seed: 'frameworks' });
  const dir = mkdtempSync(join(tmpdir(), 'openbanking-ng-frameworks-'));
  const scope = [...new Set(Object.values(OPERATION_SCOPES).flat())];
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify(server.issueTokens({ clientId: APP.clientId, scope, kind: 'customer' })));
  const env = { PATH: process.env.PATH ?? '', OB_CLIENT_ID: APP.clientId, OB_CLIENT_SECRET: APP.clientSecret, OB_BASE_URL: server.baseUrl, OB_AUTH_URL: server.authUrl, OB_CUSTOMER_TOKENS: join(dir, 'tokens.json') };
  return {
    server,
    env,
    /** Transfers the provider received. */
    transfers: () => server.requests.count({ path: '/openapi/v1/transactions/transfer', method: 'POST' }),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
