/**
 * What a flood of forged webhooks costs an erasure. Anyone can POST bodies with a well-formed
 * signature that fails the HMAC, and some are quarantined; an erasure must still find a meeting's
 * own entries. The same flood (BENCH_FLOOD_ENTRIES, 10,000 by default, naming other bots) is laid
 * out as the quarantine keeps it now (a folder per bot) and as its first layout did (keyed by
 * content alone: every entry read, as every erasure read them before the change, and as erasure
 * still reads that layout until it expires). The erasure of one meeting runs against each, its
 * S3 calls counted on the real client. Emulators: dynalite (own process) and the versioned S3.
 */
import { createHash, randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutBucketVersioningCommand, type S3Client } from '@aws-sdk/client-s3';
import { eraseMeeting } from '../lambdas/core/erase/erase-meeting';
import { type QuarantineEntry, quarantineKey } from '../lambdas/core/ingress/quarantine';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { eraseDependencies } from '../lambdas/erase/adapter';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { s3Client } from '../lambdas/shared/s3-client';
import { s3Quarantine } from '../lambdas/shared/s3-quarantine';
import { startDynamoEmulatorProcess } from '../local/emulators/dynalite';
import { LOCAL_REGION } from '../local/emulators/fauxqs';
import { startVersionedS3Emulator } from '../local/emulators/versioned-s3';
import { createTableInput } from '../local/resources';

const FLOOD = Number(process.env.BENCH_FLOOD_ENTRIES ?? 10_000);
const AT = new Date('2026-11-23T12:00:00Z');
const PUTS_AT_ONCE = 32;

/** Counts calls through the real client's `send`. */
function counted(client: S3Client): { client: S3Client; calls: () => number } {
  let calls = 0;
  const wrapped = Object.create(client) as S3Client;
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  wrapped.send = ((command: unknown) => {
    calls++;
    return send(command);
  }) as S3Client['send'];
  return { client: wrapped, calls: () => calls };
}

function forgedEntry(botId: string, n: number): QuarantineEntry {
  const body = JSON.stringify({ bot_id: botId, trigger: 'transcript.update', idempotency_key: randomUUID(), n });
  return {
    format: 1,
    received_at: AT.toISOString(),
    reason: 'signature-mismatch',
    signature: `${'A'.repeat(43)}=`,
    body,
    sha256: createHash('sha256').update(body).digest('hex'),
  };
}

export async function benchQuarantineFlood(): Promise<string[]> {
  const [dynamo, s3] = await Promise.all([startDynamoEmulatorProcess(), startVersionedS3Emulator()]);
  // The emulators take any credentials; these keep the SDK from looking for real ones.
  Object.assign(process.env, dynamo.env, {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  try {
    const tableName = 'bench-flood';
    const [payloadBucket, recordingsBucket] = ['bench-flood-payloads', 'bench-flood-recordings'];
    await new DynamoDBClient({}).send(new CreateTableCommand(createTableInput(tableName)));
    for (const bucket of [payloadBucket, recordingsBucket]) {
      await s3Client().send(new CreateBucketCommand({ Bucket: bucket }));
      await s3Client().send(
        new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
      );
    }
    const store = s3Quarantine(s3Client(), payloadBucket);
    const putAll = async (keyOf: (entry: QuarantineEntry, botId: string) => string) => {
      for (let start = 0; start < FLOOD; start += PUTS_AT_ONCE) {
        await Promise.all(
          Array.from({ length: Math.min(PUTS_AT_ONCE, FLOOD - start) }, (_, i) => {
            const botId = `bot_forged_${start + i}`;
            const entry = forgedEntry(botId, start + i);
            return store.put(keyOf(entry, botId), entry);
          }),
        );
      }
    };
    const erase = async () => {
      const botId = `bot_${randomUUID().slice(0, 8)}`;
      const entry = forgedEntry(botId, -1);
      await store.put(quarantineKey(AT, entry.sha256, entry.signature, botId), entry);
      const s3Calls = counted(s3Client());
      const deps = eraseDependencies(
        {
          UPSTREAM_BASE_URL: 'http://127.0.0.1:1/api/v1/',
          API_KEY_SECRET_ID: 'unused',
          SECRET_CACHE_SECONDS: 60,
          TABLE_NAME: tableName,
          PAYLOAD_BUCKET: payloadBucket,
          RECORDINGS_BUCKET: recordingsBucket,
          // As deployed: the lake lives in the recordings bucket, so the erasure's calls include its sweep.
          LAKE_BUCKET: recordingsBucket,
          EVENT_BUS_NAME: 'unused',
          ERASURE_QUEUE_URL: 'unused',
          ERASE_UPSTREAM: false,
          RESWEEP_DELAY_SECONDS: 900,
          LOG_RETENTION_DAYS: 30,
          EVENT_ARCHIVE_RETENTION_DAYS: 30,
          RETENTION_MAX_MEETINGS: 500,
        },
        {
          db: documentClient(),
          s3: s3Calls.client,
          sqs: sqsClient(),
          events: { publish: async () => {} },
          queue: { send: async () => {} },
        },
        silentTelemetry,
      );
      const started = performance.now();
      const receipt = await eraseMeeting(botId, 'request', deps);
      return { calls: s3Calls.calls(), ms: performance.now() - started, found: receipt.counts.payload_objects };
    };

    // Today's layout: every forged entry in its bot's folder.
    await putAll((entry, botId) => quarantineKey(AT, entry.sha256, entry.signature, botId));
    const filed = await erase();
    // The first layout: the same flood keyed by content alone (quarantine/<yyyy>/<mm>/<dd>/...).
    await putAll((entry) => `quarantine/2026/11/23/${entry.sha256}-${'0'.repeat(16)}.json`);
    const unfiled = await erase();

    const row = (name: string, r: typeof filed) =>
      `  ${name.padEnd(44)} ${String(r.calls).padStart(6)} S3 calls  ${r.ms.toFixed(0).padStart(6)} ms  (meeting's entries found: ${r.found})`;
    return [
      `forged-webhook flood: erasing one meeting after ${FLOOD} quarantined forgeries naming other bots`,
      row('before (content-keyed: every entry read)', unfiled),
      row('after (filed by bot: its folder listed)', filed),
    ];
  } finally {
    await Promise.all([s3.stop(), dynamo.stop()]);
  }
}
