/**
 * Browser-safe helpers to start the customer's consent with PKCE and read the callback. Never
 * sees a client secret; pulls in no HTTP client, schema library or cipher.
 * @module openbanking-ng/pkce
 */
export { OAuthError, type OAuthErrorCode } from './errors.js';
