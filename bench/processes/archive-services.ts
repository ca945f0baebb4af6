/**
 * Benchmark helper process: the S3 emulator, DynamoDB emulator and the simulated
 * service with one ended meeting whose recording is BENCH_RECORDING_BYTES long.
 * Prints one JSON line with the endpoints, then serves until stdin closes.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { s3Client } from '../../lambdas/shared/s3-client';
import { startDynamoEmulator } from '../../local/emulators/dynalite';
import { startSqsS3Emulator } from '../../local/emulators/fauxqs';
import { createLocalResources } from '../../local/resources';
import { SimulatedServiceApi } from '../../local/simulator/api-server';

const size = Number(process.env.BENCH_RECORDING_BYTES);
const [dynamo, sqsS3] = await Promise.all([startDynamoEmulator(), startSqsS3Emulator()]);
Object.assign(process.env, dynamo.env, sqsS3.env);
const resources = await createLocalResources(
  { dynamo: new DynamoDBClient({}), sqs: sqsClient(), s3: s3Client() },
  { prefix: 'bench', visibilityTimeoutSeconds: 60 },
);
await s3Client().send(new CreateBucketCommand({ Bucket: 'bench-recordings' }));
const service = new SimulatedServiceApi();
await service.start();
service.apiKeys.set('bench', 'all');
const bot = service.addBot({ state: 'ended', recording: { size, seed: 2026, contentType: 'video/mp4' } });
console.log(
  JSON.stringify({
    env: { ...dynamo.env, ...sqsS3.env },
    tableName: resources.tableName,
    bucket: 'bench-recordings',
    baseUrl: service.baseUrl,
    botId: bot.id,
    seed: 2026,
  }),
);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
