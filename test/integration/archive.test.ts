import { createHash } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lakeWriterDependencies } from '../../lambdas/archive/adapter';
import { type ArchiveDependencies, archiveMeeting } from '../../lambdas/core/archive/archive-meeting';
import {
  DownloadFailedError,
  type DownloadPolicy,
  DownloadRefusedError,
  openDownload,
} from '../../lambdas/core/archive/download-guard';
import { writeFinalTranscript } from '../../lambdas/core/archive/fill-gaps';
import { DEFAULT_RECORDING_TRANSFER } from '../../lambdas/core/archive/recording-transfer';
import { domainEvents } from '../../lambdas/core/domain-events/catalogue';
import { processQueuedEvent } from '../../lambdas/core/events/process-event';
import { keys, SK_PREFIX } from '../../lambdas/core/store/table-layout';
import { silentTelemetry } from '../../lambdas/core/telemetry';
import { UpstreamClient } from '../../lambdas/core/upstream/client';
import type { TranscriptLine } from '../../lambdas/core/upstream/rest-contract';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { s3Recordings } from '../../lambdas/shared/s3-recordings';
import type { LocalResources } from '../../local/resources';
import { recordingSha256, type SimulatedBot, SimulatedServiceApi } from '../../local/simulator/api-server';
import { stateChange } from '../../local/simulator/payloads';
import type { PyValue } from '../../local/simulator/python-json';
import { endedBot } from '../fixtures/ended-meeting';
import { testEventLog } from '../fixtures/event-log';
import { entryProblems } from '../fixtures/event-schemas';
import { faultyMethods } from '../fixtures/faulty-client';
import {
  createResources,
  type LocalPipeline,
  processDependencies,
  queuedMessage,
  startLocalPipeline,
} from '../fixtures/local-pipeline';
import { watchMultipart } from '../fixtures/multipart-ledger';
import { botItems, meetingItem } from '../fixtures/store-reader';
import { transcriptEnvelope } from '../fixtures/webhooks';
import { countingClient } from '../fixtures/write-units';

const MiB = 1024 * 1024;
const service = new SimulatedServiceApi();
let pipeline: LocalPipeline;
let resources: LocalResources;
const BUCKET = 'archive-test-recordings';
const policy: DownloadPolicy = { allowLoopback: true, maxBytes: 64 * MiB, transfer: DEFAULT_RECORDING_TRANSFER };
let multipart: ReturnType<typeof watchMultipart>;

beforeAll(async () => {
  pipeline = await startLocalPipeline();
  resources = await createResources();
  await s3Client().send(new CreateBucketCommand({ Bucket: BUCKET }));
  await service.start();
  service.apiKeys.set('k', 'all');
});
afterAll(async () => {
  await service.stop();
  await pipeline?.stop();
});
beforeEach(() => {
  service.faults = [];
  multipart = watchMultipart(s3Client());
});

function deps(overrides: Partial<ArchiveDependencies> = {}): ArchiveDependencies {
  return {
    table: { db: documentClient(), tableName: resources.tableName },
    upstream: new UpstreamClient({ baseUrl: service.baseUrl, apiKey: async () => 'k', sleep: async () => undefined }),
    // 5 MiB parts (S3's minimum) so a 12 MiB recording is a real multipart upload.
    recordings: s3Recordings(multipart.client, BUCKET, { partSize: 5 * MiB, queueSize: 2 }),
    events: testEventLog().publisher,
    openDownload: (url) => openDownload(url, policy),
    maxRecordingBytes: policy.maxBytes,
    downloadAttempts: 3,
    lake: lakeWriterDependencies(
      s3Client(),
      BUCKET,
      { db: documentClient(), tableName: resources.tableName },
      silentTelemetry,
    ),
    telemetry: silentTelemetry,
    now: () => new Date('2026-11-20T12:00:00Z'),
    ...overrides,
  };
}

function endedMeeting(size = 12 * MiB): SimulatedBot {
  return endedBot(service, { size, seed: size % 997 });
}

/** Counts the utterance puts a client sends. */
function watchPuts() {
  const db = documentClient();
  let utterances = 0;
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  const client = Object.create(db) as typeof db;
  (client as { send: unknown }).send = (command: {
    constructor: { name: string };
    input: { Item?: { sk?: string } };
  }) => {
    if (command.constructor.name === 'PutCommand' && String(command.input.Item?.sk).startsWith(SK_PREFIX.utterance))
      utterances++;
    return send(command);
  };
  return { client, utterances: () => utterances };
}

async function objectBytes(key: string): Promise<Buffer> {
  const object = await s3Client().send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

describe('archiving a meeting', () => {
  it('streams the recording into S3 with its checksum, writes transcript and participants, and fills gaps', async () => {
    const bot = endedMeeting();
    // The webhooks delivered one utterance (with newer text) and one participant.
    const db = documentClient();
    await db.send(
      new PutCommand({
        TableName: resources.tableName,
        Item: { ...keys.utterance(bot.id, 2000, 's1'), text: 'from webhook', version: '2026-11-20T10:00:00.000Z#k' },
      }),
    );
    await db.send(
      new PutCommand({ TableName: resources.tableName, Item: { ...keys.participant(bot.id, 'p1'), name: 'Ada L.' } }),
    );

    const outcome = await archiveMeeting(bot.id, deps());
    expect(outcome.status).toBe('archived');
    const { record } = outcome;
    expect(record.recording).toEqual({
      key: `meetings/${bot.id}/recording.mp4`,
      bytes: 12 * MiB,
      sha256: recordingSha256(bot.recording!.seed, 12 * MiB),
      contentType: 'video/mp4',
    });
    const stored = await objectBytes(record.recording!.key);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(record.recording!.sha256);
    expect(
      (await s3Client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: record.recording!.key }))).ContentType,
    ).toBe('video/mp4');
    expect(multipart.created()).toBe(1);
    expect(multipart.open()).toEqual([]);

    expect(
      JSON.parse((await objectBytes(record.transcript.key)).toString()).map(
        (l: { timestamp_ms: number }) => l.timestamp_ms,
      ),
    ).toEqual([1000, 2000, 3000]);
    expect(
      JSON.parse((await objectBytes(record.participants.key)).toString()).map((p: { id: string }) => p.id),
    ).toEqual(['par_1', 'par_2']);
    // The service's final transcript is authoritative: it corrects the webhook's text.
    expect(record.filled).toEqual({ utterances: 2, correctedUtterances: 1, participants: 1 });
    const utterances = await botItems(resources.tableName, bot.id, SK_PREFIX.utterance);
    expect(utterances.map((u) => u.text)).toEqual(['line 0', 'line 1', 'line 2']);
    expect(utterances.every((u) => u.finalized === true)).toBe(true);
    expect((await botItems(resources.tableName, bot.id, 'PART#')).map((p) => p.name)).toEqual(['Ada L.', 'Lin']);
    expect((await meetingItem(resources.tableName, bot.id))?.archive).toMatchObject({
      recordingStatus: 'archived',
      archivedAt: '2026-11-20T12:00:00.000Z',
      bucket: BUCKET,
    });
  });

  it('keeps the final transcript against any later delivery or DLQ re-drive of a webhook', async () => {
    const bot = endedMeeting(1000);
    await archiveMeeting(bot.id, deps());
    const processing = processDependencies(resources);
    // A draft re-driven from the DLQ, and a webhook first accepted after the meeting ended.
    for (const [text, acceptedAt] of [
      ['draft', '2026-11-20T09:00:00.000000Z'],
      ['late correction', '2026-11-25T09:00:00.000000Z'],
    ] as const) {
      const envelope = transcriptEnvelope({ bot_id: bot.id });
      const data = envelope.data as { [key: string]: PyValue };
      Object.assign(data, { timestamp_ms: 2000, speaker_uuid: 's1', transcription: { transcript: text } });
      await processQueuedEvent(queuedMessage(envelope, acceptedAt), processing);
    }
    const utterances = await botItems(resources.tableName, bot.id, SK_PREFIX.utterance);
    expect(utterances.map((u) => u.text)).toEqual(['line 0', 'line 1', 'line 2']);
  });

  it('writes a final line again only where it is missing or differs, after a crash', async () => {
    const botId = 'bot_final_rerun';
    const line = (ms: number, text: string): TranscriptLine => ({
      speaker_name: 'A',
      speaker_uuid: 's',
      speaker_user_uuid: null,
      speaker_is_host: true,
      timestamp_ms: ms,
      duration_ms: 1,
      transcription: { transcript: text },
    });
    // The webhooks delivered the first line's text without its speaker fields: it differs, so it is written.
    await documentClient().send(
      new PutCommand({ TableName: resources.tableName, Item: { ...keys.utterance(botId, 1, 's'), text: 'a' } }),
    );
    const counting = countingClient(documentClient());
    const table = { db: counting.client, tableName: resources.tableName };
    const puts = async (lines: TranscriptLine[]) => {
      counting.reset();
      const counts = await writeFinalTranscript(table, botId, lines);
      return { counts, puts: counting.writes.map((w) => w.sk) };
    };
    const lines = [line(1, 'a'), line(2, 'b'), line(3, 'c')];
    expect(await puts(lines)).toEqual({
      counts: { created: 2, corrected: 0 },
      puts: lines.map((l) => keys.utterance(botId, l.timestamp_ms, 's').sk),
    });
    expect(await puts(lines)).toEqual({ counts: { created: 2, corrected: 0 }, puts: [] });
    // The service changed a line and added one between the runs: only those two are written.
    const changed = [line(1, 'a'), line(2, 'B'), line(3, 'c'), line(4, 'd')];
    expect(await puts(changed)).toEqual({
      counts: { created: 3, corrected: 0 },
      puts: [keys.utterance(botId, 2, 's').sk, keys.utterance(botId, 4, 's').sk],
    });
    const utterances = await botItems(resources.tableName, botId, SK_PREFIX.utterance);
    expect(utterances.map((u) => [u.text, u.finalized])).toEqual([
      ['a', true],
      ['B', true],
      ['c', true],
      ['d', true],
    ]);
  });

  it('writes only the lines the webhooks lack or got wrong; the meeting mark keeps the others as the service has them', async () => {
    const bot = endedMeeting(1000);
    const processing = processDependencies(resources);
    const delivered = (text: string, acceptedAt: string) => {
      const envelope = transcriptEnvelope({ bot_id: bot.id });
      Object.assign(envelope.data as { [key: string]: PyValue }, {
        speaker_name: 'S0',
        speaker_uuid: 's0',
        speaker_is_host: true,
        timestamp_ms: 1000,
        duration_ms: 500,
        transcription: { transcript: text },
      });
      return processQueuedEvent(queuedMessage(envelope, acceptedAt), processing);
    };
    // The webhooks delivered line 0 exactly as the service's final transcript has it.
    await delivered('line 0', '2026-11-20T10:00:00.000000Z');
    const puts = watchPuts();
    const { record } = await archiveMeeting(
      bot.id,
      deps({ table: { db: puts.client, tableName: resources.tableName } }),
    );
    expect(record.filled).toEqual({ utterances: 2, correctedUtterances: 0, participants: 2 });
    expect(puts.utterances()).toBe(2);
    // A correction first accepted after the archive, and a replayed draft: neither changes line 0.
    await delivered('late correction', '2026-11-25T09:00:00.000000Z');
    const utterances = await botItems(resources.tableName, bot.id, SK_PREFIX.utterance);
    expect(utterances.map((u) => u.text)).toEqual(['line 0', 'line 1', 'line 2']);
    expect(utterances[0]?.finalized).toBeUndefined();
  });

  it('does nothing the second time', async () => {
    const bot = endedMeeting(1 * MiB);
    await archiveMeeting(bot.id, deps());
    const requests = service.requests.length;
    expect((await archiveMeeting(bot.id, deps())).status).toBe('already-archived');
    expect(service.requests.length).toBe(requests);
  });

  it('publishes meeting.archived after the record; when that fails, the retry finds it archived and publishes it', async () => {
    const bot = endedMeeting(1 * MiB);
    const log = testEventLog();
    const events = faultyMethods(log.publisher, ['publish']);
    events.reset({ failAt: 1, mode: 'before' });
    await expect(archiveMeeting(bot.id, deps({ events: events.client }))).rejects.toThrow(/injected fault/);
    expect((await meetingItem(resources.tableName, bot.id))?.archive).toBeDefined();
    expect(log.entries()).toEqual([]);

    const retried = await archiveMeeting(bot.id, deps({ events: events.client }));
    expect(retried.status).toBe('already-archived');
    expect(log.events()).toEqual([
      {
        detailType: 'meeting.archived',
        detail: domainEvents.archived({
          bot_id: bot.id,
          archived_at: retried.record.archivedAt,
          recording: {
            status: 'archived',
            bytes: 1 * MiB,
            sha256: recordingSha256(bot.recording!.seed, 1 * MiB),
            content_type: retried.record.recording!.contentType,
          },
          transcript_lines: retried.record.transcript.lines,
          participant_count: retried.record.participants.count,
        }).detail,
      },
    ]);
    for (const entry of log.entries()) expect(entryProblems(entry)).toEqual([]);
  });

  it('records a meeting without a recording as such', async () => {
    const bot = service.addBot({ state: 'ended' });
    const { record } = await archiveMeeting(bot.id, deps());
    expect(record).toMatchObject({ recordingStatus: 'none', recording: null });
  });

  it('archives a bot that never recorded (the service answers 404 "No recording found for bot"): no transcript, and the record says so', async () => {
    const bot = service.addBot({ state: 'fatal_error', noRecordingRow: true });
    const { record } = await archiveMeeting(bot.id, deps());
    expect(record).toMatchObject({
      recordingStatus: 'none',
      recording: null,
      transcript: { lines: 0, recorded: false },
      participants: { count: 0 },
    });
  });

  it('asks no recording of a bot its events show never admitted, waits for none, and says why in the record', async () => {
    const bot = service.addBot({ state: 'fatal_error', noRecordingRow: true });
    const processing = processDependencies(resources);
    const at = (minutes: number) => (Date.parse('2026-11-20T10:00:00Z') + minutes * 60_000) * 1000;
    for (const [minutes, eventType, subType, oldState, newState] of [
      [0, 'join_requested', null, 'staged', 'joining'],
      [1, 'put_in_waiting_room', null, 'joining', 'waiting_room'],
      [16, 'could_not_join_meeting', 'waiting_room_timeout_exceeded', 'waiting_room', 'fatal_error'],
    ] as const)
      await processQueuedEvent(
        queuedMessage(
          stateChange(bot.id, { oldState, newState, eventType, subType, createdAtMicros: at(minutes) }),
          new Date('2026-11-20T10:20:00Z'),
        ),
        processing,
      );
    const client = new UpstreamClient({
      baseUrl: service.baseUrl,
      apiKey: async () => 'k',
      sleep: async () => undefined,
    });
    let recordingAsked = 0;
    const upstream: ArchiveDependencies['upstream'] = {
      getRecording: (botId) => {
        recordingAsked++;
        return client.getRecording(botId);
      },
      getTranscript: (botId) => client.getTranscript(botId),
      listParticipants: (botId) => client.listParticipants(botId),
    };
    // A fatal_error's job would wait for a recording the service may still upload; this one has none to wait for.
    const { record } = await archiveMeeting(bot.id, deps({ upstream }), {
      awaitRecordingUntilMs: Date.parse('2026-11-20T13:00:00Z'),
    });
    expect(recordingAsked).toBe(0);
    expect(record).toMatchObject({
      recordingStatus: 'none',
      recording: null,
      notRecordedReason: 'waiting_room_timeout_exceeded',
      transcript: { lines: 0, recorded: false },
    });
  });

  it('fetches a fresh link when the first has expired', async () => {
    const bot = endedMeeting(2 * MiB);
    service.faults.push({ path: /^\/recordings\//, times: 1, status: 403, body: 'Request has expired' });
    const { record } = await archiveMeeting(bot.id, deps());
    expect(record.recording?.sha256).toBe(recordingSha256(bot.recording!.seed, 2 * MiB));
    expect(service.requests.filter((r) => r.path === `/api/v1/bots/${bot.id}/recording`)).toHaveLength(2);
  });

  it('retries a download that breaks mid-way and leaves no multipart upload open', async () => {
    const bot = endedMeeting();
    service.faults.push({ path: /^\/recordings\//, times: 1, breakAfterBytes: 7 * MiB });
    const { record } = await archiveMeeting(bot.id, deps());
    expect(record.recording?.sha256).toBe(recordingSha256(bot.recording!.seed, 12 * MiB));
    expect(multipart.aborted()).toBe(1);
    expect(multipart.open()).toEqual([]);
  });

  it('fails after its attempts, still leaving no upload open and no archive record', async () => {
    const bot = endedMeeting();
    service.faults.push({ path: /^\/recordings\//, times: 3, breakAfterBytes: 6 * MiB });
    await expect(archiveMeeting(bot.id, deps())).rejects.toBeInstanceOf(DownloadFailedError);
    expect(multipart.open()).toEqual([]);
    expect((await meetingItem(resources.tableName, bot.id))?.archive).toBeUndefined();
  });

  it('refuses a recording over the size cap', async () => {
    const bot = endedMeeting(3 * MiB);
    await expect(
      archiveMeeting(bot.id, deps({ openDownload: (url) => openDownload(url, { ...policy, maxBytes: 2 * MiB }) })),
    ).rejects.toThrow(/limit is 2097152/);
  });
});

describe('download guard', () => {
  const strict: DownloadPolicy = { allowLoopback: false, maxBytes: MiB, transfer: DEFAULT_RECORDING_TRANSFER };
  it.each([
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.1.2.3/recording.mp4',
    'https://172.16.0.1/x',
    'https://192.168.1.1/x',
    'https://100.64.0.1/x',
    'https://[::1]/x',
    'https://[fd00::1]/x',
    'https://[fe80::1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://0.0.0.0/x',
    'http://127.0.0.1:9/x',
    'https://localhost/x',
    'ftp://files.example.com/x',
    'file:///etc/passwd',
    'not a url',
  ])('refuses %s', async (url) => {
    await expect(openDownload(url, strict)).rejects.toBeInstanceOf(DownloadRefusedError);
  });

  it('allows plain http only to loopback, only in local mode', async () => {
    const bot = endedMeeting(1000);
    const link = service.recordingLink(bot.id);
    await expect(openDownload(link, strict)).rejects.toBeInstanceOf(DownloadRefusedError);
    const opened = await openDownload(link, { ...strict, allowLoopback: true });
    opened.stream.resume();
    expect(opened.contentLength).toBe(1000);
  });
});
