/**
 * The MCP server's lake tools through the SDK's own client: a fixture lake (Parquet written by the
 * lake's codec under the bucket's keys in a scratch directory) queried by the DuckDB engine, beside
 * a read API holding the same meetings. search_meetings answers past the recent window from the
 * lake and says so; search_transcripts cites its hits and links the transcript at each; meeting_stats
 * counts; a slow engine gets progress notifications out and a deadline answer instead of a hang.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeetingLake } from '../../cli/mcp/lake-calls';
import type { MeetingReader } from '../../cli/mcp/meeting-reader';
import { createMeetingServer } from '../../cli/mcp/server';
import type { LakeEngine, LakeRunOptions } from '../../lambdas/core/lake/lake-engine';
import { lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { lakeSearch as questions } from '../../lambdas/core/lake/lake-search';
import type { LakeRow } from '../../lambdas/core/lake/lake-tables';
import { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import type { MeetingView } from '../../lambdas/core/read/read-api-contract';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { scratchDir } from '../fixtures/scratch';

const NOW = new Date();
const DAY_MS = 86_400_000;
const dayAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS).toISOString().slice(0, 10);

interface FixtureMeeting {
  botId: string;
  day: string;
  summary: string;
  lines: Array<{ speaker: string; offsetMs: number; durationMs: number; text: string }>;
  participants: string[];
}

const MEETINGS: FixtureMeeting[] = [
  {
    botId: 'bot_old',
    day: dayAgo(400),
    summary: 'Annual planning',
    lines: [
      { speaker: 'Alice Park', offsetMs: 65_000, durationMs: 4_000, text: "Let's settle the pricing for next year" },
      { speaker: 'Bob Stone', offsetMs: 70_000, durationMs: 1_000, text: 'Sounds good to me' },
      { speaker: 'Alice Park', offsetMs: 3_725_000, durationMs: 6_000, text: 'Back to Pricing: ten percent up' },
    ],
    participants: ['Alice Park', 'Bob Stone'],
  },
  {
    botId: 'bot_mid',
    day: dayAgo(60),
    summary: 'Launch review',
    lines: [
      { speaker: 'Carol Diaz', offsetMs: 12_000, durationMs: 3_000, text: 'The pricing page is live' },
      { speaker: 'Bob Stone', offsetMs: 20_000, durationMs: 2_000, text: 'Renewals start Monday' },
    ],
    participants: ['Carol Diaz', 'Bob Stone'],
  },
  {
    botId: 'bot_recent',
    day: dayAgo(1),
    summary: 'Weekly sync',
    lines: [{ speaker: 'Bob Stone', offsetMs: 5_000, durationMs: 2_000, text: 'Nothing new this week' }],
    participants: ['Bob Stone'],
  },
];

const startedAt = (m: FixtureMeeting) => `${m.day}T09:00:00.000Z`;

function writeLake(root: string): void {
  const put = (key: string, bytes: Uint8Array) => {
    mkdirSync(dirname(join(root, key)), { recursive: true });
    writeFileSync(join(root, key), bytes);
  };
  for (const m of MEETINGS) {
    const meeting: LakeRow = {
      bot_id: m.botId,
      state: 'ended',
      started_at: startedAt(m),
      ended_at: `${m.day}T10:00:00.000Z`,
      duration_ms: 3_600_000,
      utterance_count: m.lines.length,
      participant_count: m.participants.length,
      speaker_count: new Set(m.lines.map((l) => l.speaker)).size,
      schedule_id: null,
      calendar_id: null,
      summary: m.summary,
      archived_at: `${m.day}T10:05:00.000Z`,
      lake_version: `${m.day}T10:05:00.000Z`,
    };
    put(lakeKeys.recentFile('meetings', m.day, m.botId), encodeLakeRows('meetings', [meeting]));
    const utterances = m.lines.map((line, seq) => ({
      bot_id: m.botId,
      seq,
      offset_ms: line.offsetMs,
      duration_ms: line.durationMs,
      speaker: line.speaker,
      speaker_id: `uuid-${line.speaker}`,
      text: line.text,
      language: null,
    }));
    put(lakeKeys.recentFile('utterances', m.day, m.botId), encodeLakeRows('utterances', utterances));
    const participants = m.participants.map((name) => ({
      bot_id: m.botId,
      participant_id: `uuid-${name}`,
      name,
      user_id: null,
      is_host: false,
      joined_at: null,
      left_at: null,
    }));
    put(lakeKeys.recentFile('participants', m.day, m.botId), encodeLakeRows('participants', participants));
  }
}

const byBot = (botId: string): FixtureMeeting => {
  const found = MEETINGS.find((m) => m.botId === botId);
  if (found === undefined) throw new Error(`no meeting is known for bot ${botId}`);
  return found;
};

const view = (m: FixtureMeeting): MeetingView => ({
  bot_id: m.botId,
  state: 'ended',
  state_at: `${m.day}T10:00:00.000Z`,
  summary: m.summary,
  utterance_count: m.lines.length,
  participant_count: m.participants.length,
  schedule_id: `schedule-${m.botId}`,
  meeting_url: null,
  scheduled_join_at: null,
  archived_at: `${m.day}T10:05:00.000Z`,
  recording: null,
  outcome: null,
  timeline: [],
});

/** The read API over the same meetings; counts the day listings, which the lake path must not need. */
const listedDays: string[] = [];
const reader: MeetingReader = {
  async listDay({ day }) {
    listedDays.push(day);
    return { meetings: MEETINGS.filter((m) => m.day === day).map((m) => view(m)), next_cursor: null };
  },
  meeting: async (botId) => view(byBot(botId)),
  async transcript(botId) {
    const m = byBot(botId);
    return {
      bot_id: botId,
      offsets_from: 'recording_start',
      utterances: m.lines.map((line) => ({
        speaker_name: line.speaker,
        speaker_uuid: `uuid-${line.speaker}`,
        timestamp_ms: line.offsetMs,
        duration_ms: line.durationMs,
        text: line.text,
        offset_ms: line.offsetMs,
      })),
    };
  },
  async participants(botId) {
    return {
      bot_id: botId,
      participants: byBot(botId).participants.map((name) => ({
        participant_uuid: `uuid-${name}`,
        name,
        user_uuid: null,
        is_host: false,
        joined_at: null,
        left_at: null,
      })),
    };
  },
  recording: () => Promise.reject(new Error('not used')),
};

const opened: Array<{ close(): Promise<void> }> = [];
let engine: LakeEngine & { close(): void };

async function connect(lake: MeetingLake | undefined): Promise<Client> {
  const client = new Client({ name: 'mcp-lake-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMeetingServer(reader, { now: () => NOW, ...(lake !== undefined && { lake }) }).connect(serverSide);
  await client.connect(clientSide);
  opened.push(client);
  return client;
}

let client: Client;
beforeAll(async () => {
  const root = scratchDir('mcp-lake-');
  writeLake(root);
  engine = await createDuckDbLakeEngine({ root });
  client = await connect({ engine, questions });
});
afterAll(async () => {
  for (const c of opened) await c.close();
  engine.close();
});

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0]?.type === 'text' ? result.content[0].text : '');
function structured(result: CallToolResult): Record<string, unknown> {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return result.structuredContent ?? {};
}

describe('MCP lake tools', () => {
  it('search_meetings answers inside the recent window from the read API and past it from the lake, saying which', async () => {
    listedDays.length = 0;
    const recent = structured(await call(client, 'search_meetings', { from: dayAgo(6), to: dayAgo(0) }));
    expect(recent).toMatchObject({ source: 'read_api', days_searched: 7, lake: null });
    expect((recent.meetings as Array<{ bot_id: string }>).map((m) => m.bot_id)).toEqual(['bot_recent']);
    expect(listedDays).toHaveLength(7);

    // Two years: far past the 31 days the read API path allows, one lake query, no day listed.
    listedDays.length = 0;
    const all = structured(await call(client, 'search_meetings', { from: dayAgo(730), to: dayAgo(0) }));
    expect(all).toMatchObject({ source: 'lake', days_searched: 731, truncated: false });
    expect(all.lake).toMatchObject({ engine: 'duckdb' });
    expect((all.meetings as Array<{ bot_id: string }>).map((m) => m.bot_id)).toEqual([
      'bot_recent',
      'bot_mid',
      'bot_old',
    ]);
    expect(all.meetings).toContainEqual(
      expect.objectContaining({ bot_id: 'bot_old', day: dayAgo(400), schedule_id: 'schedule-bot_old' }),
    );
    expect(String(all.note)).toContain('from the meetings lake');
    expect(listedDays).toEqual([]);

    // Reaching before the window, even for a short range, is the lake's; keywords match transcripts there.
    const old = structured(
      await call(client, 'search_meetings', {
        from: dayAgo(61),
        to: dayAgo(59),
        keywords: 'pricing page',
        participant: 'carol',
      }),
    );
    expect(old).toMatchObject({ source: 'lake', days_searched: 3 });
    expect(old.meetings).toEqual([
      expect.objectContaining({ bot_id: 'bot_mid', participant_names: ['Carol Diaz', 'Bob Stone'] }),
    ]);
  });

  it('search_meetings without a lake still refuses a range past 31 days', async () => {
    const plain = await connect(undefined);
    const { tools } = await plain.listTools();
    expect(tools.map((t) => t.name)).not.toContain('search_transcripts');
    const result = await call(plain, 'search_meetings', { from: dayAgo(730), to: dayAgo(0) });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/at most 31/);
  });

  it('search_transcripts cites each hit by bot id, [HH:MM:SS] offset and speaker, and links the transcript there', async () => {
    const result = await call(client, 'search_transcripts', { words: 'PRICING' });
    const page = structured(result);
    const hits = page.hits as Array<Record<string, unknown>>;
    expect(hits.map((h) => [h.bot_id, h.offset, h.speaker])).toEqual([
      ['bot_mid', '00:00:12', 'Carol Diaz'],
      ['bot_old', '00:01:05', 'Alice Park'],
      ['bot_old', '01:02:05', 'Alice Park'],
    ]);
    expect(hits[1]).toMatchObject({
      offset_ms: 65_000,
      citation: "[00:01:05] Alice Park: Let's settle the pricing for next year (meeting bot_old)",
      transcript_uri: 'meeting://bot_old/transcript/at/00:01:05',
    });
    expect(page).toMatchObject({ engine: 'duckdb', next_cursor: null });
    expect(textOf(result)).toContain('[01:02:05] Alice Park: Back to Pricing: ten percent up (meeting bot_old)');
    const links = result.content.filter((c) => c.type === 'resource_link').map((c) => c.uri);
    expect(links).toEqual(hits.map((h) => h.transcript_uri));

    // The link opens the transcript at the cited line.
    const [content] = (await client.readResource({ uri: String(hits[2]?.transcript_uri) })).contents;
    const text = content !== undefined && 'text' in content ? content.text : '';
    expect(text).toContain('Transcript of meeting bot_old from [01:02:05], utterances 1–1 of 1');
    expect(text).toContain('Back to Pricing');
    expect(text).not.toContain('settle the pricing');

    // Narrowed by speaker and days, and paged.
    const carol = structured(await call(client, 'search_transcripts', { words: 'pricing', speaker: 'diaz' }));
    expect((carol.hits as unknown[]).length).toBe(1);
    const first = structured(await call(client, 'search_transcripts', { words: 'pricing', limit: 2 }));
    expect(first.next_cursor).not.toBeNull();
    const second = structured(
      await call(client, 'search_transcripts', { words: 'pricing', limit: 2, cursor: first.next_cursor }),
    );
    expect((second.hits as Array<{ offset: string }>).map((h) => h.offset)).toEqual(['01:02:05']);
    const none = structured(await call(client, 'search_transcripts', { words: 'pricing', from: dayAgo(30) }));
    expect(none.hits).toEqual([]);
  });

  it('meeting_stats answers talk time per speaker and meetings per participant over all time', async () => {
    const talk = structured(await call(client, 'meeting_stats', { question: 'talk-time' }));
    expect(talk.rows).toEqual([
      { speaker: 'Alice Park', talk_ms: 10_000, utterances: 2, meetings: 1 },
      { speaker: 'Bob Stone', talk_ms: 5_000, utterances: 3, meetings: 3 },
      { speaker: 'Carol Diaz', talk_ms: 3_000, utterances: 1, meetings: 1 },
    ]);
    const people = await call(client, 'meeting_stats', { question: 'meetings-per-participant', limit: 1 });
    expect(structured(people).rows).toEqual([{ name: 'Bob Stone', meetings: 3 }]);
    expect(textOf(people)).toMatch(/name\s+meetings\nBob Stone\s+3/);
    const bad = await call(client, 'meeting_stats', { question: 'talk-time-per-team' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('talk-time');
  });

  it('a slow lake query sends progress notifications and answers at the deadline, naming how to narrow it', async () => {
    const seen: { signal?: AbortSignal; finished: boolean } = { finished: false };
    // The engine under test, slowed down: it answers only after a minute, whatever the caller does.
    const slow: LakeEngine = {
      async run(query, options: LakeRunOptions = {}) {
        seen.signal = options.signal;
        options.onProgress?.({ state: 'QUEUED', elapsedMs: 0 });
        await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
        seen.finished = true;
        return engine.run(query, options);
      },
    };
    const patient = await connect({ engine: slow, questions, deadlineMs: 1_500, heartbeatMs: 200 });
    const progress: Progress[] = [];
    const result = (await patient.callTool({ name: 'search_transcripts', arguments: { words: 'pricing' } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^search_transcripts: the lake query did not finish within 1\.5 s and was stopped; narrow it with from\/to \(fewer days\) or a speaker, then ask again$/,
    );
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.finished).toBe(false);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.every((p) => p.total === 1_500)).toBe(true);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
    expect(progress[0]?.message).toContain('search_transcripts: lake query');
    expect(progress.some((p) => p.message?.includes('queued'))).toBe(true);

    // The same deadline holds for meeting_stats and for search_meetings past the window.
    const stats = await call(patient, 'meeting_stats', { question: 'talk-time' });
    expect(textOf(stats)).toMatch(/^meeting_stats: the lake query did not finish within 1\.5 s/);
    const meetings = await call(patient, 'search_meetings', { from: dayAgo(400), to: dayAgo(0) });
    expect(textOf(meetings)).toMatch(/^search_meetings: the lake query did not finish within 1\.5 s/);
  });

  it('a client that cancels its call stops the lake query', async () => {
    let seen: AbortSignal | undefined;
    const waiting: LakeEngine = {
      run: (_query, options: LakeRunOptions = {}) =>
        new Promise((_, reject) => {
          seen = options.signal;
          options.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true });
        }),
    };
    const cancelling = await connect({ engine: waiting, questions });
    const cancel = new AbortController();
    const answered = cancelling.callTool({ name: 'meeting_stats', arguments: { question: 'talk-time' } }, undefined, {
      signal: cancel.signal,
      onprogress: () => cancel.abort('the user stopped it'),
    });
    await expect(answered).rejects.toThrow('the user stopped it');
    await expect.poll(() => seen?.aborted).toBe(true);
  });

  it('a fast query reports the engine progress to a client that asked for it', async () => {
    const progress: Progress[] = [];
    const result = (await client.callTool(
      { name: 'meeting_stats', arguments: { question: 'meetings-per-day' } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )) as CallToolResult;
    expect(structured(result).rows).toHaveLength(3);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.every((p) => p.total === 50_000)).toBe(true);
  });
});
