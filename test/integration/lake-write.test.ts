/**
 * The archive writes a meeting's lake rows: dynalite and fauxqs (SQS) as other archive tests use
 * them, S3 on the versioned emulator (so "no new object version" and "every version deleted" are
 * seen), the simulated service, and DuckDB over a directory mirroring the bucket's `lake/`.
 */
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, ListObjectVersionsCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeWriterDependencies } from '../../lambdas/archive/adapter';
import { recordLaunchedMeeting } from '../../lambdas/core/apply/state-change';
import { type ArchiveDependencies, archiveMeeting } from '../../lambdas/core/archive/archive-meeting';
import { openDownload } from '../../lambdas/core/archive/download-guard';
import { writeFinalTranscript } from '../../lambdas/core/archive/fill-gaps';
import { DEFAULT_RECORDING_TRANSFER } from '../../lambdas/core/archive/recording-transfer';
import { occurrenceScheduleId } from '../../lambdas/core/calendar/calendar-ids';
import type { DomainEventPublisher } from '../../lambdas/core/domain-events/publisher';
import { processQueuedEvent } from '../../lambdas/core/events/process-event';
import { LAKE_ATTRIBUTE, type LakeObjects } from '../../lambdas/core/lake/lake-contract';
import { resultObjects } from '../../lambdas/core/lake/lake-engine';
import { LAKE_PREFIX, lakeKeys, NOTHING_COMPACTED } from '../../lambdas/core/lake/lake-layout';
import type { LakeTableName } from '../../lambdas/core/lake/lake-tables';
import { type LakeFold, writeMeetingToLake } from '../../lambdas/core/lake/lake-writer';
import { decodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { readTranscript } from '../../lambdas/core/read/read-transcript';
import { ERASURE_ATTRIBUTE, keys } from '../../lambdas/core/store/table-layout';
import { METRICS, type Telemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import type { TranscriptLine } from '../../lambdas/core/upstream/rest-contract';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { mirrorLake } from '../../local/lake/lake-mirror';
import type { LocalResources } from '../../local/resources';
import { type SimulatedBot, SimulatedServiceApi } from '../../local/simulator/api-server';
import { stateChange, summaryUpdate } from '../../local/simulator/payloads';
import { testEventLog } from '../fixtures/event-log';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  recordingTelemetry,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { scratchDir } from '../fixtures/scratch';
import { meetingItem } from '../fixtures/store-reader';
import { startVersionedS3, type VersionedS3 } from '../fixtures/versioned-s3';

const service = new SimulatedServiceApi();
let pipeline: LocalPipeline;
let s3: VersionedS3;
let resources: LocalResources;
const BUCKET = 'lake-write-test';
/** The meetings join on 2026-11-19 (their lake day); the archive runs the next day. */
const START = Date.parse('2026-11-19T22:00:00Z');
const ARCHIVED_AT = '2026-11-20T12:00:00.000Z';
const DAY = '2026-11-19';

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  s3 = await startVersionedS3();
  process.env.AWS_ENDPOINT_URL_S3 = s3.endpoint;
  resources = await createResources();
  await s3Client().send(new CreateBucketCommand({ Bucket: BUCKET }));
  await s3Client().send(
    new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await s3?.stop();
  await pipeline?.stop();
});

const table = () => ({ db: documentClient(), tableName: resources.tableName });

/** A fold that says nothing is compacted (or that `through` is), and records the days it is asked to fold. */
function recordingFold(through = NOTHING_COMPACTED): LakeFold & { folded: string[] } {
  const folded: string[] = [];
  return { folded, compactedThrough: async () => through, foldDay: async (day) => void folded.push(day) };
}

function lakeDeps(options: { fold?: LakeFold; telemetry?: Telemetry; objects?: (o: LakeObjects) => LakeObjects } = {}) {
  const lake = lakeWriterDependencies(
    s3Client(),
    BUCKET,
    table(),
    options.telemetry ?? recordingTelemetry().telemetry,
    {
      fold: options.fold ?? recordingFold(),
      now: () => new Date(ARCHIVED_AT),
    },
  );
  if (options.objects === undefined) return lake;
  // The writer the archive calls must see the wrapped objects too.
  const wrapped = { ...lake, objects: options.objects(lake.objects) };
  return { ...wrapped, write: (botId: string) => writeMeetingToLake(botId, wrapped) };
}

function deps(overrides: Partial<ArchiveDependencies> = {}): ArchiveDependencies {
  return {
    table: table(),
    upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
    recordings: s3Recordings(s3Client(), BUCKET),
    events: testEventLog().publisher,
    openDownload: (url) =>
      openDownload(url, { allowLoopback: true, maxBytes: 1 << 20, transfer: DEFAULT_RECORDING_TRANSFER }),
    maxRecordingBytes: 1 << 20,
    downloadAttempts: 3,
    lake: lakeDeps(),
    telemetry: recordingTelemetry().telemetry,
    now: () => new Date(ARCHIVED_AT),
    ...overrides,
  };
}

const line = (i: number, text: string, speaker = i % 2): TranscriptLine => ({
  speaker_name: `Speaker ${speaker}`,
  speaker_uuid: `s${speaker}`,
  speaker_user_uuid: null,
  speaker_is_host: speaker === 0,
  // Epoch times 5 s after the recording started: offsets count from the recording start.
  timestamp_ms: START + 5000 + i * 1000,
  duration_ms: 800,
  transcription: { transcript: text },
});

type Participant = SimulatedBot['participants'][number];
const PARTICIPANTS: Participant[] = [
  { id: 'par_1', name: 'Ada', uuid: 'p1', user_uuid: null, is_host: true },
  { id: 'par_2', name: 'Lin', uuid: 'p2', user_uuid: 'u2', is_host: false },
];

/**
 * An ended meeting launched from a calendar's schedule, its state changes and summary applied
 * through the webhook path, and its final transcript and participants at the service.
 */
async function endedMeeting(
  transcript: TranscriptLine[],
  participants: Participant[] = PARTICIPANTS,
  summary = 'They agreed on pricing.',
): Promise<{ botId: string; scheduleId: string }> {
  const scheduleId = occurrenceScheduleId('cal_team', `uid-${randomUUID()}`, undefined);
  const bot = service.addBot({
    state: 'ended',
    recording: { size: 2048, seed: 7, contentType: 'video/mp4' },
    transcript: transcript as unknown as Array<Record<string, unknown>>,
    participants,
  });
  await recordLaunchedMeeting(table(), {
    botId: bot.id,
    scheduleId,
    joinAt: new Date(START).toISOString(),
    meetingUrl: 'https://meet.example.com/abc',
    state: 'scheduled',
  });
  const processing = processDependencies(resources);
  const webhooks = [
    stateChange(bot.id, {
      oldState: 'joining',
      newState: 'joined_recording',
      eventType: 'x',
      createdAtMicros: START * 1000,
    }),
    summaryUpdate(bot.id, summary),
    stateChange(bot.id, {
      oldState: 'leaving',
      newState: 'ended',
      eventType: 'y',
      createdAtMicros: (START + 1_800_000) * 1000,
    }),
  ];
  for (const webhook of webhooks) await processQueuedEvent(queuedMessage(webhook, new Date(START)), processing);
  return { botId: bot.id, scheduleId };
}

async function lakeRows(table: LakeTableName, botId: string, day = DAY) {
  const object = await lakeDeps().objects.get(lakeKeys.recentFile(table, day, botId));
  if (object === null) throw new Error(`no ${table} file for ${botId}`);
  return decodeLakeRows(table, object.body);
}

/** Versions (and delete markers) of every lake object whose key names the bot. */
async function lakeVersionsOf(botId: string): Promise<Array<{ key: string; versionId: string }>> {
  const page = await s3Client().send(new ListObjectVersionsCommand({ Bucket: BUCKET, Prefix: LAKE_PREFIX }));
  return [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
    .filter((version) => version.Key?.includes(botId))
    .map((version) => ({ key: version.Key as string, versionId: version.VersionId as string }));
}

/** DuckDB over local mode's mirror of the bucket's `lake/`. */
async function duckDbOverLake() {
  const root = scratchDir('lake-write-');
  await mirrorLake(s3Client(), BUCKET, root);
  return createDuckDbLakeEngine({ root });
}

async function setTombstone(botId: string): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: resources.tableName,
      Key: keys.meeting(botId),
      UpdateExpression: 'SET #erasure = :erasure',
      ExpressionAttributeNames: { '#erasure': ERASURE_ATTRIBUTE },
      ExpressionAttributeValues: { ':erasure': { requestedAt: ARCHIVED_AT } },
    }),
  );
}

describe('the archive writes the meeting to the lake', () => {
  it("writes the three recent files with the read API's offsets, the meeting's times, schedule, calendar and summary", async () => {
    const transcript = [line(0, 'hello'), line(1, 'we discussed pricing'), line(2, 'bye')];
    const { botId, scheduleId } = await endedMeeting(transcript);
    const { telemetry, metrics } = recordingTelemetry();
    const puts: string[] = [];
    const lake = lakeDeps({
      telemetry,
      objects: (objects) => ({
        ...objects,
        put: (key, body) => {
          puts.push(key);
          return objects.put(key, body);
        },
      }),
    });
    const outcome = await archiveMeeting(botId, deps({ lake }));
    // The meetings file last: a reader that sees the meeting row sees its lines and participants.
    expect(puts).toEqual(
      (['utterances', 'participants', 'meetings'] as const).map((name) => lakeKeys.recentFile(name, DAY, botId)),
    );
    expect(outcome.lake).toEqual({
      day: DAY,
      status: 'written',
      rows: { meetings: 1, utterances: 3, participants: 2 },
      folded: false,
    });

    const served = await readTranscript(botId, table());
    expect(served.offsets_from).toBe('recording_start');
    const utterances = await lakeRows('utterances', botId);
    expect(utterances).toEqual(
      served.utterances.map((u, seq) => ({
        bot_id: botId,
        seq,
        offset_ms: u.offset_ms,
        duration_ms: 800,
        speaker: u.speaker_name,
        speaker_id: u.speaker_uuid,
        text: u.text,
        language: null,
      })),
    );
    expect(utterances.map((u) => u.offset_ms)).toEqual([5000, 6000, 7000]);
    expect(await lakeRows('participants', botId)).toEqual([
      {
        bot_id: botId,
        participant_id: 'p1',
        name: 'Ada',
        user_id: null,
        is_host: true,
        joined_at: null,
        left_at: null,
      },
      {
        bot_id: botId,
        participant_id: 'p2',
        name: 'Lin',
        user_id: 'u2',
        is_host: false,
        joined_at: null,
        left_at: null,
      },
    ]);
    expect(await lakeRows('meetings', botId)).toEqual([
      {
        bot_id: botId,
        state: 'ended',
        started_at: '2026-11-19T22:00:00.000Z',
        ended_at: '2026-11-19T22:30:00.000Z',
        duration_ms: 1_800_000,
        utterance_count: 3,
        participant_count: 2,
        speaker_count: 2,
        schedule_id: scheduleId,
        calendar_id: 'cal_team',
        summary: 'They agreed on pricing.',
        archived_at: ARCHIVED_AT,
        lake_version: ARCHIVED_AT,
        // Joined at 22:00, ended at 22:30: recorded (docs/read-api.md has every status and reason).
        outcome_status: 'recorded',
        outcome_reason: 'meeting_ended',
      },
    ]);
    const record = (await meetingItem(resources.tableName, botId))?.[LAKE_ATTRIBUTE];
    expect(record).toEqual({ day: DAY, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), version: ARCHIVED_AT });
    expect(metrics.filter((m) => m.name === METRICS.lakeRowsWritten.name)).toEqual([
      { name: METRICS.lakeRowsWritten.name, dimensions: { table: 'utterances' } },
      { name: METRICS.lakeRowsWritten.name, dimensions: { table: 'participants' } },
      { name: METRICS.lakeRowsWritten.name, dimensions: { table: 'meetings' } },
    ]);
  });

  it('carries a summary too long for its item (kept in the payload bucket) whole in the meetings row', async () => {
    const summary = `Long: ${'pricing and roadmap. '.repeat(5_000)}`;
    const { botId } = await endedMeeting([line(0, 'hi')], PARTICIPANTS, summary);
    await archiveMeeting(botId, deps());
    expect((await lakeRows('meetings', botId))[0]?.summary).toBe(summary);
  });

  it('writes no new object version when the archive runs again unchanged', async () => {
    const { botId } = await endedMeeting([line(0, 'once')]);
    await archiveMeeting(botId, deps());
    const before = await lakeVersionsOf(botId);
    expect(before).toHaveLength(3);
    const again = await archiveMeeting(botId, deps());
    expect(again.status).toBe('already-archived');
    expect(again.lake.status).toBe('unchanged');
    expect(await lakeVersionsOf(botId)).toEqual(before);
  });

  it('replaces the rows when a line of the final transcript is corrected: one row per line, no duplicates', async () => {
    const transcript = [line(0, 'first'), line(1, 'the price is 10'), line(2, 'third')];
    const { botId } = await endedMeeting(transcript);
    await archiveMeeting(botId, deps());
    // The service's final transcript changed one line; the archive's final write takes it, and the job runs again.
    const corrected = [transcript[0], line(1, 'the price is 12'), transcript[2]] as TranscriptLine[];
    await writeFinalTranscript(table(), botId, corrected);
    const again = await archiveMeeting(botId, deps());
    expect(again.lake).toMatchObject({ status: 'written', rows: { utterances: 3 } });

    const engine = await duckDbOverLake();
    try {
      const result = await engine.run({
        sql: 'SELECT seq, text, count(*) OVER () AS total FROM utterances WHERE bot_id = ? ORDER BY seq',
        params: [botId],
      });
      expect(resultObjects(result)).toEqual([
        { seq: 0, text: 'first', total: 3 },
        { seq: 1, text: 'the price is 12', total: 3 },
        { seq: 2, text: 'third', total: 3 },
      ]);
      const meetings = await engine.run({
        sql: 'SELECT count(*) AS n FROM meetings WHERE bot_id = ?',
        params: [botId],
      });
      expect(resultObjects(meetings)).toEqual([{ n: 1 }]);
    } finally {
      engine.close();
    }
  });

  it('writes nothing for a meeting erased before its rows are written', async () => {
    const { botId } = await endedMeeting([line(0, 'secret')]);
    // The tombstone lands between the archive record and the lake write (while the event is published).
    const events: DomainEventPublisher = { publish: async () => setTombstone(botId) };
    const outcome = await archiveMeeting(botId, deps({ events }));
    expect(outcome.lake).toEqual({
      day: '',
      status: 'erased',
      rows: { meetings: 0, utterances: 0, participants: 0 },
      folded: false,
    });
    expect(await lakeVersionsOf(botId)).toEqual([]);
  });

  it('deletes every version it wrote when the meeting is erased while it writes', async () => {
    const { botId } = await endedMeeting([line(0, 'secret'), line(1, 'more')]);
    await archiveMeeting(botId, deps());
    await writeFinalTranscript(table(), botId, [line(0, 'secret'), line(1, 'corrected')]);
    // The erasure's tombstone arrives after the meetings file (the last) is written.
    const lake = lakeDeps({
      objects: (objects) => ({
        ...objects,
        put: async (key, body, metadata) => {
          await objects.put(key, body, metadata);
          if (key === lakeKeys.recentFile('meetings', DAY, botId)) await setTombstone(botId);
        },
      }),
    });
    expect(await writeMeetingToLake(botId, lake)).toMatchObject({ status: 'erased' });
    expect(await lakeVersionsOf(botId)).toEqual([]);
    expect((await meetingItem(resources.tableName, botId))?.[LAKE_ATTRIBUTE]).toMatchObject({ day: DAY });
  });

  it('writes nothing when the meeting is erased while its rows are read', async () => {
    const { botId } = await endedMeeting([line(0, 'secret')]);
    await archiveMeeting(botId, deps());
    await writeFinalTranscript(table(), botId, [line(0, 'secret, corrected')]);
    const before = await lakeVersionsOf(botId);
    // The tombstone lands after the writer's own read of the meeting item, before the transcript's.
    const db = documentClient();
    let meetingReads = 0;
    const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
    const erasing = Object.create(db) as typeof db;
    (erasing as { send: unknown }).send = async (command: { input: { Key?: { sk?: string } } }) => {
      if (command.input.Key?.sk === 'MEETING' && ++meetingReads === 2) await setTombstone(botId);
      return send(command);
    };
    const lake = { ...lakeDeps(), table: { db: erasing, tableName: resources.tableName } };
    expect(await writeMeetingToLake(botId, lake)).toMatchObject({ status: 'erased' });
    expect(meetingReads).toBeGreaterThanOrEqual(2);
    expect(await lakeVersionsOf(botId)).toEqual(before);
  });

  it("moves the rows when the meeting's listing day is known only after a first write", async () => {
    const bot = service.addBot({
      state: 'ended',
      recording: { size: 1024, seed: 3, contentType: 'video/mp4' },
      transcript: [line(0, 'unlisted')] as unknown as Array<Record<string, unknown>>,
      participants: [],
    });
    // No state change was ever applied: the meeting counts from its archive day.
    const first = await archiveMeeting(bot.id, deps());
    expect(first.lake.day).toBe('2026-11-20');
    await documentClient().send(
      new UpdateCommand({
        TableName: resources.tableName,
        Key: keys.meeting(bot.id),
        UpdateExpression: 'SET listedAt = :at',
        ExpressionAttributeValues: { ':at': new Date(START).toISOString() },
      }),
    );
    expect((await archiveMeeting(bot.id, deps())).lake).toMatchObject({ day: DAY, status: 'written' });
    expect((await lakeVersionsOf(bot.id)).map((version) => version.key).sort()).toEqual(
      (['meetings', 'participants', 'utterances'] as const).map((name) => lakeKeys.recentFile(name, DAY, bot.id)),
    );
  });

  it('folds a day that is compacted already into its compacted files', async () => {
    const { botId } = await endedMeeting([line(0, 'late')]);
    const fold = recordingFold('2026-11-30');
    const outcome = await archiveMeeting(botId, deps({ lake: lakeDeps({ fold }) }));
    expect(outcome.lake).toMatchObject({ day: DAY, status: 'written', folded: true });
    expect(fold.folded).toEqual([DAY]);
    // A later day than the mark is read from its recent files: nothing to fold.
    const { botId: recent } = await endedMeeting([line(0, 'fresh')]);
    const notYet = recordingFold('2026-11-18');
    expect((await archiveMeeting(recent, deps({ lake: lakeDeps({ fold: notYet }) }))).lake.folded).toBe(false);
    expect(notYet.folded).toEqual([]);
  });

  it('fails the archive job when the lake cannot be written, and the retry writes it', async () => {
    const { botId } = await endedMeeting([line(0, 'kept')]);
    const broken = lakeDeps({
      objects: (objects) => ({
        ...objects,
        put: async () => {
          throw new Error('injected fault: S3 refused the PUT');
        },
      }),
    });
    await expect(archiveMeeting(botId, deps({ lake: broken }))).rejects.toThrow(/injected fault/);
    const retry = await archiveMeeting(botId, deps());
    expect(retry).toMatchObject({ status: 'already-archived', lake: { status: 'written' } });
    expect((await lakeRows('utterances', botId)).map((u) => u.text)).toEqual(['kept']);
  });
});

describe("the outside world's text in the lake", () => {
  it('keeps control characters, quotes, SQL, emoji and 20,000-character lines unchanged through the file and DuckDB', async () => {
    const hostile = [
      'nul \u0000 byte, bell \u0007, escape \u001b[31m',
      `quotes ' " \` and '; DROP TABLE utterances; --`,
      `long ${'x'.repeat(20_000)}`,
      'emoji 👩‍💻🚀 and RTL \u202e',
    ];
    const name = `\u0000${'N'.repeat(10 * 1024)}'; DROP TABLE participants; -- 🎉`;
    const { botId } = await endedMeeting(
      hostile.map((text, i) => line(i, text)),
      [{ id: 'par_x', name, uuid: 'px', user_uuid: null, is_host: false }],
    );
    await archiveMeeting(botId, deps());
    expect((await lakeRows('utterances', botId)).map((u) => u.text)).toEqual(hostile);
    expect((await lakeRows('participants', botId)).map((p) => p.name)).toEqual([name]);

    const engine = await duckDbOverLake();
    try {
      const texts = await engine.run({
        sql: 'SELECT text FROM utterances WHERE bot_id = ? ORDER BY seq',
        params: [botId],
      });
      expect(texts.rows.map(([text]) => text)).toEqual(hostile);
      const found = await engine.run({
        sql: 'SELECT count(*) AS n FROM utterances WHERE strpos(text, ?) > 0',
        params: ["'; DROP TABLE"],
      });
      expect(resultObjects(found)).toEqual([{ n: 1 }]);
      const names = await engine.run({ sql: 'SELECT name FROM participants WHERE bot_id = ?', params: [botId] });
      expect(names.rows).toEqual([[name]]);
    } finally {
      engine.close();
    }
  });

  it('writes valid empty files for a meeting without utterances or participants', async () => {
    const { botId } = await endedMeeting([], []);
    const outcome = await archiveMeeting(botId, deps());
    expect(outcome.lake.rows).toEqual({ meetings: 1, utterances: 0, participants: 0 });
    expect(await lakeRows('utterances', botId)).toEqual([]);
    expect(await lakeRows('participants', botId)).toEqual([]);
    const engine = await duckDbOverLake();
    try {
      const counts = await engine.run({
        sql: `SELECT (SELECT count(*) FROM utterances WHERE bot_id = ?) AS lines,
                     (SELECT utterance_count FROM meetings WHERE bot_id = ?) AS counted`,
        params: [botId, botId],
      });
      expect(resultObjects(counts)).toEqual([{ lines: 0, counted: 0 }]);
    } finally {
      engine.close();
    }
  });
});

describe('LakeObjects over S3', () => {
  it('answers null for a missing object, the bytes and ETag of a stored one, and lists by prefix', async () => {
    const objects = lakeDeps().objects;
    const key = `${LAKE_PREFIX}recent/meetings/day=2026-01-01/bot_objects.parquet`;
    expect(await objects.get(key)).toBeNull();
    expect(await objects.head(key)).toBeNull();
    await objects.put(key, new Uint8Array([1, 2, 3]), { sha256: 'abc' });
    const stored = await objects.get(key);
    expect(stored === null ? null : [...stored.body]).toEqual([1, 2, 3]);
    expect(await objects.head(key)).toEqual({ bytes: 3, etag: stored?.etag, metadata: { sha256: 'abc' } });
    expect(await objects.list(`${LAKE_PREFIX}recent/meetings/day=2026-01-01/`)).toEqual([{ key, bytes: 3 }]);
    await objects.put(key, new Uint8Array([4]));
    const versions = await objects.listVersions(objects.bucket, key);
    expect(versions).toHaveLength(2);
    await objects.deleteVersions(objects.bucket, versions);
    expect(await objects.listVersions(objects.bucket, key)).toEqual([]);
  });
});
