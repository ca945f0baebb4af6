/**
 * Google's OAuth 2.0 token endpoint for the JWT bearer grant of a service account
 * with domain-wide delegation, refusing what Google refuses:
 * - 400 `unsupported_grant_type` for any other grant;
 * - 400 `invalid_grant` for an assertion that is not a JWT, an unknown issuer, a bad
 *   signature, a wrong `aud`, an `exp` already past, an `iat` in the future or a lifetime
 *   over one hour, and a `sub` that is not a user of the tenant;
 * - 401 `unauthorized_client` when the tenant's delegation grant for this client is
 *   missing (or revoked) or does not cover every requested scope.
 * On success: `{ access_token, expires_in: 3599, token_type: "Bearer" }`.
 * Reference: https://developers.google.com/identity/protocols/oauth2/service-account
 */
import type { SimulatedClock } from './clock';
import { oauthError, type SimulatorAnswer } from './google-errors';
import { readAssertion, rs256SignatureHolds } from './jwt-assertion';
import { ACCESS_TOKEN_SECONDS, type Tenant } from './tenant';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google tolerates a little clock skew between the caller and itself. */
const SKEW_SECONDS = 60;
const MAX_ASSERTION_SECONDS = 3600;

export function answerTokenRequest(
  form: URLSearchParams,
  tokenUrl: string,
  tenant: Tenant,
  clock: SimulatedClock,
): SimulatorAnswer {
  const grantType = form.get('grant_type');
  if (grantType !== JWT_BEARER_GRANT) {
    return oauthError(400, 'unsupported_grant_type', `grant_type must be ${JWT_BEARER_GRANT}`);
  }
  const assertion = form.get('assertion');
  if (!assertion) return oauthError(400, 'invalid_request', 'the assertion parameter is missing');
  const reading = readAssertion(assertion);
  if (!reading.ok) return oauthError(400, 'invalid_grant', `Invalid JWT: ${reading.problem}`);
  const { claims } = reading;
  const account = tenant.serviceAccounts.get(claims.iss);
  if (!account) return oauthError(400, 'invalid_grant', 'Invalid JWT: the issuer is no known service account');
  if (!rs256SignatureHolds(reading.signedPart, reading.signature, account.publicKeyPem)) {
    return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
  }
  if (claims.aud !== tokenUrl) {
    return oauthError(400, 'invalid_grant', `Invalid JWT: the audience must be ${tokenUrl}`);
  }
  const nowSeconds = Math.floor(clock.now() / 1000);
  if (
    claims.exp <= nowSeconds - SKEW_SECONDS ||
    claims.iat > nowSeconds + SKEW_SECONDS ||
    claims.exp - claims.iat > MAX_ASSERTION_SECONDS ||
    claims.exp <= claims.iat
  ) {
    return oauthError(
      400,
      'invalid_grant',
      'Invalid JWT: the assertion must be short-lived (an hour at most) and current; check iat and exp',
    );
  }
  const user = claims.sub ?? account.clientEmail;
  if (claims.sub !== undefined && !tenant.users.has(claims.sub)) {
    return oauthError(400, 'invalid_grant', 'Invalid email or User ID');
  }
  const requested = claims.scope.split(' ').filter((scope) => scope.length > 0);
  if (requested.length === 0) return oauthError(400, 'invalid_request', 'the assertion requests no scope');
  const granted = tenant.delegationGrants.get(account.clientId);
  if (claims.sub !== undefined && (!granted || requested.some((scope) => !granted.has(scope)))) {
    return oauthError(
      401,
      'unauthorized_client',
      'The client may not obtain tokens this way, or is not authorized for every requested scope',
    );
  }
  const accessToken = tenant.issueAccessToken(user, requested, clock.now());
  return { status: 200, body: { access_token: accessToken, expires_in: ACCESS_TOKEN_SECONDS, token_type: 'Bearer' } };
}
