import type { AuthorizationRequest } from './authorization.js';
import * as flows from './flows.js';
import type { AuthContext, AuthorizationUrlParams, DeviceAuthorization, DeviceCodeOptions, ExchangeCodeParams, GrantOptions, PollDeviceTokenOptions } from './flows.js';
import type { ScopeInput } from '../core/scopes.js';
import type { TokenSet } from './tokens.js';

export type { AuthContext, AuthorizationUrlParams, DeviceCodeOptions, ExchangeCodeParams, GrantOptions, PollDeviceTokenOptions } from './flows.js';


/**
 * The OAuth 2.0 grants of the identity host: `ob.auth`. Every method returns a promise and
 * reports every failure by rejecting it: `ValidationError` for bad input (nothing is sent),
 * `OAuthError` for an OAuth error answer (`error`, `errorDescription`, `status`),
 * `ConnectionError` / `TimeoutError` when the identity host cannot be reached, `AbortError` when
 * the signal fires. Client authentication is `client_secret_post`.
 *
 * @example
 * ```ts
 * const tokens = await ob.auth.exchangeCode({ code, codeVerifier, redirectUri: 'https://app.example.com/callback' });
 * const fresh = await ob.auth.refresh(tokens.refresh_token);
 * ```
 * @group OAuth
 */
export class Auth {
  /** Private, never an own property: the grant context holds the client secret. */
  readonly #ctx: AuthContext;

  /** @internal */
  constructor(ctx: AuthContext) {
    this.#ctx = ctx;
  }

  /** A view for logs: the identity host and the client id, never the secret. */
  toJSON(): Record<string, unknown> {
    return { authUrl: this.#ctx.grant.authUrl, clientId: this.#ctx.grant.clientId };
  }

  /** @internal */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Auth ${JSON.stringify(this.toJSON())}`;
  }

  /**
   * Builds the authorize URL with PKCE (S256) and `state`, from the client's `authUrl`,
   * `clientId`, `endpoints.authorize` and `redirectUri`. The same as `createAuthorizationRequest`
   * of `openbanking-ng/pkce`, for backends that start the flow themselves.
   *
   * @example
   * ```ts
   * // the scopes of the operations the app will call
   * const scope = [...OPERATION_SCOPES['accounts.list'], ...OPERATION_SCOPES['accounts.transactions.list']];
   * const { url, state, codeVerifier } = await ob.auth.authorizationUrl({ scope });
   * ```
   */
  async authorizationUrl(params: AuthorizationUrlParams): Promise<AuthorizationRequest> {
    return flows.authorizationUrl(this.#ctx, params);
  }

  /**
   * Exchanges the authorization code for the customer's tokens: POST `{auth_url}/oauth/token`
   * with `grant_type=authorization_code`, `client_id`, `client_secret`, `code`, `redirect_uri`
   * and `code_verifier`. A used, expired or unknown code, or a wrong verifier, rejects with
   * `OAuthError('invalid_grant')`.
   *
   * @example
   * ```ts
   * const tokens = await ob.auth.exchangeCode({ code, codeVerifier, redirectUri: 'https://app.example.com/callback' });
   * ```
   */
  async exchangeCode(params: ExchangeCodeParams, options?: GrantOptions): Promise<TokenSet> {
    return flows.exchangeCode(this.#ctx, params, options);
  }

  /**
   * Gets a new token set with a refresh token: POST `{auth_url}/oauth/token` with
   * `grant_type=refresh_token`, `client_id`, `client_secret` and `refresh_token`. The answer may
   * carry a new (rotated) refresh token: store it, the old one may no longer work. When the
   * server does not rotate, the given refresh token is carried over into the new set.
   *
   * Do not retry a refresh that failed with `OAuthError`: with rotating refresh tokens a second
   * attempt only turns into `invalid_grant`.
   *
   * Takes `tokens.refresh_token` as it is typed (optional): a token set without one rejects with
   * `ValidationError` (`refreshToken: is required`) and nothing is sent.
   */
  async refresh(refreshToken: string | undefined, options?: GrantOptions): Promise<TokenSet> {
    return flows.refresh(this.#ctx, refreshToken, options);
  }

  /**
   * Requests a client-credentials token: POST `{auth_url}/oauth2/token` with
   * `grant_type=client_credentials`, `client_id`, `client_secret` and `scope`. Every call makes
   * one request; API calls need none of this, they get (and cache) their tokens themselves.
   *
   * @example
   * ```ts
   * const cc = await ob.auth.clientCredentials(['cards.create']);
   * ```
   */
  async clientCredentials(scopes: ScopeInput, options?: GrantOptions): Promise<TokenSet> {
    return flows.clientCredentials(this.#ctx, scopes, options);
  }

  /**
   * Starts the device-code flow (for customers on USSD, SMS or other limited channels): POST
   * `{auth_url}/oauth2/device/code` with `client_id`, `scope` and, when given,
   * `target_connection_id`. Resolves to the device-authorization response, the provider's
   * `obn_custom_metadata` included; show `user_code` / `obn_custom_metadata.consent_message` to
   * the customer, then call {@link Auth.pollDeviceToken}.
   *
   * @example
   * ```ts
   * const device = await ob.auth.deviceCode([...OPERATION_SCOPES['accounts.list']], { targetConnectionId: 'CONN0987654321' });
   * sendSms(customerPhone, device.obn_custom_metadata?.consent_message ?? `Code: ${device.user_code}`);
   * const tokens = await ob.auth.pollDeviceToken(device, { signal: AbortSignal.timeout(15 * 60_000) });
   * ```
   */
  async deviceCode(scopes: ScopeInput, options?: DeviceCodeOptions): Promise<DeviceAuthorization> {
    return flows.deviceCode(this.#ctx, scopes, options);
  }

  /**
   * Polls `{auth_url}/oauth2/token` with `grant_type=urn:ietf:params:oauth:grant-type:device_code`
   * until the customer answers, as RFC 8628 asks: it waits `interval` seconds (the response's,
   * else 5) before each poll, keeps polling on `authorization_pending`, waits 5 s longer after
   * each `slow_down`, and resolves to the token set once the customer approves. A denial rejects
   * with `OAuthError('access_denied')`, an expired code with `OAuthError('expired_token')`
   * (also checked locally against `expires_in` when the whole response is given). A network
   * failure rejects at once; polling again with the same device code is safe.
   *
   * @param deviceCodeOrResponse - the `device_code`, or the whole response of {@link Auth.deviceCode}
   */
  async pollDeviceToken(deviceCodeOrResponse: string | DeviceAuthorization, options?: PollDeviceTokenOptions): Promise<TokenSet> {
    return flows.pollDeviceToken(this.#ctx, deviceCodeOrResponse, options);
  }
}
