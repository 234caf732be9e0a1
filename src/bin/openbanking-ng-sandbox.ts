#!/usr/bin/env node
// `npx openbanking-ng-sandbox --port 4010`: the local sandbox for your own code to talk to.
import { runCli } from './cli.js';

runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (result) => {
    if (typeof result === 'number') {
      process.exitCode = result;
      return;
    }
    const stop = (signal: string) => {
      process.stdout.write(`\n${signal}: stopping the sandbox\n`);
      void result.close().then(() => process.exit(0));
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  },
  (error: unknown) => {
    process.stderr.write(`openbanking-ng-sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
