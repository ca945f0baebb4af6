/**
 * The reconciler heals with its own function's environment, as deployed: a `data_deleted` whose
 * webhook was lost erases the meeting here too (`eraseOnUpstreamDelete`), as the webhook would have.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processQueuedEvent } from '../../lambdas/core/events/process-event';
import { reconcileMeetings } from '../../lambdas/core/reconcile/reconcile-meetings';
import { SERVICES, silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { processEventsDependencies } from '../../lambdas/process-events/adapter';
import { reconcilerEnvironmentSchema } from '../../lambdas/reconciler/environment';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { pythonIsoTime, stateChange } from '../../local/simulator/payloads';
import { testEventLog } from '../fixtures/event-log';
import { createResources, type LocalPipeline, queuedMessage, startLocalPipeline } from '../fixtures/local-pipeline';

const service = new SimulatedServiceApi();
const NOW = Date.parse('2026-11-20T15:00:00Z');
let pipeline: LocalPipeline;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});

describe('reconciler and erasure', () => {
  it("queues the erasure of a meeting whose data_deleted webhook was lost, from the reconciler's own environment", async () => {
    const resources = await createResources({ visibilityTimeoutSeconds: 5 });
    const environment = reconcilerEnvironmentSchema.parse(
      resources.deployment.environmentOf(SERVICES.reconciler, { UPSTREAM_BASE_URL: service.baseUrl }),
    );
    const processing = processEventsDependencies(
      environment,
      { db: documentClient(), sqs: sqsClient(), s3: s3Client(), events: testEventLog().publisher },
      silentTelemetry,
    );
    const deleted = pythonIsoTime((NOW - 40 * 60_000) * 1000);
    const bot = service.addBot({
      state: 'data_deleted',
      events: [{ type: 'data_deleted', sub_type: null, created_at: deleted }],
    });
    // Its webhooks stopped at post_processing an hour ago: ended and data_deleted were lost.
    const stuckAt = NOW - 3_600_000;
    await processQueuedEvent(
      queuedMessage(
        stateChange(bot.id, {
          oldState: 'leaving',
          newState: 'post_processing',
          eventType: 'left_meeting',
          createdAtMicros: stuckAt * 1000,
        }),
        new Date(stuckAt),
      ),
      processing,
    );

    const report = await reconcileMeetings({
      table: processing.table,
      upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
      processing,
      archive: processing.archive,
      telemetry: silentTelemetry,
      now: () => NOW,
      staleAfterMs: environment.STALE_AFTER_MINUTES * 60_000,
      maxMeetings: environment.MAX_MEETINGS_PER_RUN,
    });

    expect(report.healed).toEqual([{ botId: bot.id, from: 'post_processing', to: 'data_deleted' }]);
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: resources.erasureQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect(Messages.map((message) => JSON.parse(message.Body ?? '{}'))).toEqual([
      { kind: 'erase', bot_id: bot.id, reason: 'upstream-data-deleted' },
    ]);
  });
});
