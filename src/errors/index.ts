// Every error the SDK raises: the root, the identity host's refusals and the client's own (base.ts), the API's answers (api.ts).
export * from './base.js';
export * from './api.js';
