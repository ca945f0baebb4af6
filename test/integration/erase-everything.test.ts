/**
 * Issue #15's done-when test on the production code paths end to end: a meeting's webhooks accepted
 * by the real ingress handler (one claim-checked, one refused for its signature and quarantined),
 * applied by the real consumer, archived by the real archive handler against the simulated service
 * twice (a run cut off after its JSON writes, then the service's corrected transcript: two versions
 * of the transcript and of the participants), its events replayed, then erased. Every table and
 * every object version and delete marker of every bucket is searched: only the tombstone names the
 * bot. Then a late webhook through the ingress and re-drives of earlier messages resurrect nothing.
 */

import { randomBytes } from 'node:crypto';
import { ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingStore } from '../../lambdas/core/archive/recording-store';
import { occurrenceScheduleId } from '../../lambdas/core/calendar/calendar-ids';
import { calendarStore } from '../../lambdas/core/calendar/calendar-store';
import { eraseMeeting } from '../../lambdas/core/erase/erase-meeting';
import { replayBotEvents } from '../../lambdas/core/events/replay';
import { LAKE_RESULTS_PREFIX, lakeDayOf } from '../../lambdas/core/lake/lake-layout';
import { keys } from '../../lambdas/core/store/table-layout';
import { sqsClient } from '../../lambdas/shared/aws-clients';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3LakeObjects } from '../../lambdas/shared/s3-lake-objects';
import { SimulatedServiceApi } from '../../local/simulator/api-server';
import { summaryUpdate, transcriptUpdate } from '../../local/simulator/payloads';
import { endedBot } from '../fixtures/ended-meeting';
import {
  type EraseWorld,
  eraseDeps,
  launchFromSchedule,
  MEETING_LINK,
  meetingWebhooks,
  pipelineOf,
  startEraseWorld,
  tombstoneOnly,
  tracesOf,
} from '../fixtures/erase-harness';
import { writeRecent } from '../fixtures/lake-rows';
import { meetingItem } from '../fixtures/store-reader';
import { newSigningSecret, signedEvent } from '../fixtures/webhooks';

let world: EraseWorld;
const service = new SimulatedServiceApi();

beforeAll(async () => {
  world = await startEraseWorld();
  await service.start();
  service.apiKeys.set('k', 'all');
}, 60_000);
afterAll(async () => {
  await service.stop();
  await world?.stop();
});

const ATTENDEE = 'grace@acme.example';
/** The calendar's feed as fetched: the meeting's event (title, attendee, link) and another. */
const calendarFeed = () =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VEVENT',
    'UID:qbr@acme.example',
    'DTSTART:20261123T090000Z',
    'DTEND:20261123T100000Z',
    'SUMMARY:QBR with Grace',
    `ATTENDEE;CN=Grace:mailto:${ATTENDEE}`,
    `LOCATION:${MEETING_LINK}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

/** ~600 KB that Brotli cannot shrink below a ledger item's 400 KB: the ingress claim-checks it. */
const incompressible = () => randomBytes(450 * 1024).toString('base64');

describe('erasing a meeting that went through everything', () => {
  it('leaves only the tombstone, and nothing comes back after a late webhook or re-drives', async () => {
    const started = performance.now();
    const bot = endedBot(service, { size: 256 * 1024, seed: 15 });
    const botId = bot.id;
    // Launched by a calendar's occurrence; the calendar's feed copy names the meeting, its title, an attendee.
    await launchFromSchedule(world, botId, occurrenceScheduleId('ada', 'qbr@acme.example', undefined));
    await calendarStore({ db: documentClient(), tableName: world.resources.tableName }).putFeed('ada', calendarFeed(), {
      etag: '"v1"',
    });
    const copies = [MEETING_LINK, ATTENDEE];
    const pipeline = pipelineOf(world, service, 'k');

    // 1. Webhooks through the ingress: the summary claim-checked, a forged one quarantined.
    const webhooks = meetingWebhooks(botId, { utterances: 3, summary: `Ada said ${incompressible()}` });
    for (const payload of webhooks) {
      const response = await pipeline.ingress(signedEvent(payload, pipeline.signingSecret));
      expect(response.statusCode, String(payload.trigger)).toBe(202);
    }
    const forged = await pipeline.ingress(signedEvent(summaryUpdate(botId, 'forged?'), newSigningSecret()));
    expect(JSON.parse(forged.body ?? '{}').error?.code).toBe('signature-mismatch');

    // 2. The consumer applies them.
    const records = await pipeline.drainEvents();
    expect(pipeline.failures).toEqual([]);
    expect(records).toHaveLength(webhooks.length);
    const claimChecked = records.filter((r) => r.messageAttributes.body_location?.stringValue === 's3');
    expect(claimChecked).toHaveLength(1);
    const inline = records.find((r) => r.messageAttributes.trigger?.stringValue === 'transcript.update');
    expect(inline).toBeDefined();

    // 3. Archive: a run cut off after writing transcript and participants, then the service corrects
    // its transcript and adds a participant, and the job's retry writes both again.
    let puts = 0;
    const cutOff = (store: RecordingStore): RecordingStore => ({
      ...store,
      put: async (...args) => {
        await store.put(...args);
        if (++puts === 2) throw new Error('injected: the archive run was cut off after its JSON writes');
      },
    });
    expect(await pipeline.drainArchive({ recordings: cutOff, maxPolls: 1 })).toBe(1);
    expect(puts).toBe(2);
    expect((await meetingItem(world.resources.tableName, botId))?.archive).toBeUndefined();
    Object.assign(bot.transcript[1]!, { transcription: { transcript: 'line 1, corrected' } });
    bot.participants.push({ id: 'par_3', name: 'Grace', uuid: 'p3', user_uuid: null, is_host: false });
    expect(await pipeline.drainArchive()).toBe(1);
    expect((await meetingItem(world.resources.tableName, botId))?.archive).toMatchObject({
      recordingStatus: 'archived',
    });
    const versions = await s3Client().send(
      new ListObjectVersionsCommand({ Bucket: world.recordingsBucket, Prefix: `meetings/${botId}/` }),
    );
    const perKey = new Map<string, number>();
    for (const v of versions.Versions ?? []) perKey.set(String(v.Key), (perKey.get(String(v.Key)) ?? 0) + 1);
    expect(Object.fromEntries(perKey)).toEqual({
      [`meetings/${botId}/participants.json`]: 2,
      [`meetings/${botId}/recording.mp4`]: 1,
      [`meetings/${botId}/transcript.json`]: 2,
    });

    // 4. Its events replayed from the ledger (the claim-checked body read back from S3).
    const replay = await replayBotEvents(botId, pipeline.processing, { rebuild: true, apply: true });
    expect(replay).toMatchObject({ applied: true, events: webhooks.length, replayed: webhooks.length, failures: [] });

    // 4b. Its lake rows (recent files of its listing day, which the archive wrote; written twice more) and two Athena results naming
    // it (a search's CSV and its metadata), next to one that does not.
    const lake = s3LakeObjects(s3Client(), world.recordingsBucket);
    const day = lakeDayOf(String((await meetingItem(world.resources.tableName, botId))?.listedAt));
    await writeRecent(lake, day, botId, 2);
    await writeRecent(lake, day, botId, 3);
    await lake.put(`${LAKE_RESULTS_PREFIX}q1.csv`, Buffer.from(`"bot_id","text"\n"${botId}","pricing"\n`));
    await lake.put(`${LAKE_RESULTS_PREFIX}q1.csv.metadata`, Buffer.from('\u0000bot_id\u0000text'));
    await lake.put(`${LAKE_RESULTS_PREFIX}q2.csv`, Buffer.from('"n"\n"7"\n'));

    const before = await tracesOf(world, botId, copies);
    // Found in the Parquet files' rows (compressed pages) and in the results' text.
    for (const prefix of ['lake/recent/meetings/', 'lake/recent/utterances/', `${LAKE_RESULTS_PREFIX}q1.csv `])
      expect(
        before.some((trace) => trace.startsWith(`s3 ${world.recordingsBucket} ${prefix}`)),
        prefix,
      ).toBe(true);
    expect(before).toContain(`table ${keys.calendarFeed('ada').pk} FEED`);
    console.log('traces before erasure', before);
    expect(before.some((t) => t.startsWith(`s3 ${world.resources.payloadBucket} quarantine/`))).toBe(true);
    expect(before.some((t) => t.startsWith(`s3 ${world.resources.payloadBucket} claim-check/`))).toBe(true);

    // 5. Erase; search everything.
    const erasing = performance.now();
    const receipt = await eraseMeeting(botId, 'request', eraseDeps(world));
    const eraseMs = performance.now() - erasing;
    console.log('erasure receipt', JSON.stringify(receipt, null, 2), `erased in ${Math.round(eraseMs)} ms`);
    expect(receipt.counts).toEqual({
      // meeting item aside: 2 state changes, 6 utterances (3 by webhook, 3 from the final transcript),
      // 3 participants (the webhook's, 2 filled from the service), a participant event, the summary
      meeting_items: 13,
      // the 7 webhooks, recorded by the ingress on first acceptance
      ledger_records: 7,
      // claim-checked body, quarantine entry, the long summary's two versions (consumer, then the replay's rebuild)
      payload_objects: 4,
      // recording, two transcript and two participants versions
      recording_objects: 5,
      day_listings: 1,
      schedule_links: 1,
      calendar_feeds: 1,
      // its recent files' current rows: a meeting, 3 utterances, a participant
      lake_rows: 5,
      // three versions of each of its 3 recent files: the archive's own, then the two written here
      lake_objects: 9,
      // every Athena result: the CSV naming it, its metadata file, and one that names no bot
      query_results: 3,
    });
    expect(await lake.list(LAKE_RESULTS_PREFIX)).toEqual([]);
    expect(receipt.retained.map((copy) => copy.store)).toEqual(
      expect.arrayContaining(['launcher-execution-history', 'schedule', 'calendar']),
    );
    // The schedule is the caller's and stays (the receipt says so); the feed copy is gone.
    expect(await tracesOf(world, botId, copies)).toEqual(tombstoneOnly(botId));

    // 6. A late webhook (and a late claim-checked one) through the ingress and the consumer; re-drives
    // of an inline and the claim-checked message to the events queue, and of the archive job.
    const late = [
      transcriptUpdate(botId, {
        speakerName: 'Ada',
        speakerUuid: 's9',
        isHost: false,
        timestampMs: 1,
        durationMs: 1,
        text: `late line of ${botId}`,
      }),
      summaryUpdate(botId, `late ${incompressible()}`),
    ];
    for (const payload of late) {
      expect((await pipeline.ingress(signedEvent(payload, pipeline.signingSecret))).statusCode).toBe(202);
    }
    await pipeline.redrive(claimChecked[0]!);
    await pipeline.redrive(inline!);
    const after = await pipeline.drainEvents();
    expect(after.map((r) => r.messageAttributes.body_location?.stringValue).sort()).toEqual([
      'inline',
      'inline',
      's3',
      's3',
    ]);
    expect(pipeline.failures).toEqual([]);
    expect(pipeline.metrics.filter((m) => m.name === 'EventDroppedErased')).toHaveLength(4);
    await sqsClient().send(
      new SendMessageCommand({
        QueueUrl: world.resources.archiveQueueUrl,
        MessageBody: JSON.stringify({ bot_id: botId, reason: 'ended' }),
        MessageGroupId: botId,
        MessageDeduplicationId: `redrive-${botId}`,
      }),
    );
    expect(await pipeline.drainArchive()).toBe(1);
    expect(await tracesOf(world, botId, copies)).toEqual(tombstoneOnly(botId));
    console.log(`whole test ran in ${Math.round(performance.now() - started)} ms`);
  }, 180_000);
});
