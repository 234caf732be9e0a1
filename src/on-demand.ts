// What a client loads only when it uses more than typed API calls: the identity host's other
// flows (`ob.auth`, registration, the main entry's PKCE authorize URL), a customer session's
// refresh, fleet coordination, the `rateLimit` limiter and the parameter checks of `request`; and
// what only a failure needs, how a token endpoint's refusal reads. One module on purpose: a bundler
// puts it in one lazy chunk, and the code it shares with the API call path stays in one chunk
// too, not in a chunk per combination of lazy modules (each chunk boundary costs a few hundred
// bytes of compression on the first call).
export * from './auth/flows.js';
export { fetchRegistration, register } from './auth/register.js';
export { createAuthorizationRequest as createAuthorizationRequestNow } from './auth/authorization.js';
export { connectFleet } from './auth/fleet-tokens.js';
export { customerAccessToken, customerRefreshNow, customerRenew } from './auth/customer-refresh.js';
export { callLimiter } from './core/shared-rate-limiter.js';
export { sendRequest } from './core/request-params.js';
export { errorAnswer } from './auth/token-errors.js';

// Not used from here: a code-splitting bundler (esbuild) gives a module to a chunk of its own when
// more than one entry reaches it, so the modules the client shares with this one would load as a
// chunk beside the client's, about 1 kB more on the first call. Reaching the client from here keeps
// the whole call path in one chunk (bench/README.md, "The first-call budget").
export { OpenBanking as Client } from './client.js';
