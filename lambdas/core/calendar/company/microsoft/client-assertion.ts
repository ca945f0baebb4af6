/**
 * The certificate credential's proof for Entra's token endpoint: a short-lived
 * JWT signed RS256 with the certificate's private key, naming the certificate
 * by its SHA-1 thumbprint (`x5t`), issued by and about the app, addressed to the
 * token URL. jose signs it; nothing here is hand-written crypto.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { GraphClientCredential } from './graph-credentials';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Entra takes assertions valid up to ten minutes; five leaves room for clock skew. */
const ASSERTION_LIFETIME_SECONDS = 300;

export function clientAssertion(
  credential: Extract<GraphClientCredential, { kind: 'certificate' }>,
  clientId: string,
  tokenUrl: string,
  nowMs: number,
): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', x5t: credential.thumbprint })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(tokenUrl)
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + ASSERTION_LIFETIME_SECONDS)
    .sign(credential.privateKey);
}
