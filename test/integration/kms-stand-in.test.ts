/**
 * The KMS stand-in (local/emulators/kms.ts) with the real SDK client: a key by id, ARN, alias or
 * alias ARN; the encryption context bound to the ciphertext; unknown keys and foreign blobs refused.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KmsStandIn, startKmsStandIn } from '../../local/emulators/kms';

let standIn: KmsStandIn;
let client: KMSClient;
const CONTEXT = { purpose: 'calendar-ics-url', calendar_id: 'cal-1' };

beforeAll(async () => {
  standIn = await startKmsStandIn({
    region: 'eu-west-1',
    account: '111111111111',
    keys: [{ aliases: ['alias/feeds'] }, {}],
  });
  client = new KMSClient({
    region: 'eu-west-1',
    endpoint: standIn.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(() => standIn.close());

const seal = async (KeyId: string, text: string, EncryptionContext: Record<string, string> = CONTEXT) =>
  (await client.send(new EncryptCommand({ KeyId, Plaintext: Buffer.from(text), EncryptionContext }))).CiphertextBlob!;

const open = async (CiphertextBlob: Uint8Array, EncryptionContext: Record<string, string>, KeyId?: string) =>
  Buffer.from(
    (await client.send(new DecryptCommand({ CiphertextBlob, EncryptionContext, ...(KeyId && { KeyId }) }))).Plaintext!,
  ).toString();

describe('the KMS stand-in', () => {
  it('encrypts under a key named by id, ARN, alias or alias ARN, and decrypts with the same context', async () => {
    const [{ id, arn }] = standIn.keys as [{ id: string; arn: string }];
    for (const name of [id, arn, 'alias/feeds', 'arn:aws:kms:eu-west-1:111111111111:alias/feeds']) {
      const blob = await seal(name, `https://calendar.example/${name}`);
      expect(await open(blob, { calendar_id: 'cal-1', purpose: 'calendar-ics-url' })).toBe(
        `https://calendar.example/${name}`,
      );
      expect(await open(blob, CONTEXT, arn)).toBe(`https://calendar.example/${name}`);
    }
  });

  it('refuses to decrypt with another context, another key, or a blob it did not make', async () => {
    const blob = await seal('alias/feeds', 'secret address');
    await expect(open(blob, { ...CONTEXT, calendar_id: 'cal-2' })).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
    await expect(open(blob, {})).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(open(blob, CONTEXT, standIn.keys[1]!.id)).rejects.toMatchObject({ name: 'IncorrectKeyException' });
    await expect(open(Buffer.from('not a ciphertext of this endpoint'), CONTEXT)).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
  });

  it('refuses an unknown key or alias with NotFoundException', async () => {
    await expect(seal('00000000-0000-4000-8000-000000000000', 'x')).rejects.toMatchObject({
      name: 'NotFoundException',
      message: "Key 'arn:aws:kms:eu-west-1:111111111111:key/00000000-0000-4000-8000-000000000000' does not exist",
      $metadata: { httpStatusCode: 400 },
    });
    await expect(seal('alias/feed', 'x')).rejects.toMatchObject({
      name: 'NotFoundException',
      message: 'Alias arn:aws:kms:eu-west-1:111111111111:alias/feed is not found.',
    });
  });
});
