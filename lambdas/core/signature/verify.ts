import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SecretSource } from '../secrets';
import { WEBHOOK_SIGNATURE } from '../upstream/webhook-contract';
import { canonicalJson } from './canonical-json';

/** The signing secret in Secrets Manager is unusable; no webhook can be verified until it is fixed. */
export class SigningSecretConfigError extends Error {
  constructor(message: string) {
    super(`${message} Store the signing secret as base64 text, or a JSON array of base64 texts while rotating.`);
    this.name = 'SigningSecretConfigError';
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIN_KEY_BYTES = 16;

/**
 * Reads the stored secret value: one base64 signing secret, or a JSON array of
 * them so an old and a new secret are both accepted during rotation.
 */
export function parseSigningSecrets(secretValue: string): Buffer[] {
  const trimmed = secretValue.trim();
  let texts: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      texts = JSON.parse(trimmed) as unknown[];
    } catch {
      throw new SigningSecretConfigError('The signing secret looks like a JSON array but is not valid JSON.');
    }
  } else {
    texts = [trimmed];
  }
  if (!Array.isArray(texts) || texts.length === 0) {
    throw new SigningSecretConfigError('The signing secret holds no secrets.');
  }
  return texts.map((text, index) => {
    if (typeof text === 'string' && text.trim() === '') {
      throw new SigningSecretConfigError(`Signing secret #${index + 1} is empty.`);
    }
    if (typeof text !== 'string' || !BASE64.test(text.trim())) {
      throw new SigningSecretConfigError(
        `Signing secret #${index + 1} is not ${WEBHOOK_SIGNATURE.secretEncoding} text.`,
      );
    }
    const key = Buffer.from(text.trim(), WEBHOOK_SIGNATURE.secretEncoding);
    if (key.length < MIN_KEY_BYTES) {
      throw new SigningSecretConfigError(
        `Signing secret #${index + 1} decodes to ${key.length} bytes; expected at least ${MIN_KEY_BYTES}.`,
      );
    }
    return key;
  });
}

export type SignatureCheck =
  | { ok: true }
  | { ok: false; reason: 'missing-signature' | 'malformed-signature' | 'signature-mismatch' };

const SIGNATURE_TEXT = /^[A-Za-z0-9+/]{43}=?$/;

/**
 * What is wrong with the header before any key is tried: missing, or not the base64 of a
 * 32-byte digest. Cheap, so the ingress asks it first (such a request is never kept).
 */
export function signatureHeaderProblem(
  signatureHeader: string | undefined,
): 'missing-signature' | 'malformed-signature' | undefined {
  if (signatureHeader === undefined || signatureHeader.trim() === '') return 'missing-signature';
  const text = signatureHeader.trim();
  if (!SIGNATURE_TEXT.test(text)) return 'malformed-signature';
  if (Buffer.from(text, WEBHOOK_SIGNATURE.digestEncoding).length !== WEBHOOK_SIGNATURE.digestBytes)
    return 'malformed-signature';
  return undefined;
}

/**
 * Checks the signature header against the canonical form of the body with every
 * active key. Each comparison is constant-time.
 */
export function verifySignature(
  canonicalBody: Uint8Array,
  signatureHeader: string | undefined,
  keys: readonly Buffer[],
): SignatureCheck {
  const problem = signatureHeaderProblem(signatureHeader);
  if (problem !== undefined || signatureHeader === undefined) {
    return { ok: false, reason: problem ?? 'missing-signature' };
  }
  const presented = Buffer.from(signatureHeader.trim(), WEBHOOK_SIGNATURE.digestEncoding);

  let matched = false;
  for (const key of keys) {
    const expected = createHmac(WEBHOOK_SIGNATURE.hmacAlgorithm, key).update(canonicalBody).digest();
    // No early exit: the time taken does not depend on which key matched.
    if (timingSafeEqual(expected, presented)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'signature-mismatch' };
}

/** Where bodies are rendered for verification; reused, since rendering and hashing are synchronous. */
let renderBuffer = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * Verifies a webhook body (valid UTF-8 JSON) against its signature header.
 * @throws DuplicateKeyError | NestingTooDeepError from canonicalJson: the body is ambiguous or abusive.
 */
export function verifyWebhookBody(
  body: Uint8Array,
  signatureHeader: string | undefined,
  keys: readonly Buffer[],
): SignatureCheck {
  if (renderBuffer.length < body.length) renderBuffer = Buffer.allocUnsafeSlow(body.length);
  return verifySignature(canonicalJson(body, renderBuffer), signatureHeader, keys);
}

/** Signing keys from a secret source, re-parsed only when the secret value changes. */
export function signingKeysFrom(source: SecretSource): () => Promise<readonly Buffer[]> {
  let lastValue: string | undefined;
  let lastKeys: readonly Buffer[] = [];
  return async () => {
    const value = await source.read();
    if (value !== lastValue) {
      lastKeys = parseSigningSecrets(value);
      lastValue = value;
    }
    return lastKeys;
  };
}
