/**
 * Every signed webhook is kept, whatever it is about: the service signs calendar,
 * app-session and Zoom OAuth envelopes (no bot_id) alike, and any shape we do not
 * know is stored raw rather than refused after a valid signature (the service
 * gives up after 3 attempts, so a 4xx here is a lost event).
 */

import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/core/store/table-layout';
import { describeUnboundWebhook } from '../../lambdas/core/upstream/webhook-contract';
import { createIngressHandler } from '../../lambdas/ingress/adapter';
import { createProcessEventsHandler } from '../../lambdas/process-events/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { QueuePoller } from '../../local/queue-poller';
import type { LocalResources } from '../../local/resources';
import type { PyValue } from '../../local/simulator/python-json';
import { signedUnboundDeliveries } from '../fixtures/bad-webhooks';
import { localIngress } from '../fixtures/local-ingress';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { pollUntilEmpty } from '../fixtures/queues';
import { newSigningSecret, signedEvent } from '../fixtures/webhooks';

let pipeline: LocalPipeline;
let resources: LocalResources;
const secret = newSigningSecret();
beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources({ visibilityTimeoutSeconds: 1 });
});
afterAll(async () => pipeline?.stop());

async function objectEvents(relatedObject: string) {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: resources.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.relatedObject(relatedObject) },
    }),
  );
  return Items;
}

function pipelineHandlers() {
  const { telemetry, metrics } = recordingTelemetry();
  const ingress = createIngressHandler(localIngress(resources, { signingSecret: secret }));
  const consumer = new QueuePoller({
    sqs: sqsClient(),
    queueUrl: resources.eventsQueueUrl,
    handler: createProcessEventsHandler(processDependencies(resources, telemetry)),
  });
  return { ingress, consumer, metrics };
}

// The envelopes of Attendee's other related objects (bots/webhook_utils.py), as the service sends them.
const calendar = (key: string): { [key: string]: PyValue } => ({
  idempotency_key: key,
  calendar_id: 'cal_8Hk2',
  calendar_deduplication_key: 'team-calendar',
  calendar_metadata: { owner: 'ada@example.com' },
  trigger: 'calendar.events_update',
  data: { state: 'connected', last_successful_sync_at: '2026-11-23T15:00:00Z' },
});
const appSession = (key: string): { [key: string]: PyValue } => ({
  idempotency_key: key,
  app_session_id: 'app_ses_41',
  app_session_metadata: { tenant: 't1' },
  trigger: 'bot.state_change',
  data: {
    old_state: 'connecting',
    new_state: 'connected',
    event_type: 'connected',
    created_at: '2026-11-23T15:00:00Z',
  },
});
const zoomOAuth = (key: string): { [key: string]: PyValue } => ({
  idempotency_key: key,
  zoom_oauth_connection_id: 'zoc_77',
  zoom_oauth_connection_metadata: null,
  user_id: 'u_1',
  account_id: 'acc_1',
  trigger: 'zoom_oauth_connection.state_change',
  data: { state: 'disconnected', connection_failure_data: null },
});

describe('signed webhooks without a bot', () => {
  it('accepts the calendar, app-session and Zoom OAuth envelopes and keeps each once under its object', async () => {
    const { ingress, consumer, metrics } = pipelineHandlers();
    const cases: Array<[string, { [key: string]: PyValue }]> = [
      ['calendar:cal_8Hk2', calendar(randomUUID())],
      ['app_session:app_ses_41', appSession(randomUUID())],
      ['zoom_oauth_connection:zoc_77', zoomOAuth(randomUUID())],
    ];
    for (const [, payload] of cases) {
      // Twice, as a service retry would: one kept event each.
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await ingress(signedEvent(payload, secret));
        expect(response.statusCode).toBe(202);
      }
    }
    await pollUntilEmpty(consumer, resources.eventsQueueUrl);
    for (const [relatedObject, payload] of cases) {
      const items = await objectEvents(relatedObject);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({
        relatedObject,
        trigger: payload.trigger,
        idempotencyKey: payload.idempotency_key,
      });
      expect(JSON.parse(String(items[0]?.body))).toEqual(JSON.parse(JSON.stringify(payload)));
    }
    expect(metrics.filter((m) => m.name === 'EventApplied')).toHaveLength(3);
    expect(metrics.filter((m) => m.name === 'EventDuplicate')).toHaveLength(3);
  });

  it('accepts every signed body of another shape and keeps it raw, never a 4xx', async () => {
    const { ingress, consumer } = pipelineHandlers();
    const deliveries = signedUnboundDeliveries(secret);
    expect(deliveries.length).toBeGreaterThanOrEqual(35);
    const statuses = [];
    for (const delivery of deliveries) statuses.push((await ingress(delivery.event)).statusCode);
    expect(statuses.filter((status) => status !== 202)).toEqual([]);
    await pollUntilEmpty(consumer, resources.eventsQueueUrl);
    // One kept event per idempotency key (a body without one is keyed by its SHA-256).
    const keyOf = (body: Buffer) => {
      const text = body.toString('utf8');
      return describeUnboundWebhook(JSON.parse(text), text).idempotencyKey;
    };
    const expected = new Map(deliveries.map((d) => [keyOf(d.body), d.body.toString('utf8')]));
    const kept = await objectEvents('unknown');
    expect(kept).toHaveLength(expected.size);
    const delivered = new Set(deliveries.map((d) => d.body.toString('utf8')));
    for (const item of kept) {
      expect(expected.has(String(item.idempotencyKey))).toBe(true);
      expect(delivered.has(String(item.body))).toBe(true);
    }
  });
});
