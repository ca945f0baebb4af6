import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createArchiveHandler, lakeWriterDependencies } from '../../lambdas/archive/adapter';
import { openDownload } from '../../lambdas/core/archive/download-guard';
import { DEFAULT_RECORDING_TRANSFER } from '../../lambdas/core/archive/recording-transfer';
import { type ProcessDependencies, processQueuedEvent } from '../../lambdas/core/events/process-event';
import { type ReconcileDependencies, reconcileMeetings } from '../../lambdas/core/reconcile/reconcile-meetings';
import { GSI, keys, padMicros, stateShard } from '../../lambdas/core/store/table-layout';
import { SERVICES, silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import { processEventsDependencies } from '../../lambdas/process-events/adapter';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import { QueuePoller } from '../../local/queue-poller';
import type { LocalResources } from '../../local/resources';
import { recordingSha256, SimulatedServiceApi } from '../../local/simulator/api-server';
import { pythonIsoTime, stateChange } from '../../local/simulator/payloads';
import { type TestEventLog, testEventLog } from '../fixtures/event-log';
import { entryProblems } from '../fixtures/event-schemas';
import { faultyClient } from '../fixtures/faulty-client';
import { launched, launchedBot, savedSchedule } from '../fixtures/launched-bots';
import {
  createResources,
  type LocalPipeline,
  queuedMessage,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { archiveJobsByBot } from '../fixtures/queues';
import { botItems, meetingItem } from '../fixtures/store-reader';

const service = new SimulatedServiceApi();
const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-20T15:00:00Z');
let pipeline: LocalPipeline;
let resources: LocalResources;
let processing: ProcessDependencies;
let events: TestEventLog;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});
beforeEach(async () => {
  resources = await createResources({ visibilityTimeoutSeconds: 5 });
  events = testEventLog();
  // The reconciler applies what it heals with its own function's environment, as deployed.
  processing = processEventsDependencies(
    resources.deployment.parsedEnvironmentOf(SERVICES.reconciler, { UPSTREAM_BASE_URL: service.baseUrl }),
    { db: documentClient(), sqs: sqsClient(), s3: s3Client(), events: events.publisher },
    silentTelemetry,
  );
});

function deps(overrides: Partial<ReconcileDependencies> = {}): ReconcileDependencies {
  return {
    table: processing.table,
    upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
    processing,
    archive: processing.archive,
    telemetry: silentTelemetry,
    now: () => NOW,
    staleAfterMs: 15 * 60_000,
    maxMeetings: 50,
    ...overrides,
  };
}

/** Whether the service was asked about the bot since the requests were last cleared. */
const askedAbout = (botId: string) => service.requests.some((request) => request.path.endsWith(`/bots/${botId}`));

/** A meeting whose webhooks stopped at `lastState`, `ageMs` before NOW. */
async function meetingStuckIn(botId: string, lastState: string, ageMs: number): Promise<void> {
  const at = (NOW - ageMs) * 1000;
  await processQueuedEvent(
    queuedMessage(
      stateChange(botId, { oldState: 'joining', newState: lastState, eventType: 'x', createdAtMicros: at }),
      new Date(NOW - ageMs),
    ),
    processing,
  );
}

describe('reconciler', () => {
  it('ends and archives a meeting whose ended webhook was never delivered, in one run', async () => {
    const ended = pythonIsoTime((NOW - 50 * 60_000) * 1000);
    const bot = service.addBot({
      state: 'ended',
      events: [{ type: 'post_processing_completed', sub_type: null, created_at: ended }],
      recording: { size: 3 * 1024 * 1024, seed: 5, contentType: 'video/mp4' },
      transcript: [
        {
          speaker_name: 'A',
          speaker_uuid: 's',
          speaker_user_uuid: null,
          speaker_is_host: true,
          timestamp_ms: 1,
          duration_ms: 1,
          transcription: { transcript: 'hi' },
        },
      ],
      participants: [{ id: 'par_1', name: 'A', uuid: 'p', user_uuid: null, is_host: true }],
    });
    await meetingStuckIn(bot.id, 'joined_recording', HOUR);

    const report = await reconcileMeetings(deps());
    expect(report.healed).toEqual([{ botId: bot.id, from: 'joined_recording', to: 'ended' }]);
    expect(await meetingItem(resources.tableName, bot.id)).toMatchObject({
      state: 'ended',
      stateAt: ended,
      archiveRequested: true,
    });

    // The archive job it queued, run by the real archive handler.
    const bucket = resources.recordingsBucket;
    const upstream = new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k' });
    const archive = createArchiveHandler({
      table: processing.table,
      upstream,
      recordings: s3Recordings(s3Client(), bucket),
      events: processing.events,
      openDownload: (url) =>
        openDownload(url, { allowLoopback: true, maxBytes: 1024 ** 3, transfer: DEFAULT_RECORDING_TRANSFER }),
      maxRecordingBytes: 1024 ** 3,
      downloadAttempts: 3,
      lake: lakeWriterDependencies(s3Client(), bucket, processing.table, silentTelemetry),
      telemetry: silentTelemetry,
      now: () => new Date(NOW),
    });
    const poller = new QueuePoller({
      sqs: sqsClient(),
      queueUrl: resources.archiveQueueUrl,
      handler: archive,
      batchSize: 1,
    });
    expect(await poller.pollOnce(1)).toBe(1);
    const archived = (await meetingItem(resources.tableName, bot.id))?.archive as {
      recordingStatus: string;
      recording: { sha256: string };
    };
    expect(archived).toMatchObject({
      recordingStatus: 'archived',
      recording: { sha256: recordingSha256(5, 3 * 1024 * 1024) },
    });

    // A second run finds nothing to heal and the duplicate synthetic event would dedup.
    expect((await reconcileMeetings(deps())).healed).toEqual([]);

    // After the state it was stuck in (a webhook's), the healed change is published like one, then the archive.
    expect(events.events().map((e) => [e.detailType, e.detail.observed_by ?? e.detail.recording])).toEqual([
      ['meeting.state_changed', 'webhook'],
      ['meeting.state_changed', 'reconciler'],
      ['meeting.ended', undefined],
      ['meeting.outcome', undefined],
      ['meeting.archived', expect.objectContaining({ sha256: recordingSha256(5, 3 * 1024 * 1024) })],
    ]);
    for (const entry of events.entries()) expect(entryProblems(entry)).toEqual([]);
  });

  it('leaves meetings alone whose state changed recently or still matches', async () => {
    const recent = service.addBot({ state: 'ended' });
    await meetingStuckIn(recent.id, 'joined_recording', 5 * 60_000);
    const same = service.addBot({ state: 'joined_recording' });
    await meetingStuckIn(same.id, 'joined_recording', HOUR);
    const report = await reconcileMeetings(deps());
    expect(report.checked).toBe(1);
    expect(report.healed).toEqual([]);
    expect((await meetingItem(resources.tableName, recent.id))?.state).toBe('joined_recording');
  });

  it('checks at most maxMeetings per run and survives bots the service no longer knows', async () => {
    for (let i = 0; i < 5; i++) await meetingStuckIn(`bot_gone${i}`, 'joining', HOUR + i);
    const report = await reconcileMeetings(deps({ maxMeetings: 3 }));
    expect(report.checked).toBe(3);
    expect(report.missing).toHaveLength(3);
  });

  it('reads every shard of the state index, oldest first, and the unsharded entries of earlier releases', async () => {
    // Forty bots stuck in `joining`, a minute apart (bot 0 the oldest), spread over the shards.
    const bots = Array.from({ length: 40 }, (_, i) => `bot_sharded${i}`);
    for (const [i, botId] of bots.entries()) await meetingStuckIn(botId, 'joining', 2 * HOUR - i * 60_000);
    expect(new Set(bots.map(stateShard)).size).toBeGreaterThan(8);
    // The oldest of all, indexed as an earlier release did.
    await meetingStuckIn('bot_unsharded', 'joining', 3 * HOUR);
    await processing.table.db.send(
      new UpdateCommand({
        TableName: resources.tableName,
        Key: keys.meeting('bot_unsharded'),
        UpdateExpression: 'SET #pk = :unsharded',
        ExpressionAttributeNames: { '#pk': GSI.byState.partitionKey },
        ExpressionAttributeValues: { ':unsharded': keys.unshardedState('joining') },
      }),
    );
    const runs = [];
    for (let run = 0; run < 2; run++) runs.push(await reconcileMeetings(deps({ maxMeetings: 10 })));
    // Each run takes the oldest not yet checked, whichever shard holds them.
    expect(runs.map((run) => new Set(run.missing))).toEqual([
      new Set(['bot_unsharded', ...bots.slice(0, 9)]),
      new Set(bots.slice(9, 19)),
    ]);
  });

  it('queues an archive job for a final meeting that has no archive record', async () => {
    const botId = 'bot_final_unarchived';
    await meetingStuckIn(botId, 'fatal_error', HOUR);
    await archiveJobsByBot(resources.archiveQueueUrl); // the job the webhook itself queued
    const report = await reconcileMeetings(deps());
    expect(report.archiveJobs).toEqual([botId]);
  });

  it('sets a bot the service no longer knows aside after three checks, counted', async () => {
    await meetingStuckIn('bot_vanished', 'joining', HOUR);
    const { telemetry, metrics } = recordingTelemetry();
    const reports = [];
    for (let run = 0; run < 4; run++) {
      // Each run comes after the recheck interval, so the bot is due again.
      reports.push(await reconcileMeetings(deps({ now: () => NOW + run * 20 * 60_000, telemetry })));
    }
    expect(reports.map((r) => r.missing.length)).toEqual([1, 1, 1, 0]);
    expect(reports.map((r) => r.unknown)).toEqual([[], [], ['bot_vanished'], []]);
    expect(metrics.filter((point) => point.name === 'ReconcilerUnknownBot')).toHaveLength(1);
    expect(await meetingItem(resources.tableName, 'bot_vanished')).toMatchObject({ serviceMisses: 3 });
  });

  it('reads REST times as the webhooks spell them, and one bad bot does not stop the run', async () => {
    const spaced = service.addBot({
      state: 'post_processing',
      events: [{ type: 'x', sub_type: null, created_at: '2026-11-20 14:20:00.5+0000' }],
    });
    const unreadable = service.addBot({ state: 'ended', events: [{ type: 'x', sub_type: null, created_at: 'soon' }] });
    await meetingStuckIn(unreadable.id, 'joining', 2 * HOUR);
    await meetingStuckIn(spaced.id, 'joining', HOUR);
    const report = await reconcileMeetings(deps());
    expect(report.healed).toEqual([{ botId: spaced.id, from: 'joining', to: 'post_processing' }]);
    expect(await meetingItem(resources.tableName, spaced.id)).toMatchObject({ stateAt: '2026-11-20T14:20:00.500000Z' });
    expect(report.failures).toEqual([{ botId: unreadable.id, error: expect.stringMatching(/without an event time/) }]);
  });

  it('queues at most three backstop archive jobs for one meeting', async () => {
    const botId = 'bot_never_archives';
    await meetingStuckIn(botId, 'ended', HOUR);
    const reports = [];
    for (let run = 0; run < 5; run++) reports.push(await reconcileMeetings(deps()));
    expect(reports.map((r) => r.archiveJobs.length)).toEqual([1, 1, 1, 0, 0]);
    expect(reports.map((r) => r.archiveGivenUp)).toEqual([[], [], [], [botId], [botId]]);
  });

  it('stops at once when the API key is refused', async () => {
    await meetingStuckIn('bot_unauthorized', 'joining', HOUR);
    await expect(
      reconcileMeetings(
        deps({ upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'revoked' }) }),
      ),
    ).rejects.toThrow(/401/);
  });
});

describe('reconciler and bots launched but never heard from', () => {
  it('heals a silent launched bot once its join time has passed, and archives it once', async () => {
    const bot = await launchedBot(service, processing.table, 'silent-ended', NOW - 2 * HOUR, NOW - 3 * HOUR);
    // Launched: the meeting shows the state the service answered with, before any webhook.
    expect(await meetingItem(resources.tableName, bot.id)).toMatchObject({
      state: 'scheduled',
      scheduleId: 'silent-ended',
    });
    // The meeting happened at the service; not one of its webhooks reached us.
    const endedMicros = (NOW - HOUR) * 1000;
    const endedAt = pythonIsoTime(endedMicros);
    Object.assign(bot, {
      state: 'ended',
      events: [{ type: 'post_processing_completed', sub_type: null, created_at: endedAt }],
      recording: { size: 4096, seed: 9, contentType: 'video/mp4' },
    });

    // Two runs at once (a slow run overlapping the next): the heal still happens once.
    const runs = await Promise.all([reconcileMeetings(deps()), reconcileMeetings(deps())]);
    expect(runs.flatMap((run) => run.healed)).toEqual([{ botId: bot.id, from: 'scheduled', to: 'ended' }]);
    expect(await meetingItem(resources.tableName, bot.id)).toMatchObject({
      state: 'ended',
      stateAt: endedAt,
      archiveRequested: true,
    });
    expect((await archiveJobsByBot(resources.archiveQueueUrl)).get(bot.id)).toBe(1);
    const history = await botItems(resources.tableName, bot.id, 'STATE#');
    expect(history.map((item) => item.idempotencyKey)).toEqual([`reconciler:${bot.id}:ended:${endedAt}`]);
    // In the ledger like a webhook: deduped by its key, kept for replay and the delivery log.
    expect(await processing.ledger.eventsOfBot(bot.id)).toMatchObject([
      { idempotencyKey: `reconciler:${bot.id}:ended:${endedAt}`, trigger: 'bot.state_change', status: 'completed' },
    ]);

    // The real webhooks arrive late after all: nothing moves back, no second archive job.
    for (const [from, to, micros] of [
      ['joined_recording', 'post_processing', endedMicros - 60_000_000],
      ['post_processing', 'ended', endedMicros],
    ] as const) {
      const outcome = await processQueuedEvent(
        queuedMessage(
          stateChange(bot.id, { oldState: from, newState: to, eventType: 'x', createdAtMicros: micros }),
          new Date(NOW),
        ),
        processing,
      );
      expect(outcome).toMatchObject({ status: 'applied', effects: { stateApplied: false, archiveRequested: false } });
    }
    expect(await meetingItem(resources.tableName, bot.id)).toMatchObject({ state: 'ended', stateAt: endedAt });
    expect((await reconcileMeetings(deps({ now: () => NOW + HOUR }))).checked).toBe(0);
  });

  it('does not ask the service about a launched bot until its join time is past by the stale window', async () => {
    const due = await launchedBot(service, processing.table, 'silent-due', NOW - 10 * 60_000, NOW - HOUR);
    const ahead = await launchedBot(service, processing.table, 'silent-ahead', NOW + 2 * HOUR, NOW - HOUR);
    service.requests.length = 0;
    const first = await reconcileMeetings(deps());
    expect(first.checked).toBe(0);
    expect(askedAbout(due.id) || askedAbout(ahead.id)).toBe(false);

    // In the meeting since its join time; its webhooks were lost.
    Object.assign(due, {
      state: 'joined_recording',
      events: [{ type: 'bot_recording', sub_type: null, created_at: pythonIsoTime((NOW - 9 * 60_000) * 1000) }],
    });
    const later = await reconcileMeetings(deps({ now: () => NOW + 30 * 60_000 }));
    expect(later.checked).toBe(1);
    expect(later.healed).toEqual([{ botId: due.id, from: 'scheduled', to: 'joined_recording' }]);
    expect(askedAbout(ahead.id)).toBe(false);
  });

  it('waits for the new join time of a bot the service still holds scheduled', async () => {
    const bot = await launchedBot(service, processing.table, 'silent-moved', NOW - 30 * 60_000, NOW - 2 * HOUR);
    // Moved at the service after the launch: the meeting still shows the old join time.
    bot.join_at = new Date(NOW + 3 * HOUR).toISOString();
    const runs = [];
    for (const at of [NOW, NOW + 20 * 60_000, NOW + 3 * HOUR + 20 * 60_000])
      runs.push(await reconcileMeetings(deps({ now: () => at })));
    expect(runs.map((run) => run.checked)).toEqual([1, 0, 1]);
    expect(runs.flatMap((run) => [...run.healed, ...run.failures])).toEqual([]);
    expect(await meetingItem(resources.tableName, bot.id)).toMatchObject({
      state: 'scheduled',
      [GSI.byState.sortKey]: `${padMicros((NOW + 3 * HOUR) * 1000)}#${bot.id}`,
    });
  });

  it('lets a webhook win over the launch, and a launch recorded late keeps the webhook state', async () => {
    const joinAt = NOW + HOUR;
    const startedAt = (joinAt - 7 * 60_000) * 1000; // the service starts it minutes ahead
    const joining = (botId: string) =>
      processQueuedEvent(
        queuedMessage(
          stateChange(botId, { oldState: 'staged', newState: 'joining', eventType: 'x', createdAtMicros: startedAt }),
          new Date(startedAt / 1000),
        ),
        processing,
      );

    const first = await launchedBot(service, processing.table, 'heard-after', joinAt, NOW);
    expect(await joining(first.id)).toMatchObject({ effects: { stateApplied: true } });
    expect(await meetingItem(resources.tableName, first.id)).toMatchObject({
      state: 'joining',
      scheduleId: 'heard-after',
    });

    // The launch fails right after recording the bot on its schedule, before the meeting (a table timeout).
    const input = await savedSchedule(service, processing.table, 'heard-first', joinAt, NOW);
    const faulty = faultyClient(processing.table.db);
    faulty.reset({ failAt: 3, mode: 'before' });
    const table = { db: faulty.client, tableName: resources.tableName };
    await expect(launched(service, table, input, NOW)).rejects.toThrow(/injected fault/);
    const [bot] = [...service.bots.values()].filter((b) => b.metadata?.schedule_id === 'heard-first');
    if (bot === undefined) throw new Error('no bot launched');
    expect(await meetingItem(resources.tableName, bot.id)).toBeUndefined();
    await joining(bot.id);
    // The retry finds the bot recorded and records the meeting, without undoing the state.
    faulty.reset();
    expect((await launched(service, table, input, NOW + 60_000)).id).toBe(bot.id);
    expect(await meetingItem(resources.tableName, bot.id)).toMatchObject({
      state: 'joining',
      scheduleId: 'heard-first',
      [GSI.byState.partitionKey]: keys.meetingsInState('joining', bot.id),
    });
  });
  it('queues the erasure of a meeting whose data_deleted webhook was lost, as the webhook would have', async () => {
    const deleted = pythonIsoTime((NOW - 40 * 60_000) * 1000);
    const bot = service.addBot({
      state: 'data_deleted',
      events: [{ type: 'data_deleted', sub_type: null, created_at: deleted }],
    });
    // Its webhooks stopped at post_processing an hour ago: ended and data_deleted were lost.
    await meetingStuckIn(bot.id, 'post_processing', HOUR);

    expect((await reconcileMeetings(deps())).healed).toEqual([
      { botId: bot.id, from: 'post_processing', to: 'data_deleted' },
    ]);
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: resources.erasureQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect(Messages.map((message) => JSON.parse(message.Body ?? '{}'))).toEqual([
      { kind: 'erase', bot_id: bot.id, reason: 'upstream-data-deleted' },
    ]);
  });
});
