// Every error the SDK raises, by concern: the root and its brand, the API's answers, the identity
// host's refusals, and what goes wrong on the client's side.
export * from './base.js';
export * from './api.js';
export * from './local.js';
