/**
 * The identity platform's v2 token endpoint for the client-credentials grant:
 * `POST /{tenant}/oauth2/v2.0/token`, form-encoded `grant_type=client_credentials`,
 * `client_id`, `client_secret` and a `scope` that must be a resource followed by
 * `/.default` (the app-only flow asks for every permission an administrator
 * granted, never for single ones). The token's audience is that resource, so a
 * token asked for another resource is refused by Graph.
 */
import { type Directory, TOKEN_LIFETIME_SECONDS } from './directory';
import type { IdentityRefusal } from './graph-errors';

export type TokenAnswer = { status: 200; body: Record<string, unknown> } | { status: number; refusal: IdentityRefusal };

function refuse(status: number, error: IdentityRefusal['error'], aadsts: number, text: string): TokenAnswer {
  return { status, refusal: { status, error, aadsts, text } };
}

export function answerTokenRequest(directory: Directory, tenantId: string, form: URLSearchParams): TokenAnswer {
  const tenant = directory.tenants.get(tenantId);
  if (tenant === undefined)
    return refuse(400, 'invalid_request', 90002, `Tenant '${tenantId}' not found. Check that the tenant id is right.`);
  for (const name of ['grant_type', 'client_id', 'scope'])
    if (!form.get(name))
      return refuse(400, 'invalid_request', 900144, `The request body must contain the parameter '${name}'.`);
  if (form.get('grant_type') !== 'client_credentials')
    return refuse(400, 'unsupported_grant_type', 70003, 'The app asked for a grant type this endpoint does not take.');
  const clientId = form.get('client_id')!;
  const app = tenant.apps.get(clientId);
  if (app === undefined)
    return refuse(
      400,
      'unauthorized_client',
      700016,
      `No application with identifier '${clientId}' in the directory '${tenantId}'; it may not be installed there or consented to.`,
    );
  const secret = form.get('client_secret');
  if (!secret)
    return refuse(401, 'invalid_client', 7000218, "The request body must hold 'client_assertion' or 'client_secret'.");
  if (secret !== app.secret)
    return refuse(401, 'invalid_client', 7000215, `The client secret given for app '${clientId}' is not valid.`);
  const scope = form.get('scope')!;
  const resource = /^(https:\/\/[^\s]+)\/\.default$/.exec(scope)?.[1];
  if (resource === undefined)
    return refuse(
      400,
      'invalid_scope',
      1002012,
      `The scope '${scope}' is not valid: the client-credentials flow takes a resource followed by /.default.`,
    );
  return {
    status: 200,
    body: {
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      ext_expires_in: TOKEN_LIFETIME_SECONDS,
      access_token: directory.issue(tenantId, app, resource),
    },
  };
}
