/**
 * The secret each push channel carries, so that an unauthenticated notification
 * route refuses forgeries before any table read: `<id>.<mac>`, where `id` is 16
 * random bytes and `mac` is HMAC-SHA256 over the provider and the id under the
 * stack's push key (both base64url). Google echoes it as the channel token, Graph
 * as the subscription's clientState; 66 characters, inside both providers' limits
 * (Google 256, Graph 128). Binding the provider keeps a Google token from passing
 * as a Graph clientState.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ProviderName } from '../provider-contract';

const ID_BYTES = 16;
const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
/** The longest text `verifyPushSecret` looks at: anything longer is refused unread. */
export const PUSH_SECRET_MAX_CHARS = 66;

const macOf = (key: string, provider: ProviderName, id: string): Buffer =>
  createHmac('sha256', key).update(`${provider}:${id}`).digest();

/** A new channel's secret: its id (the channel's key in the table) and the text given to the provider. */
export function mintPushSecret(key: string, provider: ProviderName): { id: string; secret: string } {
  const id = randomBytes(ID_BYTES).toString('base64url');
  return { id, secret: `${id}.${macOf(key, provider, id).toString('base64url')}` };
}

/** The secret's id when its MAC holds for this provider (compared in constant time), else undefined. */
export function verifyPushSecret(key: string, provider: ProviderName, secret: string | undefined): string | undefined {
  if (secret === undefined || secret.length !== PUSH_SECRET_MAX_CHARS) return undefined;
  const dot = secret.indexOf('.');
  const id = secret.slice(0, dot);
  if (dot < 0 || !ID_PATTERN.test(id)) return undefined;
  // Compared as text: decoding first would let the unused low bits of the last character vary.
  const given = Buffer.from(secret.slice(dot + 1), 'latin1');
  const expected = Buffer.from(macOf(key, provider, id).toString('base64url'), 'latin1');
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
}
