// Runs one guide block (a module) and ends the process when it settles: a block that leaves a
// client or a server open must not hang the run.
import { pathToFileURL } from 'node:url';

process.on('unhandledRejection', (reason) => {
  console.error('unhandled rejection:', reason);
  process.exit(1);
});
try {
  await import(pathToFileURL(process.argv[2]).href);
  process.exit(0);
} catch (error) {
  console.error(error);
  process.exit(1);
}
