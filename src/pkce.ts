/**
 * Browser-safe helpers to start the customer's consent with PKCE and read the callback. Never
 * sees a client secret; pulls in no HTTP client, schema library or cipher.
 * @module openbanking-ng/pkce
 */
export { createAuthorizationRequest } from './auth/authorization-request.js';
export { parseAuthorizationCallback, type AuthorizationCallback, type AuthorizationCallbackOptions } from './auth/authorization.js';
export type { AuthorizationRequest, AuthorizationRequestParams } from './auth/authorization.js';
export type { ValidationIssue } from './errors/base.js';
export { OAuthError, isOAuthError, type OAuthErrorCode } from './errors/oauth.js';
export { ValidationError, isValidationError } from './errors/local.js';
export type { Scope, ScopeInput } from './core/scopes.js';
