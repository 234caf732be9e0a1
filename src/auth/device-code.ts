import * as oauth from 'oauth4webapi';
import type { Sleep } from '../core/retry-timing.js';
import { AbortError, OAuthError } from '../errors/index.js';
import { authorizationServer, requestOptions, runGrant } from './grant.js';
import { type GrantContext, toTokenSet } from './grant-context.js';
import type { TokenSet } from './token-store.js';

/**
 * The provider's consent details on a device authorization (Sparkle's `obn_custom_metadata`).
 * @group OAuth
 */
export interface DeviceConsentMetadata {
  /** How the customer confirms consent, e.g. `'OAUTH2'`. */
  consent_validation_method?: string;
  /** Text to show (or send by SMS/USSD) to the customer. */
  consent_message?: string;
  /** Consent state, e.g. `'PENDING_VALIDATION'`. */
  consent_status?: string;
  [extra: string]: unknown;
}

/**
 * The device-authorization response (RFC 8628 §3.2), as the identity host sent it: unknown members
 * are kept.
 * @group OAuth
 */
export interface DeviceAuthorization {
  /** The code the backend polls the token endpoint with. Keep it secret. */
  device_code: string;
  /** The short code the customer confirms, e.g. `'BZ4K8'`. */
  user_code: string;
  /** Where the customer enters the code. */
  verification_uri: string;
  /** The verification URI with the code filled in, when the host sends one. */
  verification_uri_complete?: string;
  /** Seconds to wait between polls (5 when absent). */
  interval?: number;
  /** Lifetime of the codes in seconds. */
  expires_in: number;
  /** The provider's consent details (Sparkle sends them on every response). */
  obn_custom_metadata?: DeviceConsentMetadata;
  [extra: string]: unknown;
}

/** RFC 8628 §3.5: the default polling interval, and how much `slow_down` adds, in seconds. */
export const DEVICE_POLL_INTERVAL = 5;
/** The shortest wait between polls (seconds), whatever the server's `interval`. */
export const MIN_DEVICE_POLL_INTERVAL = 1;
export const SLOW_DOWN_STEP = 5;

/** When each device authorization this SDK returned was received (ms), for the local expiry check. */
const receivedAt = new WeakMap<object, number>();

/** Asks for a device code (POST `{auth_url}/oauth2/device/code`, form `client_id`, `scope`, `target_connection_id`). */
export async function requestDeviceAuthorization(
  ctx: GrantContext,
  path: string,
  scope: string,
  targetConnectionId: string | undefined,
  signal?: AbortSignal,
): Promise<DeviceAuthorization> {
  const url = ctx.authUrl + path;
  const as = authorizationServer(ctx, { device_authorization_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  return runGrant(
    'device authorization request',
    async () => {
      const params = new URLSearchParams({ scope });
      if (targetConnectionId !== undefined) params.set('target_connection_id', targetConnectionId);
      // The spec's form has `client_id` and no secret: client authentication "none".
      const response = await oauth.deviceAuthorizationRequest(as, client, oauth.None(), params, requestOptions(ctx, url, signal));
      const result = { ...(await oauth.processDeviceAuthorizationResponse(as, client, response)) } as DeviceAuthorization;
      receivedAt.set(result, ctx.now());
      return result;
    },
    signal,
  );
}

/** What {@link pollDeviceAuthorization} needs beyond the grant context. */
export interface DevicePoll {
  tokenPath: string;
  deviceCode: string;
  /** Seconds between polls. */
  interval: number;
  /** The device authorization the code came from, for its expiry. */
  authorization?: DeviceAuthorization | undefined;
  sleep: Sleep;
  signal?: AbortSignal | undefined;
}

/**
 * Polls the token endpoint with `grant_type=urn:ietf:params:oauth:grant-type:device_code` until
 * the customer answers: waits `interval` seconds before each poll, keeps going on
 * `authorization_pending`, adds 5 s to the interval on `slow_down`, and rejects with the
 * `OAuthError` of any other answer (`access_denied`, `expired_token`, ...).
 */
export async function pollDeviceAuthorization(ctx: GrantContext, poll: DevicePoll): Promise<TokenSet> {
  const url = ctx.authUrl + poll.tokenPath;
  const as = authorizationServer(ctx, { token_endpoint: url });
  const client: oauth.Client = { client_id: ctx.clientId };
  const { signal } = poll;
  const expiresIn = poll.authorization?.expires_in;
  const deadline =
    typeof expiresIn === 'number' && poll.authorization ? (receivedAt.get(poll.authorization) ?? ctx.now()) + expiresIn * 1000 : undefined;
  const expired = () => new OAuthError('expired_token', 'the device code expired before the customer answered; request a new one');
  let interval = poll.interval;
  for (;;) {
    // Never sleep past the code's expiry: a wait that would end after it ends at it.
    const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - ctx.now();
    if (left <= 0) throw expired();
    try {
      await poll.sleep(Math.min(interval * 1000, left), signal);
    } catch {
      throw new AbortError('device code polling: aborted');
    }
    if (signal?.aborted) throw new AbortError('device code polling: aborted');
    if (interval * 1000 >= left || (deadline !== undefined && ctx.now() >= deadline)) throw expired();
    try {
      return await runGrant(
        'device code grant',
        async () => {
          const response = await oauth.deviceCodeGrantRequest(as, client, oauth.ClientSecretPost(ctx.clientSecret), poll.deviceCode, requestOptions(ctx, url, signal));
          return toTokenSet(await oauth.processDeviceCodeResponse(as, client, response), ctx.now());
        },
        signal,
        ctx,
      );
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.error === 'authorization_pending') continue;
      if (error.error === 'slow_down') {
        interval += SLOW_DOWN_STEP;
        continue;
      }
      throw error;
    }
  }
}
