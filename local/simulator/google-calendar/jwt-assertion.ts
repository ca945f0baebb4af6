/**
 * Reads and checks the signed JWT a service account presents to Google's token
 * endpoint (JWT bearer grant, RFC 7523). The signature is RS256 over
 * `base64url(header).base64url(claims)`, verified with node:crypto against the public
 * key registered for the service account; nothing here hand-rolls cryptography.
 *
 * The claims Google requires of such an assertion (restated from
 * https://developers.google.com/identity/protocols/oauth2/service-account):
 * `iss` is the service account's email, `aud` the token URL, `scope` a space-separated
 * list, `iat` the issue time and `exp` at most one hour after it, `sub` the Workspace
 * user the account acts for under domain-wide delegation.
 */
import { createPublicKey, verify } from 'node:crypto';

export interface AssertionClaims {
  iss: string;
  aud: string;
  scope: string;
  iat: number;
  exp: number;
  sub?: string;
}

export type AssertionReading =
  | { ok: true; claims: AssertionClaims; signedPart: string; signature: Buffer }
  | { ok: false; problem: string };

function decodeJsonPart(part: string): unknown {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

/** Splits and parses the assertion without trusting it yet. */
export function readAssertion(assertion: string): AssertionReading {
  const parts = assertion.split('.');
  if (parts.length !== 3) return { ok: false, problem: 'the assertion is not a signed JWT (three parts)' };
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  let header: unknown;
  let claims: unknown;
  try {
    header = decodeJsonPart(headerPart);
    claims = decodeJsonPart(claimsPart);
  } catch {
    return { ok: false, problem: 'the assertion header or claims are not base64url JSON' };
  }
  if (typeof header !== 'object' || header === null || (header as { alg?: unknown }).alg !== 'RS256') {
    return { ok: false, problem: 'only RS256-signed assertions are accepted' };
  }
  const c = claims as Partial<Record<keyof AssertionClaims, unknown>>;
  if (
    typeof c.iss !== 'string' ||
    typeof c.aud !== 'string' ||
    typeof c.iat !== 'number' ||
    typeof c.exp !== 'number' ||
    (c.scope !== undefined && typeof c.scope !== 'string') ||
    (c.sub !== undefined && typeof c.sub !== 'string')
  ) {
    return { ok: false, problem: 'the assertion lacks iss, aud, iat or exp, or has a wrong type' };
  }
  return {
    ok: true,
    claims: {
      iss: c.iss,
      aud: c.aud,
      scope: typeof c.scope === 'string' ? c.scope : '',
      iat: c.iat,
      exp: c.exp,
      ...(typeof c.sub === 'string' ? { sub: c.sub } : {}),
    },
    signedPart: `${headerPart}.${claimsPart}`,
    signature: Buffer.from(signaturePart, 'base64url'),
  };
}

/** True when `signature` is a valid RS256 signature of `signedPart` by `publicKeyPem`'s key. */
export function rs256SignatureHolds(signedPart: string, signature: Buffer, publicKeyPem: string): boolean {
  try {
    return verify('sha256', Buffer.from(signedPart), createPublicKey(publicKeyPem), signature);
  } catch {
    return false;
  }
}
