// The hand-written script after importing the SDK's three external runtime dependencies (ky, uuid,
// oauth4webapi, as installed with the package): what loading them costs by itself, so that
// bench/first-call.mjs can tell the libraries' share of the first call from the SDK's own.
import 'ky';
import 'uuid';
import 'oauth4webapi';

await import('./fetch.mjs');
