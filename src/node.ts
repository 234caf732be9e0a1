/**
 * What only Node can do: the TripleDES cipher through `node:crypto`. The main entry never imports
 * this one, so `openbanking-ng` itself stays runtime-neutral.
 * @module openbanking-ng/node
 */
export { tripleDesCipher } from './crypto/triple-des.js';
