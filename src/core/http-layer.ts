/**
 * ky, loaded by the transport with the first request rather than with the package (see
 * `httpLayer` in http.ts).
 */
import ky from 'ky';

export { ky };
