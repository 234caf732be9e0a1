import { parseArgs } from 'node:util';
import type { SandboxClientInit } from '../testing/options.js';
import { startSandboxServer, type SandboxServer } from '../testing/server.js';

/** Where the command line writes. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

const USAGE = `Usage: openbanking-ng-sandbox [options]

Serves the openbanking-ng local sandbox (registration, OAuth, every typed operation) on 127.0.0.1.

Options:
  -p, --port <n>              port to listen on (default 4010; 0 picks a free one)
  -e, --environment <name>    sandbox (default: registrations approved at once)
                              or production (registrations wait for approval)
      --rate-limits           answer 429 past the environment's published limits
      --seed <value>          repeatable identifiers and tokens (predictable by design:
                              anyone who knows the seed can guess them; tests only)
      --client-id <id>        pre-register an application with this client id ...
      --client-secret <s>     ... and this client secret (both or neither)
      --redirect-uri <uri>    ... accepting this redirect URI (repeatable)
      --auto-approve          act as a customer who approves every consent: GET /oauth/authorize
                              redirects back with a code at once, device codes are approved
                              as issued (for scripts; no consent page)
  -v, --verbose               print one line per request (method, path, status)
  -h, --help                  show this help`;

/**
 * Parses the command line and starts the server. Resolves to the running server, or to an exit
 * code when there is nothing to serve (help, bad arguments).
 */
export async function runCli(argv: readonly string[], io: CliOutput): Promise<SandboxServer | number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string', short: 'p', default: '4010' },
        environment: { type: 'string', short: 'e', default: 'sandbox' },
        'rate-limits': { type: 'boolean', default: false },
        seed: { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        'auto-approve': { type: 'boolean', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`openbanking-ng-sandbox: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const port = Number(values.port);
  const problems: string[] = [];
  if (!/^\d+$/.test(values.port) || port > 65535) problems.push('--port must be a number from 0 to 65535');
  if (values.environment !== 'sandbox' && values.environment !== 'production') problems.push('--environment must be sandbox or production');
  if ((values['client-id'] === undefined) !== (values['client-secret'] === undefined)) problems.push('--client-id and --client-secret go together');
  if (values['redirect-uri'] && values['client-id'] === undefined) problems.push('--redirect-uri needs --client-id and --client-secret');
  for (const uri of values['redirect-uri'] ?? []) if (!URL.canParse(uri)) problems.push(`--redirect-uri ${uri} is not an absolute URL`);
  if (problems.length > 0) {
    io.err(`openbanking-ng-sandbox: ${problems.join('; ')}\n\n${USAGE}`);
    return 2;
  }

  const clients: SandboxClientInit[] = [];
  if (values['client-id'] !== undefined && values['client-secret'] !== undefined) {
    clients.push({ clientId: values['client-id'], clientSecret: values['client-secret'], redirectUris: values['redirect-uri'] ?? [] });
  }
  let server: SandboxServer;
  try {
    server = await startSandboxServer({
      port,
      environment: values.environment as 'sandbox' | 'production',
      rateLimits: values['rate-limits'],
      clients,
      autoApprove: values['auto-approve'],
      ...(values.seed !== undefined ? { seed: values.seed } : {}),
      ...(values.verbose ? { onRequest: (r) => io.out(`${new Date(r.at).toISOString()} ${r.method} ${r.path} → ${r.status}${r.fault ? ` (fault: ${r.fault})` : ''}`) } : {}),
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    io.err(`openbanking-ng-sandbox: cannot listen on 127.0.0.1:${port}${code === 'EADDRINUSE' ? ' (the port is in use; try --port 0)' : `: ${(error as Error).message}`}`);
    return 1;
  }

  const limits = values['rate-limits'] ? (values.environment === 'production' ? '10/min, burst 20' : '100/min, burst 200') : 'off';
  io.out(`openbanking-ng sandbox listening (environment: ${server.environment}, rate limits: ${limits}${values['auto-approve'] ? ', consents approved automatically' : ''})`);
  io.out(`  authUrl  ${server.authUrl}   POST /dcr · GET /oauth/authorize · POST /oauth/token · POST /oauth2/token · POST /oauth2/device/code`);
  io.out(`  baseUrl  ${server.baseUrl}   /cards · /customers · /accounts · /transactions · /bills · /disputes · /direct-debits · /savings`);
  if (clients[0]) io.out(`  client   ${clients[0].clientId} (with the secret you gave)`);
  else {
    io.out('  Register an application:');
    io.out(
      `    curl -s ${server.authUrl}/dcr -H 'content-type: application/json' -d '{"username":"me","password":"change-me","app_name":"My app","redirect_url":"http://127.0.0.1:3000/callback"}'`,
    );
  }
  io.out('Press Ctrl+C to stop.');
  return server;
}
