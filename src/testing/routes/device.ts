import { parseScope, type RouteHandler } from '../context.js';
import { devicePage, messagePage } from '../html.js';
import { htmlPage, json, oauthError } from '../responses.js';
import type { DeviceRecord } from '../tokens.js';
import { authenticateClient, readForm, unknownScopes } from './oauth-common.js';

/** The text the provider shows the customer on a limited channel. */
function consentMessage(appName: string, scopes: readonly string[], verificationUri: string): string {
  return `${appName} requests access to: ${scopes.join(', ')}. Enter the code shown on your device at ${verificationUri} to approve or deny.`;
}

/**
 * `POST {auth_url}/oauth2/device/code` (form: `client_id`, `scope`, optional
 * `target_connection_id`): the device authorization response of the provider's reference, with
 * its `obn_custom_metadata`.
 */
export const deviceAuthorization: RouteHandler = async (ctx, request) => {
  const form = await readForm(request);
  if (form instanceof Response) return form;
  const client = authenticateClient(ctx, request, form, false);
  if (client instanceof Response) return client;
  const scopes = parseScope(form.get('scope'));
  if (scopes.length === 0) return oauthError(400, 'invalid_request', 'scope is required');
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0) return oauthError(400, 'invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
  const record = ctx.tokens.openDevice({ clientId: client.clientId, scopes, targetConnectionId: form.get('target_connection_id') ?? undefined });
  if (ctx.options.autoApprove) record.status = 'approved';
  const verificationUri = `${ctx.authUrl}/device`;
  return json(
    200,
    {
      device_code: record.deviceCode,
      user_code: record.userCode,
      verification_uri: verificationUri,
      interval: record.interval,
      expires_in: Math.round((record.expiresAt - ctx.options.now()) / 1000),
      obn_custom_metadata: {
        consent_validation_method: 'OAUTH2',
        consent_message: consentMessage(client.name, scopes, verificationUri),
        consent_status: 'PENDING_VALIDATION',
      },
    },
    { 'cache-control': 'no-store' },
  );
};

function pending(record: DeviceRecord | undefined, now: number): record is DeviceRecord {
  return record !== undefined && record.status === 'pending' && record.expiresAt > now;
}

/** `GET {auth_url}/device`: where the customer enters the user code, then approves or denies. */
export const devicePageRoute: RouteHandler = async (ctx, _request, url) => {
  const action = `${ctx.authPath}/device`;
  const userCode = url.searchParams.get('user_code');
  if (!userCode) return htmlPage(200, devicePage({ action }));
  const record = ctx.tokens.device(userCode);
  if (!pending(record, ctx.options.now()) || record.userCode !== userCode.toUpperCase().replace(/[\s-]/g, '')) {
    return htmlPage(400, devicePage({ action, error: 'That code is unknown, expired or already answered.' }));
  }
  const client = ctx.clients.get(record.clientId);
  return htmlPage(200, devicePage({ action, userCode: record.userCode, appName: client?.name ?? record.clientId, scopes: record.scopes }));
};

/** `POST {auth_url}/device`: the customer's answer from the device page. */
export const deviceDecision: RouteHandler = async (ctx, request) => {
  const type = request.headers.get('content-type') ?? '';
  const form = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(type) ? new URLSearchParams(await request.text()) : new URLSearchParams();
  const userCode = form.get('user_code') ?? '';
  const decision = form.get('decision');
  const record = ctx.tokens.device(userCode);
  if ((decision !== 'approve' && decision !== 'deny') || !pending(record, ctx.options.now()) || record.userCode !== userCode.toUpperCase().replace(/[\s-]/g, '')) {
    return htmlPage(400, devicePage({ action: `${ctx.authPath}/device`, error: 'That code is unknown, expired or already answered.' }));
  }
  record.status = decision === 'approve' ? 'approved' : 'denied';
  return htmlPage(
    200,
    decision === 'approve'
      ? messagePage('Approved', 'You can go back to your device.')
      : messagePage('Denied', 'The application was not given access. You can go back to your device.'),
  );
};
