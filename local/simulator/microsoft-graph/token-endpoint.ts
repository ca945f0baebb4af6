/**
 * The identity platform's v2 token endpoint for the client-credentials grant:
 * `POST /{tenant}/oauth2/v2.0/token`, form-encoded `grant_type=client_credentials`,
 * `client_id`, a `scope` that must be a resource followed by `/.default` (the
 * app-only flow asks for every permission an administrator granted, never for
 * single ones), and the app's proof: a `client_secret`, or a `client_assertion`
 * (a JWT the app signed with the private key of a certificate uploaded to its
 * registration, named by the certificate's SHA-1 thumbprint in `x5t`, addressed
 * to this token URL, issued by and about the app, not expired). The token's
 * audience is the resource, so a token asked for another resource is refused by Graph.
 */
import { compactVerify, decodeProtectedHeader } from 'jose';
import { type Directory, type SimulatedApp, TOKEN_LIFETIME_SECONDS } from './directory';
import type { IdentityRefusal } from './graph-errors';

export type TokenAnswer = { status: 200; body: Record<string, unknown> } | { status: number; refusal: IdentityRefusal };

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Clock skew the identity platform tolerates on an assertion's times. */
const ASSERTION_SKEW_SECONDS = 300;

function refuse(status: number, error: IdentityRefusal['error'], aadsts: number, text: string): TokenAnswer {
  return { status, refusal: { status, error, aadsts, text } };
}

/** A refusal of the app's proof, or undefined when the assertion holds. */
async function checkAssertion(
  directory: Directory,
  app: SimulatedApp,
  form: URLSearchParams,
  tokenUrl: string,
): Promise<TokenAnswer | undefined> {
  if (form.get('client_assertion_type') !== JWT_BEARER)
    return refuse(
      401,
      'invalid_client',
      7000218,
      `A client_assertion needs client_assertion_type '${JWT_BEARER}'; otherwise send a client_secret.`,
    );
  const assertion = form.get('client_assertion')!;
  let thumbprint: unknown;
  try {
    thumbprint = decodeProtectedHeader(assertion).x5t;
  } catch {
    return refuse(400, 'invalid_request', 50027, 'The client assertion is not a well-formed JWT.');
  }
  const key = typeof thumbprint === 'string' ? app.certificates.get(thumbprint) : undefined;
  if (key === undefined)
    return refuse(
      401,
      'invalid_client',
      700027,
      `The certificate with identifier (x5t) ${JSON.stringify(thumbprint ?? null)} used to sign the client assertion is not registered on application '${app.clientId}'.`,
    );
  let claims: Record<string, unknown>;
  try {
    const { payload } = await compactVerify(assertion, key, { algorithms: ['RS256', 'PS256'] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    return refuse(401, 'invalid_client', 700027, 'The client assertion contains an invalid signature.');
  }
  if (claims.iss !== app.clientId || claims.sub !== app.clientId)
    return refuse(
      401,
      'invalid_client',
      700021,
      "The client assertion's issuer and subject must both be the client_id the request names.",
    );
  if (claims.aud !== tokenUrl)
    return refuse(
      401,
      'invalid_client',
      700023,
      `The client assertion's audience ${JSON.stringify(claims.aud ?? null)} is not this token endpoint (${tokenUrl}).`,
    );
  const now = directory.now() / 1000;
  const exp = typeof claims.exp === 'number' ? claims.exp : undefined;
  const nbf = typeof claims.nbf === 'number' ? claims.nbf : undefined;
  if (
    exp === undefined ||
    exp + ASSERTION_SKEW_SECONDS <= now ||
    (nbf !== undefined && nbf - ASSERTION_SKEW_SECONDS > now)
  )
    return refuse(401, 'invalid_client', 700024, 'The client assertion is not within its valid time range.');
  return undefined;
}

/** `tokenUrl`: this endpoint's own URL for the tenant, what an assertion's `aud` must be. */
export async function answerTokenRequest(
  directory: Directory,
  tenantId: string,
  form: URLSearchParams,
  tokenUrl: string,
): Promise<TokenAnswer> {
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
  if (form.get('client_assertion')) {
    const refused = await checkAssertion(directory, app, form, tokenUrl);
    if (refused !== undefined) return refused;
  } else if (!secret) {
    return refuse(401, 'invalid_client', 7000218, "The request body must hold 'client_assertion' or 'client_secret'.");
  } else if (app.secret === undefined || secret !== app.secret) {
    return refuse(401, 'invalid_client', 7000215, `The client secret given for app '${clientId}' is not valid.`);
  }
  const scope = form.get('scope')!;
  const resource = /^(\S+)\/\.default$/.exec(scope)?.[1];
  if (resource === undefined || !(resource.startsWith('https://') || directory.graphAudiences.has(resource)))
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
