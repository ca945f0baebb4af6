/**
 * KMS Encrypt and Decrypt on 127.0.0.1 for the real SDK client (JSON 1.1, `TrentService.*`), over
 * a fixed set of symmetric keys. A key is named as KMS takes it: key id, key ARN, alias name
 * (`alias/…`) or alias ARN; any other is NotFoundException, so a wrong key in a function's
 * environment fails here as in AWS. The encryption context is bound to the ciphertext (the AAD of
 * AES-256-GCM under a secret per key, made at start): Decrypt with another context, or a blob that
 * is not one of this endpoint's, is InvalidCiphertextException; Decrypt naming another key than
 * the blob's is IncorrectKeyException.
 *
 * The blob is this endpoint's own format (a version byte, the key id, IV, tag, ciphertext), not
 * KMS's; only what clients can see of it matters: it is opaque and it names its key.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { AwsJsonError } from './aws-json/errors';
import { optionalText, requiredText, textMap } from './aws-json/members';
import { type AwsJsonServer, type JsonBody, startAwsJsonServer } from './aws-json/server';

export interface StandInKey {
  /** The key id (default a new UUID, as KMS makes them). */
  id?: string;
  /** Alias names, `alias/…`. */
  aliases?: string[];
}

export interface KmsStandInOptions {
  region: string;
  account: string;
  keys: StandInKey[];
}

export interface KmsStandIn extends AwsJsonServer {
  /** Each key's id and ARN, in the order given. */
  keys: { id: string; arn: string }[];
  /** Operation and key of each call, in order. */
  calls: { operation: string; keyId: string }[];
}

interface HeldKey {
  id: string;
  arn: string;
  secret: Buffer;
}

const VERSION = 1;
const ID_BYTES = 36;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_PLAINTEXT_BYTES = 4096;

const kmsError = (type: string, message: string) => new AwsJsonError(type, message, { messageKey: 'message' });
// KMS gives no message with a ciphertext it will not decrypt: neither which check failed nor why.
const invalidCiphertext = () => kmsError('InvalidCiphertextException', '');

/** The encryption context as authenticated data: its pairs sorted, so member order does not matter. */
const aad = (context: Record<string, string>) =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));

const blobMember = (body: JsonBody, member: string): Buffer => Buffer.from(requiredText(body, member), 'base64');

export async function startKmsStandIn(options: KmsStandInOptions): Promise<KmsStandIn> {
  const arnPrefix = `arn:aws:kms:${options.region}:${options.account}:`;
  const held: HeldKey[] = [];
  const aliases = new Map<string, HeldKey>();
  for (const key of options.keys) {
    const id = key.id ?? randomUUID();
    if (!/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/.test(id)) throw new Error(`a KMS key id is a UUID, not ${id}`);
    const entry = { id, arn: `${arnPrefix}key/${id}`, secret: randomBytes(32) };
    held.push(entry);
    for (const alias of key.aliases ?? []) aliases.set(alias, entry);
  }
  const calls: KmsStandIn['calls'] = [];

  function keyNamed(keyId: string): HeldKey {
    const alias = keyId.startsWith(`${arnPrefix}alias/`) ? keyId.slice(arnPrefix.length) : keyId;
    const key = alias.startsWith('alias/')
      ? aliases.get(alias)
      : held.find((candidate) => candidate.id === keyId || candidate.arn === keyId);
    if (key !== undefined) return key;
    if (alias.startsWith('alias/')) throw kmsError('NotFoundException', `Alias ${arnPrefix}${alias} is not found.`);
    const arn = keyId.startsWith('arn:') ? keyId : `${arnPrefix}key/${keyId}`;
    throw kmsError('NotFoundException', `Key '${arn}' does not exist`);
  }

  const encrypt = (body: JsonBody): JsonBody => {
    const key = keyNamed(requiredText(body, 'KeyId'));
    calls.push({ operation: 'Encrypt', keyId: key.id });
    const plaintext = blobMember(body, 'Plaintext');
    if (plaintext.length === 0 || plaintext.length > MAX_PLAINTEXT_BYTES)
      throw kmsError(
        'ValidationException',
        `1 validation error detected: Value at 'plaintext' failed to satisfy constraint: Member must have length between 1 and ${MAX_PLAINTEXT_BYTES}`,
      );
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.secret, iv).setAAD(aad(textMap(body, 'EncryptionContext')));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const blob = Buffer.concat([Buffer.from([VERSION]), Buffer.from(key.id), iv, cipher.getAuthTag(), sealed]);
    return { CiphertextBlob: blob.toString('base64'), KeyId: key.arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  };

  const decrypt = (body: JsonBody): JsonBody => {
    const blob = blobMember(body, 'CiphertextBlob');
    const named = optionalText(body, 'KeyId');
    const requested = named === undefined ? undefined : keyNamed(named);
    if (blob.length < 1 + ID_BYTES + IV_BYTES + TAG_BYTES || blob[0] !== VERSION) throw invalidCiphertext();
    const blobKeyId = blob.subarray(1, 1 + ID_BYTES).toString();
    const key = held.find((candidate) => candidate.id === blobKeyId);
    if (key === undefined) throw invalidCiphertext();
    if (requested !== undefined && requested !== key)
      throw kmsError(
        'IncorrectKeyException',
        'The key ID in the request does not identify a CMK that can perform this operation.',
      );
    calls.push({ operation: 'Decrypt', keyId: key.id });
    const ivStart = 1 + ID_BYTES;
    const tagStart = ivStart + IV_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', key.secret, blob.subarray(ivStart, tagStart))
      .setAAD(aad(textMap(body, 'EncryptionContext')))
      .setAuthTag(blob.subarray(tagStart, tagStart + TAG_BYTES));
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(blob.subarray(tagStart + TAG_BYTES)), decipher.final()]);
    } catch {
      throw invalidCiphertext();
    }
    return { Plaintext: plaintext.toString('base64'), KeyId: key.arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'TrentService',
    jsonVersion: '1.1',
    operations: { Encrypt: encrypt, Decrypt: decrypt },
  });
  return { ...server, keys: held.map(({ id, arn }) => ({ id, arn })), calls };
}
