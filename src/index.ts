/**
 * openbanking-ng: the typed client for the Open Banking Nigeria API.
 * @module openbanking-ng
 */
export { OpenBanking, type RequestParams } from './client.js';
export type { ClientOptions, Environment, Endpoints, HeaderNames, Hosts, RateLimit, RateLimitOption } from './options.js';
export { DEFAULT_ENDPOINTS, DEFAULT_HEADER_NAMES, SANDBOX_HOSTS, PUBLISHED_RATE_LIMITS } from './options.js';
export type { RequestOptions } from './core/validation.js';
export type { HttpMethod } from './core/http.js';
export type {
  CallEndEvent,
  CallStartEvent,
  ClientEventListener,
  ClientEventName,
  ClientEvents,
  RateLimitWaitEvent,
  RequestEvent,
  ResponseEvent,
  RetryEvent,
  RetryReason,
  TokenEvent,
  TokenGrant,
} from './core/event-types.js';
export type { APIPromise, Envelope, WithResponse } from './core/promise.js';
export type { PagePromise } from './core/promise.js';
export { OPERATION_SCOPES, type OperationName } from './core/scopes.js';
export type { TokenKind } from './core/operation.js';
export type { Logger, LogLevel } from './core/logger.js';
export type { SignatureEncoding } from './crypto/bytes.js';
export type { Sleep } from './core/retry-timing.js';
export { SCOPES, type Scope, type ScopeInput } from './core/scopes.js';
export { MemoryTokenStore, type TokenStore } from './auth/client-credentials.js';
export type { TokenSet, TokenSetInput } from './auth/token-cache.js';
export { type FleetBucket, type FleetStore, type FleetTake, MemoryFleetStore } from './core/store.js';
export {
  Auth,
  type AuthorizationUrlParams,
  type DeviceCodeOptions,
  type ExchangeCodeParams,
  type GrantOptions,
  type PollDeviceTokenOptions,
} from './auth/ob-auth.js';
export { createAuthorizationRequest } from './auth/pkce.js';
export { parseAuthorizationCallback, type AuthorizationCallback, type AuthorizationCallbackOptions } from './auth/pkce.js';
export type { AuthorizationRequest, AuthorizationRequestParams } from './auth/pkce.js';
export { CustomerSession, type CustomerConsent, type CustomerSessionOptions } from './auth/customer-session.js';
export type { DeviceAuthorization, DeviceConsentMetadata } from './auth/ob-auth.js';
export {
  normaliseRegistration,
  type FetchRegistrationParams,
  type RegisterParams,
  type Registration,
  type RegistrationConnection,
  type RegistrationFields,
} from './auth/registration.js';
export { type FieldCipher, plaintextCipher } from './crypto/ciphers.js';
export { aesGcmCipher } from './crypto/ciphers.js';
export { aesCbcCipher } from './crypto/ciphers.js';
export {
  Cards,
  type Card,
  type CardAddress,
  type CardExpiry,
  type CardList,
  type CreateCardParams,
  type CustomProperty,
  type ListedCard,
} from './resources/cards.js';
export { CARD_MODES, CARD_STATUSES, CARD_TYPES, type CardMode, type CardStatus, type CardType } from './schemas/cards.js';
export { Customers, type Customer } from './resources/customers.js';
export {
  AccountBalancesResource,
  AccountHolds,
  Accounts,
  AccountTransactions,
  type Account,
  type AccountBalances,
  type AccountList,
  type AccountTransaction,
  type AccountTransactionPage,
  type Hold,
  type HoldList,
  type HoldReference,
  type OpenAccountParams,
  type OpenedAccount,
  type PathParam,
  type PlaceHoldParams,
  type TransactionListParams,
  type TransactionSummary,
  type UpdateHoldParams,
} from './resources/accounts.js';
export {
  Transfers,
  type CreateTransferParams,
  type NameEnquiry,
  type NameEnquiryParams,
  type Transfer,
  type TransferStatus,
} from './resources/transfers.js';
export { TRANSFER_PENDING_STATUSES, type WaitForCompletionOptions } from './resources/transfers.js';
export {
  BillerCategories,
  Billers,
  Bills,
  type Biller,
  type BillerCategory,
  type BillerList,
  type BillerProduct,
  type BillPayment,
  type BillValidation,
  type PayBillParams,
} from './resources/bills.js';
export { DisputeCategories, Disputes, type CreateDisputeParams, type Dispute, type DisputeCategory, type DisputeCategoryList } from './resources/disputes.js';
export {
  DirectDebits,
  type ChargeMandateParams,
  type CreateMandateParams,
  type Mandate,
  type MandateList,
  type MandateResult,
  type UpdateMandateParams,
} from './resources/direct-debits.js';
export {
  SavingsResource,
  SavingsTransactions,
  type Savings,
  type SavingsList,
  type SavingsTransaction,
  type SavingsTransactionListParams,
  type SavingsTransactionPage,
} from './resources/savings.js';
export { Resource } from './core/call.js';
export { AbortError, CipherError, ConnectionError, OAuthError, OpenBankingError, ResponseTooLargeError, ResponseValidationError, TimeoutError, ValidationError, isAbortError, isCipherError, isConnectionError, isOAuthError, isOpenBankingError, isResponseTooLargeError, isResponseValidationError, isTimeoutError, isValidationError, type OAuthErrorCode, type ValidationIssue } from './errors/base.js';
export { ApiError, AuthenticationError, BadRequestError, InternalServerError, NotFoundError, PermissionDeniedError, RateLimitError, isApiError, isRateLimitError, type ApiErrorInit, type FieldError } from './errors/api.js';
export { ConsentEndedError, isConsentEndedError, type ConsentEndedReason } from './errors/base.js';
export { TransferPendingError, isTransferPendingError } from './resources/transfers.js';
