/**
 * Measures what each kind of webhook costs by running the pipeline's real code —
 * the ingress handler and the events consumer, each wrapped as its Lambda is, with
 * real Powertools logging and metrics — against the local emulators, through
 * counting clients (metered-clients.ts). Nothing here is a typed-in constant: a
 * change on the hot path changes these figures.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { lakeWriterDependencies } from '../lambdas/archive/adapter';
import { archiveMeeting } from '../lambdas/core/archive/archive-meeting';
import { openDownload } from '../lambdas/core/archive/download-guard';
import { DEFAULT_RECORDING_TRANSFER } from '../lambdas/core/archive/recording-transfer';
import type { DomainEventPublisher } from '../lambdas/core/domain-events/publisher';
import { staticSecret } from '../lambdas/core/secrets';
import { silentTelemetry } from '../lambdas/core/telemetry';
import { UpstreamClient } from '../lambdas/core/upstream/client';
import { WEBHOOK_SIGNATURE } from '../lambdas/core/upstream/webhook-contract';
import { createIngressHandler, ingressDependencies } from '../lambdas/ingress/adapter';
import { createProcessEventsHandler, processEventsDependencies } from '../lambdas/process-events/adapter';
import { sqsClient } from '../lambdas/shared/aws-clients';
import { documentClient } from '../lambdas/shared/dynamo-client';
import { dynamoClient } from '../lambdas/shared/dynamo-plain-client';
import { createTelemetry, withPowertools } from '../lambdas/shared/powertools';
import { s3Client } from '../lambdas/shared/s3-client';
import { s3PayloadStore } from '../lambdas/shared/s3-payloads-on-demand';
import { s3Recordings } from '../lambdas/shared/s3-recordings';
import { startDynamoEmulator } from '../local/emulators/dynalite';
import { startSqsS3Emulator } from '../local/emulators/fauxqs';
import { eventLogPublisher } from '../local/event-log-publisher';
import { newSigningSecret } from '../local/local-stack';
import { QueuePoller } from '../local/queue-poller';
import {
  createLocalResources,
  createTableInput,
  localIngressEnvironment,
  localProcessEventsEnvironment,
} from '../local/resources';
import { SimulatedServiceApi } from '../local/simulator/api-server';
import { participantJoinLeave, stateChange, summaryUpdate, transcriptUpdate } from '../local/simulator/payloads';
import type { PyValue } from '../local/simulator/python-json';
import { signWebhook } from '../local/simulator/webhook-signer';
import type { IndexShape, TableShape } from './dynamo-units';
import {
  capturingLogs,
  type LogMeter,
  type Meter,
  meteredByAction,
  meteredDynamo,
  newLogMeter,
  newMeter,
} from './metered-clients';
import { meetingWebhookPayloads, WEBHOOK_KINDS, type WebhookKind } from './workload';

/** What one webhook of a kind costs, on average, from the ingress to the store. */
export interface WebhookCost {
  bodyBytes: number;
  dynamo: {
    readRequests: number;
    readUnits: number;
    writeRequests: number;
    /** Table and index write units together. */
    writeUnits: number;
    indexWriteUnits: Record<string, number>;
  };
  /** SQS requests: the ingress's sends, the event source's receives and deletes, archive jobs. */
  sqsRequests: number;
  s3Requests: number;
  /** Consumer invocations per webhook (batches of the event source's size). */
  consumerInvocations: number;
  ingressLogs: LogMeter;
  consumerLogs: LogMeter;
}

export interface MeasuredProfile {
  /** Bots the measurement spread its webhooks over. */
  bots: number;
  /** Batch size the consumer was fed (the event source's). */
  batchSize: number;
  kinds: Record<WebhookKind, WebhookCost>;
  /**
   * Index partitions that webhooks of different meetings share, with the writes
   * per meeting that land on them: a hot key when meetings align.
   */
  sharedIndexPartitions: Array<{ index: string; template: string; partitions: number; unitsPerMeeting: number }>;
  /** Archiving one meeting of `utterances` lines whose webhooks all arrived, with a one-part recording. */
  archive: ArchiveCost;
}

export interface ArchiveCost {
  utterances: number;
  dynamo: { readUnits: number; writeUnits: number; writeRequests: number };
  /** S3 requests besides the recording's upload parts (which the model adds by recording size). */
  s3Requests: number;
  sqsRequests: number;
}

export interface MeasureOptions {
  /** The event source's batch size (read from the synthesized template). */
  batchSize: number;
  /** Powertools log level the functions run with. */
  logLevel: string;
  bots?: number;
  /** Lines of the meeting the archive measurement archives. */
  archiveUtterances?: number;
}

const CONTEXT = {
  functionName: 'capacity',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:capacity',
  memoryLimitInMB: '512',
  awsRequestId: 'capacity-request',
  logGroupName: '/aws/lambda/capacity',
  logStreamName: 'capacity',
  callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} as Context;

/** A realistic utterance: about 1 KB of webhook body. */
const UTTERANCE =
  'We agreed to move the launch review to Thursday and to ask the platform team for the capacity figures. '.repeat(7);

function webhooksOf(kind: WebhookKind, botId: string, bot: number): Array<{ [key: string]: PyValue }> {
  const t0 = Date.parse('2026-11-20T10:00:00Z') * 1000 + bot;
  switch (kind) {
    case 'transcript.update':
      return Array.from({ length: 10 }, (_, i) =>
        transcriptUpdate(botId, {
          speakerName: `Speaker ${i % 3}`,
          speakerUuid: `spk-${i % 3}`,
          isHost: i % 3 === 0,
          timestampMs: 5_000 * (i + 1),
          durationMs: 4_200,
          text: UTTERANCE.slice(0, 700),
        }),
      );
    case 'participant_events.join_leave':
      return Array.from({ length: 4 }, (_, i) =>
        participantJoinLeave(botId, {
          id: `pe-${bot}-${i}`,
          name: `Participant ${i % 2}`,
          uuid: `par-${i % 2}`,
          isHost: i % 2 === 0,
          eventType: i < 2 ? 'join' : 'leave',
          timestampMs: 1_000 * (i + 1),
        }),
      );
    case 'bot.state_change': {
      const states = [
        'ready',
        'joining',
        'joined_not_recording',
        'joined_recording',
        'leaving',
        'post_processing',
        'ended',
      ];
      return states.slice(1).map((newState, i) =>
        stateChange(botId, {
          oldState: states[i] as string,
          newState,
          eventType: newState,
          createdAtMicros: t0 + i * 60_000_000,
        }),
      );
    }
    case 'summary.update':
      return [summaryUpdate(botId, UTTERANCE.repeat(2))];
  }
}

/** The table's keys and indexes as local mode creates them (from the layout the stack uses too). */
export function localTableShape(tableName: string): TableShape {
  const tableInput = createTableInput(tableName);
  return {
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: (tableInput.GlobalSecondaryIndexes ?? []).map(
      (index): IndexShape => ({
        name: String(index.IndexName),
        partitionKey: String(index.KeySchema?.find((k) => k.KeyType === 'HASH')?.AttributeName),
        sortKey: index.KeySchema?.find((k) => k.KeyType === 'RANGE')?.AttributeName,
        projection:
          index.Projection?.ProjectionType === 'INCLUDE'
            ? (index.Projection.NonKeyAttributes ?? [])
            : index.Projection?.ProjectionType === 'KEYS_ONLY'
              ? 'KEYS_ONLY'
              : 'ALL',
      }),
    ),
  };
}

export async function measureWebhookCosts(options: MeasureOptions): Promise<MeasuredProfile> {
  const bots = options.bots ?? 24;
  const [dynamo, sqsS3] = await Promise.all([startDynamoEmulator(), startSqsS3Emulator()]);
  // The domain events the measured code publishes: written as local mode writes them, then discarded.
  const eventsDir = mkdtempSync(join(tmpdir(), 'capacity-events-'));
  const events = () => eventLogPublisher({ file: join(eventsDir, 'events.jsonl') });
  const saved = { ...process.env };
  Object.assign(process.env, dynamo.env, sqsS3.env, { POWERTOOLS_LOG_LEVEL: options.logLevel });
  try {
    const raw = new DynamoDBClient({});
    const resources = await createLocalResources(
      { dynamo: raw, sqs: sqsClient(), s3: s3Client() },
      { prefix: `capacity${Date.now()}`, visibilityTimeoutSeconds: 60 },
    );
    const table = localTableShape(resources.tableName);
    let meter: Meter = newMeter();
    const dynamoOptions = (marshalled: boolean) => ({
      raw,
      tableName: resources.tableName,
      table,
      marshalled,
      get meter() {
        return meter.dynamo;
      },
    });
    // The meters are swapped per kind; the clients read the current one.
    const liveCounts = (pick: (m: Meter) => Record<string, number>) =>
      new Proxy({} as Record<string, number>, {
        get: (_, name: string) => pick(meter)[name],
        set: (_, name: string, value: number) => {
          pick(meter)[name] = value;
          return true;
        },
      });
    const sqs = meteredByAction(
      sqsClient(),
      liveCounts((m) => m.sqs),
    );
    const s3 = meteredByAction(
      s3Client(),
      liveCounts((m) => m.s3),
    );

    const secret = newSigningSecret();
    const ingressTools = createTelemetry('webhook-ingress');
    const ingress = withPowertools(
      createIngressHandler(
        ingressDependencies(
          localIngressEnvironment(resources),
          {
            sqs,
            payloads: s3PayloadStore(resources.payloadBucket),
            signingSecret: staticSecret(secret),
            db: meteredDynamo(dynamoClient(), dynamoOptions(true)),
          },
          ingressTools,
        ),
      ),
      ingressTools,
    );
    const consumerTools = createTelemetry('process-events');
    const consumer = withPowertools(
      createProcessEventsHandler(
        processEventsDependencies(
          localProcessEventsEnvironment(resources),
          {
            db: meteredDynamo(documentClient(), dynamoOptions(false)),
            sqs,
            s3,
            events: events(),
          },
          consumerTools,
        ),
      ),
      consumerTools,
    );
    let consumerLogs = newLogMeter();
    let consumerInvocations = 0;
    const poller = new QueuePoller({
      sqs,
      queueUrl: resources.eventsQueueUrl,
      batchSize: options.batchSize,
      handler: async (event) => {
        consumerInvocations++;
        return capturingLogs(consumerLogs, () => consumer(event, CONTEXT));
      },
    });

    const kinds = {} as Record<WebhookKind, WebhookCost>;
    const partitionsByMeeting = new Map<string, Map<string, number>>();
    for (const kind of WEBHOOK_KINDS) {
      meter = newMeter();
      consumerLogs = newLogMeter();
      consumerInvocations = 0;
      const ingressLogs = newLogMeter();
      let webhooks = 0;
      let bodyBytes = 0;
      for (let bot = 0; bot < bots; bot++) {
        for (const payload of webhooksOf(kind, `bot_capacity_${bot}`, bot)) {
          const signed = signWebhook(payload, secret);
          const response = await capturingLogs(ingressLogs, () => ingress(httpEvent(signed), CONTEXT));
          if (response.statusCode !== 202) throw new Error(`the ingress answered ${response.statusCode} to a ${kind}`);
          webhooks++;
          bodyBytes += signed.body.length;
        }
      }
      // Drained as the event source would: full batches until the queue is empty.
      while ((await poller.pollOnce(0)) > 0) {}
      const { dynamo: d } = meter;
      const per = (n: number) => n / webhooks;
      kinds[kind] = {
        bodyBytes: Math.round(per(bodyBytes)),
        dynamo: {
          readRequests: per(d.readRequests),
          readUnits: per(d.readUnits),
          writeRequests: per(d.writeRequests),
          writeUnits: per(d.tableWriteUnits + Object.values(d.indexWriteUnits).reduce((a, b) => a + b, 0)),
          indexWriteUnits: Object.fromEntries(Object.entries(d.indexWriteUnits).map(([k, v]) => [k, per(v)])),
        },
        sqsRequests: per(Object.values(meter.sqs).reduce((a, b) => a + b, 0)),
        s3Requests: per(Object.values(meter.s3).reduce((a, b) => a + b, 0)),
        consumerInvocations: per(consumerInvocations),
        ingressLogs: perLog(ingressLogs, webhooks),
        consumerLogs: perLog(consumerLogs, webhooks),
      };
      collectShared(partitionsByMeeting, d.indexPartitions);
    }
    const archive = await measureArchive({
      events: events(),
      table,
      raw,
      resources,
      setMeter: (next) => {
        meter = next;
      },
      ingress: async (payload) => {
        // Its log lines are not part of the archive's cost: held back, not printed.
        const response = await capturingLogs(newLogMeter(), () =>
          ingress(httpEvent(signWebhook(payload, secret)), CONTEXT),
        );
        if (response.statusCode !== 202) throw new Error(`the ingress answered ${response.statusCode}`);
      },
      drain: async () => {
        while ((await poller.pollOnce(0)) > 0) {}
      },
      utterances: options.archiveUtterances ?? 120,
    });
    return {
      bots,
      batchSize: options.batchSize,
      kinds,
      sharedIndexPartitions: sharedPartitions(partitionsByMeeting, bots),
      archive,
    };
  } finally {
    process.env = saved;
    rmSync(eventsDir, { recursive: true, force: true });
    await Promise.all([dynamo.stop(), sqsS3.stop()]);
  }
}

function perLog(meter: LogMeter, webhooks: number): LogMeter {
  return {
    lines: meter.lines / webhooks,
    bytes: meter.bytes / webhooks,
    emfDocuments: meter.emfDocuments / webhooks,
    emfBytes: meter.emfBytes / webhooks,
  };
}

/** Accumulates index entries written, by key with the bot id taken out. */
function collectShared(into: Map<string, Map<string, number>>, written: Map<string, number>): void {
  for (const [name, writes] of written) {
    const template = name.replace(/bot_capacity_\d+/g, '<bot>');
    const partitions = into.get(template) ?? new Map<string, number>();
    partitions.set(name, (partitions.get(name) ?? 0) + writes);
    into.set(template, partitions);
  }
}

/** Keys written by more than one meeting (no bot id in them), as templates with their shard count. */
function sharedPartitions(
  collected: Map<string, Map<string, number>>,
  bots: number,
): MeasuredProfile['sharedIndexPartitions'] {
  const shared = new Map<string, { index: string; partitions: Set<string>; writes: number }>();
  for (const [template, partitions] of collected) {
    if (template.includes('<bot>') || template.split(' ').length !== 2) continue;
    const [index, key] = template.split(' ') as [string, string];
    // Shards and days differ only in their digits: one template for them all.
    const family = `${index} ${key.replace(/\d+/g, '<n>')}`;
    const entry = shared.get(family) ?? { index, partitions: new Set<string>(), writes: 0 };
    for (const [name, writes] of partitions) {
      entry.partitions.add(name);
      entry.writes += writes;
    }
    shared.set(family, entry);
  }
  return [...shared.entries()].map(([family, entry]) => ({
    index: entry.index,
    template: family.slice(entry.index.length + 1),
    partitions: entry.partitions.size,
    unitsPerMeeting: entry.writes / bots,
  }));
}

function httpEvent(signed: { body: Buffer; signature: string }): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /webhooks',
    rawPath: '/webhooks',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', [WEBHOOK_SIGNATURE.header]: signed.signature },
    requestContext: {
      accountId: '000000000000',
      apiId: 'capacity',
      domainName: 'capacity.local',
      domainPrefix: 'capacity',
      http: {
        method: 'POST',
        path: '/webhooks',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'python-requests',
      },
      requestId: 'capacity',
      routeKey: 'POST /webhooks',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: signed.body.toString('base64'),
    isBase64Encoded: true,
  };
}

/**
 * Archives one ended meeting with the real archive core: its webhooks are sent
 * through the ingress and consumer first (as in production, the archive then
 * finds every line already delivered), the service is the local simulator.
 */
async function measureArchive(run: {
  events: DomainEventPublisher;
  table: TableShape;
  raw: DynamoDBClient;
  resources: Awaited<ReturnType<typeof createLocalResources>>;
  setMeter(meter: Meter): void;
  ingress(payload: { [key: string]: PyValue }): Promise<void>;
  drain(): Promise<void>;
  utterances: number;
}): Promise<ArchiveCost> {
  const service = new SimulatedServiceApi();
  await service.start();
  service.apiKeys.set('capacity', 'all');
  try {
    const botId = 'bot_capacity_archive';
    const sent = meetingWebhookPayloads(botId, run.utterances, Date.parse('2026-11-20T10:00:00Z') * 1000);
    run.setMeter(newMeter());
    for (const payload of [...sent.start, ...sent.transcript, ...sent.end]) await run.ingress(payload);
    await run.drain();
    const transcript = sent.transcript
      .filter((payload) => payload.trigger === 'transcript.update')
      .map((payload) => payload.data as { [key: string]: PyValue });
    service.addBot({
      id: botId,
      state: 'ended',
      recording: { size: 1024 * 1024, seed: 7, contentType: 'video/mp4' },
      transcript: transcript as Array<Record<string, unknown>>,
      participants: [],
    });
    const meter = newMeter();
    run.setMeter(meter);
    const bucket = `${run.resources.tableName}-recordings`;
    await s3Client().send(new CreateBucketCommand({ Bucket: bucket }));
    const recordingsS3 = meteredByAction(s3Client(), meter.s3);
    await archiveMeeting(botId, {
      table: {
        db: meteredDynamo(documentClient(), {
          raw: run.raw,
          tableName: run.resources.tableName,
          table: run.table,
          marshalled: false,
          meter: meter.dynamo,
        }),
        tableName: run.resources.tableName,
      },
      upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'capacity' }),
      recordings: s3Recordings(recordingsS3, bucket),
      events: run.events,
      openDownload: (url) =>
        openDownload(url, { allowLoopback: true, maxBytes: 1 << 30, transfer: DEFAULT_RECORDING_TRANSFER }),
      maxRecordingBytes: 1 << 30,
      downloadAttempts: 1,
      // The lake's writes are not metered here: this measures the archive's own requests.
      lake: lakeWriterDependencies(
        s3Client(),
        bucket,
        { db: documentClient(), tableName: run.resources.tableName },
        silentTelemetry,
      ),
      telemetry: silentTelemetry,
      now: () => new Date(),
    });
    const d = meter.dynamo;
    const parts = meter.s3.UploadPart ?? 0;
    return {
      utterances: run.utterances,
      dynamo: {
        readUnits: d.readUnits,
        writeUnits: d.tableWriteUnits + Object.values(d.indexWriteUnits).reduce((a, b) => a + b, 0),
        writeRequests: d.writeRequests,
      },
      s3Requests: Object.values(meter.s3).reduce((a, b) => a + b, 0) - parts,
      sqsRequests: Object.values(meter.sqs).reduce((a, b) => a + b, 0),
    };
  } finally {
    await service.stop();
  }
}
