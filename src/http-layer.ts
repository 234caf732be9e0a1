// ky as the client loads it with its first request (`lazyHttpLayer` in core/http.ts): through the
// module of the schemas' shared pieces, which re-exports it, so that a code-splitting bundler puts
// ky, zod and those pieces in one chunk. This module is only the door: the chunk it opens is the
// one every typed call loads anyway.
export { ky } from './schemas/common.js';
