/**
 * The value of a Microsoft source's credentials secret, read once: the app's
 * client secret (bare, or as `{"client_secret": "…"}`), or a certificate
 * uploaded to the app registration with its private key
 * (`{"private_key": "<PEM>", "certificate": "<PEM>"}`). A certificate is what
 * Microsoft recommends for apps that read every mailbox. Nothing here ever puts
 * the value into an error: a malformed secret is named by its shape only.
 */
import { createHash, createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import * as z from 'zod/mini';
import { AccessRevokedError } from '../provider-contract';

export type GraphClientCredential =
  | { kind: 'secret'; clientSecret: string }
  /** thumbprint: the certificate's SHA-1 over its DER bytes, base64url (a JWT's `x5t`). */
  | { kind: 'certificate'; privateKey: KeyObject; thumbprint: string };

/** Longer than any secret or PEM an app registration holds: a bigger value is not one. */
const MAX_FIELD_CHARS = 16 * 1024;

const field = z.string().check(z.minLength(1), z.maxLength(MAX_FIELD_CHARS));

const CredentialsJson = z.union([
  z.object({ client_secret: field }),
  z.object({ private_key: field, certificate: field }),
]);

const SHAPE =
  'the credentials secret must hold the client secret, {"client_secret": "…"}, or {"private_key": "<PEM>", "certificate": "<PEM>"}';

function unusable(why: string): AccessRevokedError {
  return new AccessRevokedError('source', `${why}: ${SHAPE}`);
}

function certificateCredential(privateKeyPem: string, certificatePem: string): GraphClientCredential {
  let certificate: X509Certificate;
  let privateKey: KeyObject;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch {
    throw unusable('its certificate is not a PEM X.509 certificate');
  }
  try {
    privateKey = createPrivateKey(privateKeyPem);
  } catch {
    throw unusable('its private_key is not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw unusable('its private_key is not an RSA key (Entra signs with RS256)');
  if (!certificate.checkPrivateKey(privateKey)) throw unusable('its private_key does not belong to its certificate');
  return {
    kind: 'certificate',
    privateKey,
    thumbprint: createHash('sha1').update(certificate.raw).digest('base64url'),
  };
}

export function parseGraphCredentials(value: string): GraphClientCredential {
  const trimmed = value.trim();
  if (trimmed === '') throw unusable('the credentials secret is empty');
  if (!trimmed.startsWith('{')) {
    if (trimmed.length > MAX_FIELD_CHARS) throw unusable('the credentials secret is too long for a client secret');
    return { kind: 'secret', clientSecret: trimmed };
  }
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    throw unusable('the credentials secret starts with { but is not JSON');
  }
  const parsed = CredentialsJson.safeParse(json);
  if (!parsed.success) throw unusable('the credentials secret is JSON of another shape');
  return 'client_secret' in parsed.data
    ? { kind: 'secret', clientSecret: parsed.data.client_secret }
    : certificateCredential(parsed.data.private_key, parsed.data.certificate);
}
