/**
 * The Google service-account key (the JSON file the Cloud console hands out), as
 * read from the source's credentials secret. Only the three fields the JWT grant
 * needs are read; a value that is not such a key disconnects the whole source with
 * a reason that names what is wrong, never any part of the key itself.
 */
import * as z from 'zod/mini';
import { AccessRevokedError } from '../provider-contract';

export interface ServiceAccountKey {
  clientEmail: string;
  /** PKCS#8 PEM, as Google writes it (`-----BEGIN PRIVATE KEY-----`). */
  privateKey: string;
  /** Names the key among the account's keys (the JWT header's `kid`). */
  keyId: string | undefined;
}

/** A key file is a few KB; a secret far past that is not one. */
const MAX_KEY_CHARS = 64 * 1024;

const keySchema = z.looseObject({
  client_email: z.string().check(z.minLength(3), z.maxLength(320), z.regex(/^[^\s@]+@[^\s@]+$/)),
  private_key: z.string().check(z.minLength(100), z.maxLength(16 * 1024), z.includes('PRIVATE KEY-----')),
  private_key_id: z.optional(z.string().check(z.maxLength(200))),
});

export function readServiceAccountKey(credentials: string): ServiceAccountKey {
  if (credentials.length > MAX_KEY_CHARS) throw refused('it is longer than any key file');
  let json: unknown;
  try {
    json = JSON.parse(credentials);
  } catch {
    throw refused('it is not JSON');
  }
  const parsed = keySchema.safeParse(json);
  if (!parsed.success) {
    // Only the names of the failing fields: their values are the secret.
    const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? 'the value')))];
    throw refused(`${fields.join(', ')} missing or malformed`);
  }
  return {
    clientEmail: parsed.data.client_email,
    privateKey: parsed.data.private_key,
    keyId: parsed.data.private_key_id,
  };
}

const refused = (problem: string): AccessRevokedError =>
  new AccessRevokedError('source', `the credentials secret is not a Google service-account key JSON: ${problem}`);
