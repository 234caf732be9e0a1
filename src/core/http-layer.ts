/**
 * ky and uuid, loaded by the transport with the first request rather than with the package (see
 * `httpLayer` in transport.ts). Static imports here keep bundlers able to tree-shake uuid.
 */
import ky from 'ky';
import { v4 } from 'uuid';

export { ky, v4 as uuid };
