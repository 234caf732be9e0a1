// The sandbox for bench/walk.mjs, in a process of its own: the sandbox runs modules of src/ too
// (config, errors) to answer, and that work must not count as the client's. Registers one
// application and sends its credentials to the parent; mints a customer token set with a refresh
// token each time the parent asks (refresh tokens rotate: one set per scenario); serves until the
// parent disconnects.
import { register } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..', '..');
register(pathToFileURL(join(import.meta.dirname, 'hooks.mjs')), { data: { src: join(root, 'src') + '/' } });
const { startSandboxServer } = await import(pathToFileURL(join(root, 'src', 'testing.ts')).href);

const server = await startSandboxServer();
const app = server.registerClient();
process.send({ baseUrl: server.baseUrl, authUrl: server.authUrl, clientId: app.clientId, clientSecret: app.clientSecret });
process.on('message', () => process.send(server.issueTokens({ clientId: app.clientId, scope: ['accounts.list.readonly'], kind: 'customer' })));
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
