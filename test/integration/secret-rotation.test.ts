/**
 * A signing-secret rotation as the service does it: it signs with the new secret at
 * once, before we have stored it. Those webhooks are refused and quarantined (each
 * of the service's 3 attempts lands on one entry); once the store holds the new
 * secret, a re-drive queues each of them, and each is applied exactly once.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redriveQuarantine } from '../../lambdas/core/ingress/redrive-quarantine';
import type { SecretSource } from '../../lambdas/core/secrets';
import { SK_PREFIX } from '../../lambdas/core/store/table-layout';
import { createIngressHandler } from '../../lambdas/ingress/adapter';
import { createProcessEventsHandler } from '../../lambdas/process-events/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Quarantine } from '../../lambdas/shared/s3-quarantine';
import { QueuePoller } from '../../local/queue-poller';
import type { LocalResources } from '../../local/resources';
import { stateChange, transcriptUpdate } from '../../local/simulator/payloads';
import type { PyValue } from '../../local/simulator/python-json';
import { localIngress } from '../fixtures/local-ingress';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { pollUntilEmpty } from '../fixtures/queues';
import { botItems, meetingItem } from '../fixtures/store-reader';
import { newSigningSecret, signedEvent } from '../fixtures/webhooks';

let pipeline: LocalPipeline;
let resources: LocalResources;
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources({ visibilityTimeoutSeconds: 1 });
});
afterAll(async () => pipeline?.stop());

describe('signing secret rotation', () => {
  it('quarantines webhooks signed with a secret not yet stored, and applies each once after the update', async () => {
    const oldSecret = newSigningSecret();
    const newSecret = newSigningSecret();
    let stored = JSON.stringify([oldSecret]);
    const signingSecret: SecretSource = { read: async () => stored };
    const { telemetry, metrics } = recordingTelemetry();
    const ingressDeps = localIngress(resources, { signingSecret, overrides: { SECRET_CACHE_SECONDS: '0' }, telemetry });
    const ingress = createIngressHandler(ingressDeps);
    const consumer = new QueuePoller({
      sqs: sqsClient(),
      queueUrl: resources.eventsQueueUrl,
      handler: createProcessEventsHandler(processDependencies(resources, telemetry)),
    });

    const bot = `bot_rotation_${randomUUID().slice(0, 8)}`;
    const t0 = Date.parse('2026-11-23T15:00:00Z') * 1000;
    const utterance = (i: number) =>
      transcriptUpdate(bot, {
        speakerName: i % 2 === 0 ? 'Ada' : 'Lin',
        speakerUuid: `s${i % 2}`,
        isHost: i % 2 === 0,
        timestampMs: 1000 * (i + 1),
        durationMs: 800,
        text: `line ${i}`,
      });
    const beforeRotation: PyValue[] = [
      stateChange(bot, {
        oldState: 'joining',
        newState: 'joined_recording',
        eventType: 'bot_joined',
        createdAtMicros: t0,
      }),
      ...Array.from({ length: 5 }, (_, i) => utterance(i)),
    ];
    const afterRotation: PyValue[] = [
      ...Array.from({ length: 25 }, (_, i) => utterance(5 + i)),
      stateChange(bot, {
        oldState: 'joined_recording',
        newState: 'leaving',
        eventType: 'bot_left',
        createdAtMicros: t0 + 60_000_000,
      }),
    ];

    for (const payload of beforeRotation) {
      expect((await ingress(signedEvent(payload, oldSecret))).statusCode).toBe(202);
    }
    // The service rotated: everything is signed with the new secret, each tried 3 times.
    const statuses: number[] = [];
    for (const payload of afterRotation) {
      for (let attempt = 0; attempt < 3; attempt++)
        statuses.push((await ingress(signedEvent(payload, newSecret))).statusCode ?? 0);
    }
    // A forgery, quarantined like the rest, never re-driven.
    const forged = utterance(99);
    expect((await ingress(signedEvent(forged, newSigningSecret()))).statusCode).toBe(401);
    expect(statuses.filter((s) => s === 401)).toHaveLength(afterRotation.length * 3);

    await pollUntilEmpty(consumer, resources.eventsQueueUrl);
    expect(await botItems(resources.tableName, bot, SK_PREFIX.utterance)).toHaveLength(5);
    const quarantine = s3Quarantine(s3Client(), resources.payloadBucket);
    expect(await quarantine.list()).toHaveLength(afterRotation.length + 1);
    expect(metrics.filter((m) => m.name === 'WebhookQuarantined')).toHaveLength(afterRotation.length * 3 + 1);

    // Before the store is updated, a re-drive finds nothing that verifies.
    const early = await redriveQuarantine(quarantine, ingressDeps);
    expect(early.redriven).toHaveLength(0);
    expect(early.stillRefused).toHaveLength(afterRotation.length + 1);

    stored = JSON.stringify([newSecret, oldSecret]);
    const report = await redriveQuarantine(quarantine, ingressDeps);
    expect(report.redriven).toHaveLength(afterRotation.length);
    expect(report.stillRefused).toHaveLength(1);
    expect(report.failed).toEqual([]);
    // A second re-drive (or one run twice at once) queues nothing more.
    expect((await redriveQuarantine(quarantine, ingressDeps)).redriven).toHaveLength(0);
    await pollUntilEmpty(consumer, resources.eventsQueueUrl);

    const utterances = await botItems(resources.tableName, bot, SK_PREFIX.utterance);
    expect(utterances).toHaveLength(30);
    expect(new Set(utterances.map((u) => u.text)).size).toBe(30);
    expect((await meetingItem(resources.tableName, bot))?.state).toBe('leaving');
    const applied = metrics.filter((m) => m.name === 'EventApplied').length;
    const duplicates = metrics.filter((m) => m.name === 'EventDuplicate').length;
    expect(applied).toBe(beforeRotation.length + afterRotation.length);
    expect(duplicates).toBe(0);
    expect(await quarantine.list()).toHaveLength(1);
  });
});
