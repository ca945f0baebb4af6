/**
 * Forged webhooks against the quarantine (lambdas/core/ingress/quarantine.ts): anyone can POST
 * bodies with a well-formed signature that fails the HMAC, and each such body may be kept. A flood
 * of them must not make erasing a meeting read the flood (erasure lists only the meeting's entries),
 * and what is kept is capped across every ingress instance, each drop counted. Real ingress
 * handlers, DynamoDB (dynalite) and a versioned S3 emulator; S3 and DynamoDB calls are counted by
 * wrapping the real clients.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { eraseMeeting } from '../../lambdas/core/erase/erase-meeting';
import { quarantineBotPrefix } from '../../lambdas/core/ingress/quarantine';
import { createIngressHandler } from '../../lambdas/ingress/adapter';
import { dynamoClient } from '../../lambdas/shared/dynamo-plain-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Quarantine } from '../../lambdas/shared/s3-quarantine';
import type { LocalResources } from '../../local/resources';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { eraseDeps, eraseWorldOfFile, seedMeeting, tombstoneOnly, tracesOf } from '../fixtures/erase-harness';
import { localIngress } from '../fixtures/local-ingress';
import { createResources, recordingTelemetry } from '../fixtures/local-pipeline';
import { newSigningSecret, transcriptEnvelope } from '../fixtures/webhooks';
import type { Overrides } from '../fixtures/world';

/** Every call through `client.send`: the command's name and the key or prefix it names. */
function meteredClient<C extends { send: (...args: never[]) => Promise<unknown> }>(real: C) {
  const calls: Array<{ command: string; target: string }> = [];
  const client = Object.create(real) as C;
  const send = real.send.bind(real) as (command: { input: Record<string, unknown> }) => Promise<unknown>;
  client.send = (async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const { Key, Prefix } = command.input;
    calls.push({ command: command.constructor.name, target: String(Key ?? Prefix ?? '') });
    return send(command);
  }) as unknown as C['send'];
  return { client, calls };
}

const AT = new Date('2026-11-23T11:30:00Z');
const forger = newSigningSecret();

/** The real ingress handler, as one function instance, on the resources with the caps `overrides` set; its clock at AT. */
function ingressInstance(resources: LocalResources, overrides: Overrides, db: DynamoDBClient = dynamoClient()) {
  const { telemetry, metrics } = recordingTelemetry();
  const deps = localIngress(resources, { signingSecret: newSigningSecret(), overrides, telemetry, db });
  const handler = createIngressHandler({ ...deps, now: () => AT });
  const post = async (payload: Parameters<typeof signWebhook>[0]) => {
    const { body, signature } = signWebhook(payload, forger);
    const response = await handler({
      headers: { 'x-webhook-signature': signature },
      body: body.toString('utf8'),
      isBase64Encoded: false,
    } as unknown as Parameters<typeof handler>[0]);
    return response.statusCode ?? 0;
  };
  return { post, metrics };
}

type Instance = ReturnType<typeof ingressInstance>;

async function keysUnder(bucket: string, prefix: string): Promise<string[]> {
  const { Contents = [] } = await s3Client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return Contents.map((object) => String(object.Key));
}

const world = eraseWorldOfFile();

describe('erasure after a flood of forged webhooks', () => {
  async function eraseCounted(botId: string) {
    const s3 = meteredClient(s3Client());
    const receipt = await eraseMeeting(botId, 'request', eraseDeps(world, { s3: s3.client }));
    return Object.assign(s3.calls, { receipt });
  }

  it("reads only the erased meeting's quarantine entries, however many other bots' there are", async () => {
    // A meeting erased before any flood: what its erasure costs in S3 calls.
    const quiet = await seedMeeting(world, { utterances: 1 });
    const baseline = await eraseCounted(quiet.botId);

    // The flood: forged webhooks naming other bots, and some naming none, through the real ingress.
    const FLOOD = 100;
    const ingress = ingressInstance(world.resources, { QUARANTINE_MAX_PER_MINUTE: '10000' });
    for (let i = 0; i < FLOOD; i++) {
      const payload =
        i % 8 === 0
          ? { calendar_id: `cal_${i}`, trigger: 'calendar.events_update', idempotency_key: randomUUID() }
          : transcriptEnvelope({ bot_id: `bot_forged_${i}` });
      expect(await ingress.post(payload)).toBe(401);
    }
    const flooded = await s3Quarantine(s3Client(), world.resources.payloadBucket).list();
    expect(flooded).toHaveLength(FLOOD);

    const target = await seedMeeting(world, { utterances: 1 });
    // One more refused body naming the meeting, through the ingress: it is the meeting's to erase.
    expect(await ingress.post(transcriptEnvelope({ bot_id: target.botId }))).toBe(401);
    const calls = await eraseCounted(target.botId);
    // The flood costs the erasure nothing: the same calls as before it, none of them a read.
    expect(calls.length).toBe(baseline.length);
    expect(calls.filter((call) => call.command === 'GetObjectCommand')).toEqual([]);
    // Both of its entries found and erased (the quiet meeting had one).
    expect(calls.receipt.counts.payload_objects).toBe(baseline.receipt.counts.payload_objects + 1);
    // No quarantine entry outside the meeting's own folder is listed, only the first layout's prefix (empty).
    const ownPrefix = quarantineBotPrefix(target.botId);
    const quarantineCalls = calls.filter((call) => call.target.startsWith('quarantine/'));
    expect(quarantineCalls.map((call) => call.target).filter((t) => !t.startsWith(ownPrefix))).toEqual([
      'quarantine/2',
    ]);
    expect(calls.filter((call) => call.target === ownPrefix).map((call) => call.command)).toEqual([
      'ListObjectVersionsCommand', // stock-taking: the seeded entry and the ingress's
      'ListObjectVersionsCommand', // the sweep
    ]);

    expect(await tracesOf(world, target.botId)).toEqual(tombstoneOnly(target.botId));
    expect(await keysUnder(world.resources.payloadBucket, ownPrefix)).toEqual([]);
    // Every other bot's entry is still there.
    expect(await s3Quarantine(s3Client(), world.resources.payloadBucket).list()).toEqual(flooded);
  }, 120_000);

  it('still finds the meeting in entries of the first key layout (until they expire), and only there', async () => {
    const meeting = await seedMeeting(world, { utterances: 1 });
    const store = s3Quarantine(s3Client(), world.resources.payloadBucket);
    const legacyEntry = (botId: string, n: number) => ({
      format: 1 as const,
      received_at: AT.toISOString(),
      reason: 'signature-mismatch' as const,
      signature: 'x',
      body: JSON.stringify({ bot_id: botId, n }),
      sha256: `${n}`.padStart(64, '0'),
    });
    await store.put(`quarantine/2026/11/20/${'a'.repeat(64)}-0000000000000001.json`, legacyEntry(meeting.botId, 1));
    await store.put(`quarantine/2026/11/20/${'b'.repeat(64)}-0000000000000002.json`, legacyEntry('bot_other', 2));

    const calls = await eraseCounted(meeting.botId);
    expect(calls.filter((call) => call.command === 'GetObjectCommand').map((call) => call.target)).toEqual([
      `quarantine/2026/11/20/${'a'.repeat(64)}-0000000000000001.json`,
      `quarantine/2026/11/20/${'b'.repeat(64)}-0000000000000002.json`,
    ]);
    expect(await tracesOf(world, meeting.botId)).toEqual(tombstoneOnly(meeting.botId));
    expect(await keysUnder(world.resources.payloadBucket, 'quarantine/2')).toEqual([
      `quarantine/2026/11/20/${'b'.repeat(64)}-0000000000000002.json`,
    ]);
  }, 120_000);
});

describe('the quarantine caps', () => {
  it('hold across ingress instances sharing the table, count every body dropped, and stop writing the counter once full', async () => {
    const resources = await createResources();
    const caps = { QUARANTINE_MAX_PER_MINUTE: '5' };
    const dbs = [meteredClient(dynamoClient()), meteredClient(dynamoClient())];
    const [one, two] = dbs.map((db) => ingressInstance(resources, caps, db.client)) as [Instance, Instance];
    const instances = [one, two];
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push(await (i % 2 === 0 ? one : two).post(transcriptEnvelope({ bot_id: `bot_${i}` })));
    expect(statuses).toEqual(Array(8).fill(401));
    expect(await keysUnder(resources.payloadBucket, 'quarantine/')).toHaveLength(5);
    const capped = instances.flatMap((instance) =>
      instance.metrics.filter((m) => m.name === 'WebhookQuarantineCapped'),
    );
    expect(capped).toHaveLength(3);
    const counterWrites = () => dbs.reduce((sum, db) => sum + db.calls.length, 0);
    // Five admitted (the minute's counter and each bot's), then one refused update per instance.
    expect(counterWrites()).toBe(5 * 2 + 2);

    // Once an instance has seen the minute full it writes nothing more to the counter in that minute.
    for (let i = 0; i < 20; i++) await (i % 2 === 0 ? one : two).post(transcriptEnvelope({ bot_id: `bot_late_${i}` }));
    expect(counterWrites()).toBe(12);
    expect(await keysUnder(resources.payloadBucket, 'quarantine/')).toHaveLength(5);
    expect(instances.flatMap((i) => i.metrics.filter((m) => m.name === 'WebhookQuarantineCapped'))).toHaveLength(23);
  });

  it('keep at most the per-bot share of bodies naming one bot in a day', async () => {
    const resources = await createResources();
    const caps = { QUARANTINE_MAX_PER_BOT_PER_DAY: '3' };
    const [a, b] = [ingressInstance(resources, caps), ingressInstance(resources, caps)];
    for (let i = 0; i < 6; i++) await (i % 2 === 0 ? a : b).post(transcriptEnvelope({ bot_id: 'bot_targeted' }));
    await a.post(transcriptEnvelope({ bot_id: 'bot_elsewhere' }));
    expect(await keysUnder(resources.payloadBucket, quarantineBotPrefix('bot_targeted'))).toHaveLength(3);
    expect(await keysUnder(resources.payloadBucket, quarantineBotPrefix('bot_elsewhere'))).toHaveLength(1);
    expect([...a.metrics, ...b.metrics].filter((m) => m.name === 'WebhookQuarantineCapped')).toHaveLength(3);
  });
});
