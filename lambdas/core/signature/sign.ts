import { createHmac } from 'node:crypto';
import { WEBHOOK_SIGNATURE } from '../upstream/webhook-contract';
import { canonicalJson } from './canonical-json';

/**
 * The signature header the service would send with `body`: HMAC over the body's
 * canonical form, keyed with a decoded signing secret. For tools that must produce
 * a webhook the ingress accepts (the doctor's test webhook); the ingress only verifies.
 */
export function webhookSignature(body: Uint8Array, key: Buffer): string {
  return createHmac(WEBHOOK_SIGNATURE.hmacAlgorithm, key)
    .update(canonicalJson(body))
    .digest(WEBHOOK_SIGNATURE.digestEncoding);
}
