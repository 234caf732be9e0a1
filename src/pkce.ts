/**
 * Browser-safe helpers to start the customer's consent with PKCE and read the callback, and the
 * scopes each operation needs (`OPERATION_SCOPES`) to build the consent request from. Never sees a
 * client secret; pulls in no HTTP client, schema library or cipher.
 * @module openbanking-ng/pkce
 */
export { createAuthorizationRequest } from './auth/pkce.js';
export { parseAuthorizationCallback, type AuthorizationCallback, type AuthorizationCallbackOptions } from './auth/pkce.js';
export type { AuthorizationRequest, AuthorizationRequestParams } from './auth/pkce.js';
export type { ValidationIssue } from './errors/base.js';
export { OAuthError, isOAuthError, type OAuthErrorCode } from './errors/base.js';
export { ValidationError, isValidationError } from './errors/base.js';
export { OPERATION_SCOPES, type OperationName, type Scope, type ScopeInput } from './core/scopes.js';
