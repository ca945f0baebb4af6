/**
 * The read API end to end in local mode: a meeting scheduled, played by the simulated service
 * (every other webhook delivered twice), stored and archived by the real handlers, then read
 * through the local HTTP API, which hands the real read handler the events API Gateway would.
 * Hundreds more meetings are written by the real apply code for paging.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import SrtParser from 'srt-parser-2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebVTTParser } from 'webvtt-parser';
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { applyStateChange, recordLaunchedMeeting } from '../../lambdas/core/apply/state-change';
import {
  deliveryLog,
  errorBody,
  meetingList,
  meetingView,
  participantList,
  recordingLink,
  transcriptJson,
} from '../../lambdas/core/read/read-api-contract';
import { SERVICES, silentTelemetry } from '../../lambdas/core/telemetry';
import { createReadApiHandler, readApiDependencies } from '../../lambdas/read-api/adapter';
import { documentClient } from '../../lambdas/shared/dynamo-client';
import { s3Client } from '../../lambdas/shared/s3-client';
import { type LocalStack, newSigningSecret, startLocalStack } from '../../local/local-stack';
import { webhook } from '../../local/simulator/payloads';
import type { PyValue } from '../../local/simulator/python-json';
import { signWebhook } from '../../local/simulator/webhook-signer';
import { scratchEventsFile } from '../fixtures/event-log';
import { httpApiEvent } from '../fixtures/webhooks';
import { functionEnvironment } from '../fixtures/world';

const signingSecret = newSigningSecret();
let stack: LocalStack;
let botId: string;
const PAGING_DAY = '2026-03-04';
const LAUNCHED = 180;
const RECORDING = 60;

beforeAll(async () => {
  stack = await startLocalStack({
    eventsFile: scratchEventsFile(),
    signingSecret,
    chaos: { duplicate: 0.5, maxDelayMs: 0, drop: 0, droppable: new Set() },
    stepMs: 150,
    recordingBytes: 300 * 1024,
    reconcileEveryMs: 60_000,
    staleAfterMs: 600_000,
    seed: 14,
    print: (line) => void (line.includes('read request failed') && console.log(line)),
  });
  expect(await stack.scheduleMeeting('read-api', new Date(Date.now() + 2_000))).toMatchObject({ status: 201 });
  expect(await stack.waitUntilArchived(['read-api'], 60_000)).toBe(true);
  await stack.sender.drain();
  botId = [...stack.played.keys()][0] ?? '';

  // Hundreds of meetings on one day, through the real write paths: launched ones (listed at their
  // join time) and ones first heard of by a state change (listed at its time).
  const table = { db: documentClient(), tableName: stack.resources.tableName };
  const at = (i: number) => new Date(Date.parse(`${PAGING_DAY}T00:00:00Z`) + i * 97_000).toISOString();
  await inBatches(LAUNCHED, (i) =>
    recordLaunchedMeeting(table, {
      botId: `bot_page_l${i}`,
      scheduleId: `page-${i}`,
      joinAt: at(i),
      meetingUrl: 'https://meet.google.com/abc-defg-hij',
      state: 'scheduled',
    }),
  );
  await inBatches(RECORDING, (i) =>
    applyStateChange(
      { table, botId: `bot_page_r${i}`, idempotencyKey: randomUUID(), receivedAt: new Date().toISOString() },
      {
        event_type: 'bot_recording_permission_granted',
        old_state: 'joined_not_recording',
        new_state: 'joined_recording',
        created_at: at(LAUNCHED + i),
      } as never,
      { send: async () => undefined },
    ),
  );
}, 120_000);

afterAll(async () => stack?.stop());

async function inBatches(count: number, write: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, j) => write(i + j)));
  }
}

async function get(path: string): Promise<{ status: number; type: string; text: string; json: () => unknown }> {
  const response = await fetch(`${stack.readApiUrl}${path}`);
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text,
    json: () => JSON.parse(text),
  };
}

async function getJson<T extends $ZodType>(path: string, schema: T): Promise<z.output<T>> {
  const answer = await get(path);
  expect(answer.status, `${path}: ${answer.text}`).toBe(200);
  return z.parse(schema, answer.json());
}

async function postWebhook(payload: { [key: string]: PyValue }): Promise<number> {
  const { body, signature } = signWebhook(payload, signingSecret);
  const response = await fetch(stack.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
    body,
  });
  return response.status;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('GET /meetings/{bot_id}', () => {
  it('shows the archived meeting: state, summary, counts, schedule and recording', async () => {
    const played = stack.played.get(botId);
    const meeting = await getJson(`/meetings/${botId}`, meetingView);
    expect(meeting).toMatchObject({
      bot_id: botId,
      state: 'ended',
      summary: played?.summary,
      utterance_count: played?.utterances.length,
      participant_count: played?.participants.length,
      schedule_id: 'read-api',
      recording: { status: 'archived', bytes: 300 * 1024, content_type: 'video/mp4' },
    });
    expect(meeting.archived_at).not.toBeNull();
    expect(meeting.meeting_url).toMatch(/^https:\/\/meet\.google\.com\//);
    // The bot joined and recorded until the meeting ended: the outcome says so, for people too.
    expect(meeting.outcome).toMatchObject({ status: 'recorded', sentence: expect.stringMatching(/^The bot recorded/) });
    // What it was derived from: each state change once, oldest first, ending where the meeting is.
    expect(meeting.timeline.length).toBeGreaterThan(1);
    expect(meeting.timeline.map((step) => step.at)).toEqual(meeting.timeline.map((step) => step.at).sort());
    expect(meeting.timeline.at(-1)?.new_state).toBe('ended');
  });

  it('is a 404 with a reason for a bot never heard of', async () => {
    for (const path of ['', '/transcript', '/participants', '/recording', '/events']) {
      const answer = await get(`/meetings/bot_never_seen${path}`);
      expect(answer.status, path).toBe(404);
      expect(errorBody.parse(answer.json()).error.message).toMatch(/bot_never_seen/);
    }
  });
});

describe('GET /meetings/{bot_id}/transcript', () => {
  it('answers JSON by default, offsets counted from a stated origin', async () => {
    const transcript = await getJson(`/meetings/${botId}/transcript`, transcriptJson);
    const played = stack.played.get(botId);
    expect(transcript.utterances.map((u) => u.text)).toEqual(played?.utterances.map((u) => u.text));
    // The simulator's timestamps count from its recording start, not from the epoch.
    expect(transcript.offsets_from).toBe('first_utterance');
    expect(transcript.utterances[0]?.offset_ms).toBe(0);
  });

  it('answers WebVTT, SubRip and text that independent parsers read back', async () => {
    const spoken = (stack.played.get(botId)?.utterances ?? []).filter((u) => u.text.trim() !== '');
    const vtt = await get(`/meetings/${botId}/transcript?format=vtt`);
    expect(vtt.type).toMatch(/^text\/vtt/);
    const entities = createRequire(import.meta.url)('webvtt-parser/html-entities.json') as Record<string, string>;
    const parsedVtt = new WebVTTParser(entities).parse(vtt.text, 'metadata');
    expect(parsedVtt.errors).toEqual([]);
    expect(parsedVtt.cues).toHaveLength(spoken.length);

    const srt = await get(`/meetings/${botId}/transcript?format=srt`);
    expect(srt.type).toMatch(/^application\/x-subrip/);
    expect(new SrtParser().fromSrt(srt.text)).toHaveLength(spoken.length);

    const text = await get(`/meetings/${botId}/transcript?format=text`);
    expect(text.type).toMatch(/^text\/plain/);
    expect(text.text.trimEnd().split('\n')).toHaveLength(spoken.length);
    expect(text.text).toMatch(/^\[00:00:00\] \S/);
  });

  it('refuses an unknown format with 400', async () => {
    const answer = await get(`/meetings/${botId}/transcript?format=pdf`);
    expect(answer.status).toBe(400);
    expect(errorBody.parse(answer.json()).error.message).toMatch(/json, text, vtt, srt/);
  });
});

describe('GET /meetings/{bot_id}/participants', () => {
  it('lists the participants with their join and leave times', async () => {
    const list = await getJson(`/meetings/${botId}/participants`, participantList);
    const played = stack.played.get(botId);
    expect(list.participants.map((p) => p.name).sort()).toEqual(played?.participants.map((p) => p.name).sort());
    expect(list.participants.every((p) => p.joined_at !== null)).toBe(true);
  });
});

describe('GET /meetings/{bot_id}/recording', () => {
  it('links the archived recording: the bytes behind the link match the archived checksum', async () => {
    const link = await getJson(`/meetings/${botId}/recording`, recordingLink);
    const meeting = await getJson(`/meetings/${botId}`, meetingView);
    const expires = Date.parse(link.expires_at) - Date.now();
    expect(expires).toBeGreaterThan(850_000);
    expect(expires).toBeLessThanOrEqual(900_000);
    expect(link.url).toMatch(/X-Amz-Expires=900/);
    const download = await fetch(link.url);
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(link.bytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(link.sha256);
    expect(link.sha256).toBe(meeting.recording?.sha256);
  });

  it('is a 404 with a reason for a meeting not archived', async () => {
    const answer = await get('/meetings/bot_page_l0/recording');
    expect(answer.status).toBe(404);
    expect(errorBody.parse(answer.json()).error.message).toMatch(/not archived yet/);
  });
});

describe('GET /meetings', () => {
  it('pages through hundreds of meetings of a day, newest first, each once', async () => {
    const seen: string[] = [];
    const times: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/meetings?day=${PAGING_DAY}&limit=37${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page = await getJson(query, meetingList);
      expect(page.meetings.length).toBeLessThanOrEqual(37);
      for (const meeting of page.meetings) {
        seen.push(meeting.bot_id);
        times.push(meeting.scheduled_join_at ?? meeting.state_at ?? '');
      }
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(new Set(seen).size).toBe(LAUNCHED + RECORDING);
    expect(seen).toHaveLength(LAUNCHED + RECORDING);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil((LAUNCHED + RECORDING) / 37));
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters by state across pages', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/meetings?day=${PAGING_DAY}&state=joined_recording&limit=25${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page = await getJson(query, meetingList);
      expect(page.meetings.every((m) => m.state === 'joined_recording')).toBe(true);
      seen.push(...page.meetings.map((m) => m.bot_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(new Set(seen)).toEqual(new Set(Array.from({ length: RECORDING }, (_, i) => `bot_page_r${i}`)));
  });

  it('filters by outcome across pages: a launched meeting not heard from is scheduled', async () => {
    const seen = new Map<string, string[]>();
    for (const outcome of ['scheduled', 'in_progress', 'missed'] as const) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `/meetings?day=${PAGING_DAY}&outcome=${outcome}&limit=50${cursor === null ? '' : `&cursor=${cursor}`}`;
        const page = await getJson(query, meetingList);
        expect(page.meetings.every((m) => m.outcome?.status === outcome)).toBe(true);
        ids.push(...page.meetings.map((m) => m.bot_id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      seen.set(outcome, ids);
    }
    expect(new Set(seen.get('scheduled'))).toEqual(
      new Set(Array.from({ length: LAUNCHED }, (_, i) => `bot_page_l${i}`)),
    );
    expect(new Set(seen.get('in_progress'))).toEqual(
      new Set(Array.from({ length: RECORDING }, (_, i) => `bot_page_r${i}`)),
    );
    expect(seen.get('missed')).toEqual([]);
  });

  it("lists today's meetings by default", async () => {
    const page = await getJson('/meetings', meetingList);
    expect(page.meetings.map((m) => m.bot_id)).toContain(botId);
  });

  it('refuses bad parameters with 400 and a reason', async () => {
    const first = await getJson(`/meetings?day=${PAGING_DAY}&limit=5`, meetingList);
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=ten',
      'day=2026-02-30',
      'day=yesterday',
      'state=Ended!',
      'outcome=lost',
      'outcome=',
      'cursor=not-a-cursor',
      `day=2026-03-05&cursor=${first.next_cursor}`,
    ]) {
      const answer = await get(`/meetings?${query}`);
      expect(answer.status, query).toBe(400);
      expect(errorBody.parse(answer.json()).error.message.length, query).toBeGreaterThan(10);
    }
  });
});

describe('delivery log', () => {
  it('lists every webhook of the meeting once applied, and each repeat the service sent as a duplicate', async () => {
    const all = await allDeliveries(`/meetings/${botId}/events`);
    const firsts = all.filter((d) => d.outcome !== 'duplicate');
    expect(firsts.every((d) => d.outcome === 'applied')).toBe(true);
    expect(new Set(firsts.map((d) => d.idempotency_key)).size).toBe(firsts.length);
    expect(firsts.length).toBe(stack.sender.stats.sent);
    expect(all.filter((d) => d.outcome === 'duplicate')).toHaveLength(stack.sender.stats.duplicated);
    expect(stack.sender.stats.duplicated).toBeGreaterThan(0);
    expect(new Set(firsts.map((d) => d.trigger))).toEqual(
      new Set(['bot.state_change', 'transcript.update', 'participant_events.join_leave', 'summary.update']),
    );
    expect([...all.map((d) => d.received_at)].sort()).toEqual(all.map((d) => d.received_at));
  });

  it('marks a delivery the consumer could not apply as failed, with its reason', async () => {
    const bad = webhook(botId, 'transcript.update', { speaker_uuid: 42 });
    expect(await postWebhook(bad)).toBe(202);
    const key = String(bad.idempotency_key);
    const failed = await until(
      async () => (await allDeliveries(`/meetings/${botId}/events`)).find((d) => d.idempotency_key === key),
      (delivery) => delivery?.outcome === 'failed',
    );
    expect(failed).toMatchObject({ outcome: 'failed', trigger: 'transcript.update' });
    expect(failed?.failure_reason).toMatch(/PoisonEventError/);
  });

  it('lists webhooks without a bot under their object, a repeat as a duplicate', async () => {
    const calendar = webhook('', 'calendar.events_update', {});
    delete calendar.bot_id;
    delete calendar.bot_metadata;
    calendar.calendar_id = 'cal_read_api';
    expect(await postWebhook(calendar)).toBe(202);
    expect(await postWebhook(calendar)).toBe(202);
    const log = await until(
      () => allDeliveries('/events?calendar_id=cal_read_api'),
      (entries) => entries.some((d) => d.outcome === 'applied'),
    );
    expect(log.map((d) => d.outcome)).toEqual(['applied', 'duplicate']);
    expect((await get('/events?calendar_id=cal_unknown')).status).toBe(404);
    expect((await get('/events')).status).toBe(400);
    expect((await get('/events?calendar_id=a&app_session_id=b')).status).toBe(400);
  });

  it('pages the log', async () => {
    const whole = await allDeliveries(`/meetings/${botId}/events`, 200);
    const paged = await allDeliveries(`/meetings/${botId}/events`, 7);
    expect(paged).toEqual(whole);
  });
});

describe('the handler', () => {
  it('answers 500 with a bare reason, never a stack, when the store fails', async () => {
    const errors: unknown[] = [];
    const handler = createReadApiHandler(
      readApiDependencies(functionEnvironment(stack.resources, SERVICES.readApi, { TABLE_NAME: 'no-such-table' }), {
        db: documentClient(),
        s3: s3Client(),
      }),
      { ...silentTelemetry, log: { ...silentTelemetry.log, error: (...args: unknown[]) => void errors.push(args) } },
    );
    const event = {
      ...httpApiEvent(Buffer.alloc(0), {}),
      routeKey: 'GET /meetings/{bot_id}',
      pathParameters: { bot_id: 'x' },
    };
    const answer = await handler(event);
    expect(answer.statusCode).toBe(500);
    const body = errorBody.parse(JSON.parse(String(answer.body)));
    expect(body.error.message).not.toMatch(/no-such-table|at |Exception/);
    expect(errors).toHaveLength(1);
  });
});

async function allDeliveries(path: string, limit = 50) {
  const entries: z.infer<typeof deliveryLog>['events'] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const query: string = `${path}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const page = await getJson(query, deliveryLog);
    entries.push(...page.events);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return entries;
}
