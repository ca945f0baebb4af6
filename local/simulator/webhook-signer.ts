import { createHmac } from 'node:crypto';
import { dumps, type PyValue, SIGNED, WIRE } from './python-json';

export interface SignedWebhook {
  /** The body bytes as the service sends them. */
  body: Buffer;
  /** The value of the X-Webhook-Signature header. */
  signature: string;
}

/** Signs a webhook payload the way the service does: HMAC-SHA256 over the sorted compact form. */
export function signWebhook(payload: PyValue, signingSecretBase64: string): SignedWebhook {
  const key = Buffer.from(signingSecretBase64, 'base64');
  const signature = createHmac('sha256', key).update(dumps(payload, SIGNED), 'utf8').digest('base64');
  return { body: Buffer.from(dumps(payload, WIRE), 'utf8'), signature };
}
