/**
 * The Secrets Manager stand-in (local/emulators/secrets-manager.ts) with the real SDK client: a
 * secret by name, full ARN and partial ARN; anything else refused as AWS refuses it.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from '../../local/emulators/secrets-manager';

const REGION = 'eu-west-1';
let standIn: SecretsManagerStandIn;
let client: SecretsManagerClient;

beforeAll(async () => {
  standIn = await startSecretsManagerStandIn({
    region: REGION,
    account: '111111111111',
    secrets: [
      { name: 'meeting-pipeline/api-key', value: 'key-1' },
      { name: 'push-key', value: 'push', arn: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:push-key-AbC123' },
    ],
  });
  client = new SecretsManagerClient({
    region: REGION,
    endpoint: standIn.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(() => standIn.close());

const value = async (SecretId: string) => (await client.send(new GetSecretValueCommand({ SecretId }))).SecretString;

describe('the Secrets Manager stand-in', () => {
  it('finds a secret by name, by ARN and by partial ARN', async () => {
    const arn = standIn.arns['meeting-pipeline/api-key']!;
    expect(arn).toMatch(/^arn:aws:secretsmanager:eu-west-1:111111111111:secret:meeting-pipeline\/api-key-\w{6}$/);
    expect(await value('meeting-pipeline/api-key')).toBe('key-1');
    expect(await value(arn)).toBe('key-1');
    expect(await value(arn.slice(0, -7))).toBe('key-1');
    expect(await value('arn:aws:secretsmanager:eu-west-1:111111111111:secret:push-key')).toBe('push');
    const answer = await client.send(new GetSecretValueCommand({ SecretId: 'push-key' }));
    expect(answer).toMatchObject({ Name: 'push-key', VersionStages: ['AWSCURRENT'] });
    expect(answer.CreatedDate).toBeInstanceOf(Date);
  });

  it('refuses an unknown name, a near miss, another account’s ARN and another stage as AWS does', async () => {
    for (const SecretId of [
      'meeting-pipeline/api-kez',
      'meeting-pipeline',
      'arn:aws:secretsmanager:eu-west-1:222222222222:secret:push-key-AbC123',
      'arn:aws:secretsmanager:eu-west-1:111111111111:secret:push-ke',
    ]) {
      const error = await client.send(new GetSecretValueCommand({ SecretId })).catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
        $metadata: { httpStatusCode: 400 },
      });
    }
    await expect(
      client.send(new GetSecretValueCommand({ SecretId: 'push-key', VersionStage: 'AWSPREVIOUS' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
