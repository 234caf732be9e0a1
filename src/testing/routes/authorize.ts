import { parseScope, type RouteHandler } from '../context.js';
import { consentPage, errorPage } from '../html.js';
import { htmlPage, redirect } from '../responses.js';
import { unknownScopes, withParams } from './oauth-common.js';

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * `GET {auth_url}/oauth/authorize`: checks the request and shows the consent page. An unknown
 * client or an unregistered redirect URI gets an HTML error page, never a redirect (the sandbox
 * cannot trust where it would send the customer); every other problem is reported to the
 * registered redirect URI as `error=...` with the `state`.
 */
export const authorizePage: RouteHandler = async (ctx, _request, url) => {
  const q = url.searchParams;
  for (const name of new Set(q.keys())) {
    if (q.getAll(name).length > 1) return htmlPage(400, errorPage('invalid_request', `The parameter ${name} is repeated`));
  }
  const clientId = q.get('client_id');
  const client = ctx.clients.get(clientId);
  if (!client) return htmlPage(400, errorPage('invalid_client', clientId ? 'No application is registered with this client_id' : 'client_id is required'));
  const redirectUri = q.get('redirect_uri');
  if (!redirectUri) return htmlPage(400, errorPage('invalid_request', 'redirect_uri is required'));
  if (!client.redirectUris.includes(redirectUri)) {
    return htmlPage(400, errorPage('invalid_redirect_uri', 'redirect_uri does not match a redirect URI registered for this application (matched exactly, no wildcards)'));
  }
  const state = q.get('state') ?? undefined;
  const refuse = (error: string, description: string) => redirect(withParams(redirectUri, { error, error_description: description, state }));

  if (q.get('response_type') !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
  const challenge = q.get('code_challenge');
  if (!challenge) return refuse('invalid_request', 'code_challenge is required (PKCE)');
  if (q.get('code_challenge_method') !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256');
  if (!CHALLENGE.test(challenge)) return refuse('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
  const scopes = parseScope(q.get('scope'));
  if (scopes.length === 0) return refuse('invalid_scope', 'scope is required');
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0) return refuse('invalid_scope', `Unknown scope: ${unknown.join(' ')}`);

  const consentId = ctx.tokens.openConsent({ clientId: client.clientId, redirectUri, scopes, state, codeChallenge: challenge });
  if (ctx.options.autoApprove) {
    const consent = ctx.tokens.closeConsent(consentId)!;
    return redirect(withParams(consent.redirectUri, { code: ctx.tokens.mintCode(consent), state: consent.state }));
  }
  const target = new URL(redirectUri);
  return htmlPage(
    200,
    consentPage({ appName: client.name, scopes, action: `${ctx.authPath}/oauth/authorize`, consentId, redirectTo: `${target.origin}${target.pathname}` }),
  );
};

/**
 * `POST {auth_url}/oauth/authorize`: the consent page's form. Approve redirects to the
 * registered URI with `code` and `state`; Deny with `error=access_denied` and `state`.
 */
export const authorizeDecision: RouteHandler = async (ctx, request) => {
  const type = request.headers.get('content-type') ?? '';
  const form = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(type) ? new URLSearchParams(await request.text()) : new URLSearchParams();
  const decision = form.get('decision');
  if (decision !== 'approve' && decision !== 'deny') return htmlPage(400, errorPage('invalid_request', 'Choose Approve or Deny'));
  const consent = ctx.tokens.closeConsent(form.get('consent_id') ?? '');
  if (!consent) return htmlPage(400, errorPage('invalid_request', 'This consent request is unknown, already answered or expired: start again from the application'));
  if (decision === 'deny') {
    return redirect(withParams(consent.redirectUri, { error: 'access_denied', error_description: 'The customer denied the request', state: consent.state }), 303);
  }
  return redirect(withParams(consent.redirectUri, { code: ctx.tokens.mintCode(consent), state: consent.state }), 303);
};
