/**
 * The MCP server as an assistant's client sees it: the SDK's own Client spawns
 * `npx --no-install meeting-pipeline mcp --endpoint <local read API>` over stdio, against local mode
 * with a meeting played through the whole pipeline; every answer is checked against
 * the read API, fetched directly.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { EARLIEST_WALL_CLOCK_MS } from '../../cli/mcp/transcript-page';
import {
  meetingView,
  participantList,
  recordingLink,
  transcriptJson,
  utteranceView,
} from '../../lambdas/core/read/read-api-contract';
import { type CliLocalStack, childEnvironment, ROOT, startCliLocalStack } from '../fixtures/cli-local-stack';

const SCHEDULE_ID = 'mcp-meeting';
const TOOLS = [
  'get_meeting',
  'get_recording_link',
  'get_summary',
  'get_transcript',
  'list_participants',
  'search_meetings',
  'why_meeting',
];

let local: CliLocalStack | undefined;
let bot = '';
let client: Client | undefined;
let serverLog = '';
const clientErrors: Error[] = [];

/** The read API, fetched directly: what the tools' answers must agree with. */
async function api<S extends $ZodType>(path: string, schema: S): Promise<z.output<S>> {
  const response = await fetch(`${local?.endpoint}${path}`);
  expect(response.status).toBe(200);
  return z.parse(schema, await response.json());
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client?.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful answer's structured content, after checking its text is there too. */
function structured(result: CallToolResult): Record<string, unknown> {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(result.content[0]?.type).toBe('text');
  return result.structuredContent ?? {};
}

const textOf = (result: CallToolResult): string => {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
};

/** A resource's one text content. */
async function resourceText(uri: string): Promise<{ text: string; mimeType: string | undefined }> {
  const [content] = (await client?.readResource({ uri }))?.contents ?? [];
  return { text: content !== undefined && 'text' in content ? content.text : '', mimeType: content?.mimeType };
}

const utcDay = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10);

beforeAll(async () => {
  local = await startCliLocalStack('mcp');
  await local.stack.scheduleMeeting(SCHEDULE_ID, new Date(Date.now() + 3_000));
  expect(await local.stack.waitUntilArchived([SCHEDULE_ID], 90_000)).toBe(true);
  bot = [...local.stack.played.values()].find((m) => m.scheduleId === SCHEDULE_ID)?.botId ?? '';
  expect(bot).not.toBe('');

  const env = Object.fromEntries(
    Object.entries(childEnvironment()).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no-install', 'meeting-pipeline', 'mcp', '--endpoint', local.endpoint],
    cwd: ROOT,
    env,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    serverLog += chunk.toString();
  });
  client = new Client({ name: 'meeting-pipeline-test', version: '1.0.0' });
  // Anything on the server's stdout that is not a protocol message lands here.
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await local?.stop();
});

describe('meeting-pipeline mcp', () => {
  it('offers six read-only tools with described input schemas, and says where it reads', async () => {
    const { tools } = (await client?.listTools()) ?? { tools: [] };
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0).toBeGreaterThan(40);
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.outputSchema?.type).toBe('object');
      for (const property of Object.values(tool.inputSchema.properties ?? {}))
        expect((property as { description?: string }).description).toBeTruthy();
    }
    const transcript = tools.find((t) => t.name === 'get_transcript');
    expect(transcript?.inputSchema.required).toEqual(['bot_id']);
    expect(transcript?.inputSchema.properties?.format).toMatchObject({ enum: ['json', 'text', 'vtt'] });
    expect(client?.getInstructions()).toContain('[HH:MM:SS]');
    expect(serverLog).toContain(`meeting-pipeline mcp: reading ${local?.endpoint}`);
  });

  it('get_meeting, get_summary, list_participants and get_recording_link answer as the read API does', async () => {
    const meeting = await api(`/meetings/${bot}`, meetingView);
    expect(meeting).toMatchObject({ state: 'ended', schedule_id: SCHEDULE_ID });
    expect(structured(await call('get_meeting', { bot_id: bot }))).toEqual(meeting);

    const summary = await call('get_summary', { bot_id: bot });
    expect(structured(summary)).toMatchObject({ bot_id: bot, summary: meeting.summary, state: 'ended' });
    expect(textOf(summary)).toContain(`Summary of meeting ${bot} (schedule ${SCHEDULE_ID})`);
    expect(textOf(summary)).toContain(meeting.summary ?? 'no summary');

    const participants = await api(`/meetings/${bot}/participants`, participantList);
    expect(participants.participants.length).toBeGreaterThan(0);
    expect(structured(await call('list_participants', { bot_id: bot }))).toEqual(participants);

    const link = await api(`/meetings/${bot}/recording`, recordingLink);
    const answered = structured(await call('get_recording_link', { bot_id: bot }));
    expect(answered).toMatchObject({
      bot_id: bot,
      bytes: link.bytes,
      sha256: link.sha256,
      content_type: link.content_type,
      url: expect.stringContaining(`meetings/${bot}/`),
    });
    expect(String(answered.note)).toContain(link.sha256);
  });

  it('search_meetings finds the meeting by day, state, participant and summary keywords, and says when it stops', async () => {
    const meeting = await api(`/meetings/${bot}`, meetingView);
    const participants = await api(`/meetings/${bot}/participants`, participantList);
    const someone = participants.participants[0]?.name ?? '';
    const word = (meeting.summary ?? '').split(/\W+/).find((w) => w.length > 5) ?? '';
    const range = { from: utcDay(86_400_000), to: utcDay(0) };

    const found = structured(
      await call('search_meetings', {
        ...range,
        state: 'ended',
        participant: someone.slice(0, 3).toUpperCase(),
        keywords: `${word} ${SCHEDULE_ID}`,
      }),
    );
    expect(found).toMatchObject({ ...range, days_searched: 2, truncated: false });
    const meetings = found.meetings as Array<Record<string, unknown>>;
    expect(meetings).toHaveLength(1);
    expect(meetings[0]).toMatchObject({
      bot_id: bot,
      state: 'ended',
      schedule_id: SCHEDULE_ID,
      summary_excerpt: meeting.summary,
      utterance_count: meeting.utterance_count,
      participant_names: participants.participants.map((p) => p.name),
    });

    const nothing = structured(await call('search_meetings', { ...range, keywords: 'no-such-word-anywhere' }));
    expect(nothing.meetings).toEqual([]);
    const tooLong = await call('search_meetings', { from: '2026-01-01', to: '2026-03-01' });
    expect(tooLong.isError).toBe(true);
    expect(textOf(tooLong)).toMatch(/at most 31/);
  });

  it('get_transcript pages the transcript with a cursor, cites each utterance, and filters by speaker and time', async () => {
    const whole = await api(`/meetings/${bot}/transcript?format=json`, transcriptJson);
    expect(whole.utterances.length).toBeGreaterThan(2);
    const apiText = await (await fetch(`${local?.endpoint}/meetings/${bot}/transcript?format=text`)).text();
    const apiLines = apiText.trimEnd().split('\n');

    const pages: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const page = structured(
        await call('get_transcript', {
          bot_id: bot,
          format: 'json',
          max_utterances: 2,
          ...(cursor !== undefined && { cursor }),
        }),
      );
      pages.push(page);
      cursor = (page.next_cursor as string | null) ?? undefined;
    } while (cursor !== undefined && pages.length < 20);
    expect(pages.length).toBe(Math.ceil(whole.utterances.length / 2));
    const given = pages.flatMap((page) => page.utterances as Array<Record<string, unknown>>);
    expect(given.map((u) => utteranceView.parse(u))).toEqual(whole.utterances);
    expect(given.map((u) => u.line)).toEqual(apiLines);
    // The simulated service counts timestamp_ms from the meeting start, so no wall-clock time is claimed.
    const wallClock = (ms: number) => (ms >= EARLIEST_WALL_CLOCK_MS ? new Date(ms).toISOString() : null);
    expect(given.map((u) => u.timestamp)).toEqual(whole.utterances.map((u) => wallClock(u.timestamp_ms)));
    expect(pages[0]).toMatchObject({ bot_id: bot, first: 1, last: 2, utterances_total: whole.utterances.length });

    const text = await call('get_transcript', { bot_id: bot, max_utterances: 2 });
    expect(textOf(text).split('\n\n')[0]).toMatch(
      new RegExp(`^Meeting ${bot}: utterances 1–2 of ${whole.utterances.length}; .* cursor "[\\w-]+"\\.$`),
    );
    expect(textOf(text).trimEnd().split('\n').slice(2)).toEqual(apiLines.slice(0, 2));
    const vtt = await call('get_transcript', { bot_id: bot, format: 'vtt' });
    expect(textOf(vtt)).toMatch(/^WEBVTT\n\nNOTE Meeting .* This is the last page\.\n\n\d\d:\d\d:\d\d\.\d{3} --> /);

    const speaker = whole.utterances[0]?.speaker_name ?? '';
    const theirs = structured(await call('get_transcript', { bot_id: bot, speaker: speaker.toLowerCase() }));
    const spoken = whole.utterances.filter((u) => u.speaker_name === speaker);
    expect((theirs.utterances as unknown[]).length).toBe(spoken.length);
    expect(theirs.utterances_matching).toBe(spoken.length);
    const secondOffset = whole.utterances[1]?.offset_ms ?? 0;
    const late = structured(
      await call('get_transcript', { bot_id: bot, from: String(Math.ceil(secondOffset / 1000)) }),
    );
    const after = whole.utterances.filter((u) => u.offset_ms >= Math.ceil(secondOffset / 1000) * 1000);
    expect((late.utterances as Array<{ offset_ms: number }>).map((u) => u.offset_ms)).toEqual(
      after.map((u) => u.offset_ms),
    );
  });

  it('answers a missing meeting, a bad cursor and bad arguments with tool errors that say why', async () => {
    for (const name of TOOLS.filter((t) => t !== 'search_meetings')) {
      const result = await call(name, { bot_id: 'bot_nobody' });
      expect({ name, isError: result.isError }).toEqual({ name, isError: true });
      expect(textOf(result)).toMatch(/^not found \(404\): no meeting is known for bot bot_nobody/);
    }
    const cursor = await call('get_transcript', { bot_id: bot, cursor: 'not-a-cursor' });
    expect(cursor.isError).toBe(true);
    expect(textOf(cursor)).toContain('cursor is not one get_transcript gave');
    const invalid = await call('get_transcript', { bot_id: bot, max_utterances: 0 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('max_utterances');
  });

  it('lists recent meetings as resources and reads a meeting and its transcript', async () => {
    const { resources } = (await client?.listResources()) ?? { resources: [] };
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['meeting://recent', `meeting://${bot}`]));
    const { resourceTemplates } = (await client?.listResourceTemplates()) ?? { resourceTemplates: [] };
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'meeting://{bot_id}',
      'meeting://{bot_id}/transcript',
      'meeting://{bot_id}/transcript/at/{offset}',
    ]);

    const meeting = await api(`/meetings/${bot}`, meetingView);
    const read = await resourceText(`meeting://${bot}`);
    expect(read.mimeType).toBe('application/json');
    expect(JSON.parse(read.text)).toEqual(meeting);

    const recent = await resourceText('meeting://recent');
    expect(JSON.parse(recent.text).meetings).toEqual(
      expect.arrayContaining([expect.objectContaining({ bot_id: bot, uri: `meeting://${bot}` })]),
    );
    const apiText = await (await fetch(`${local?.endpoint}/meetings/${bot}/transcript?format=text`)).text();
    expect((await resourceText(`meeting://${bot}/transcript`)).text).toContain(apiText);

    await expect(client?.readResource({ uri: 'meeting://bot_nobody' })).rejects.toThrow(/not found \(404\)/);
    expect(clientErrors).toEqual([]);
  });
});
