/**
 * The MCP tools refuse arguments they do not take, through the SDK's own client and server
 * (linked in memory): `search_meetings {"query": …}` is a tool error naming the arguments
 * search_meetings takes, never an answer as if no filter had been given.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeetingReader } from '../../cli/mcp/meeting-reader';
import { createMeetingServer } from '../../cli/mcp/server';
import type { MeetingView } from '../../lambdas/core/read/read-api-contract';

const meeting = (botId: string): MeetingView => ({
  bot_id: botId,
  state: 'ended',
  state_at: null,
  summary: 'Budget review',
  utterance_count: 0,
  participant_count: 0,
  schedule_id: null,
  meeting_url: null,
  scheduled_join_at: null,
  archived_at: null,
  recording: null,
  outcome: {
    status: 'missed',
    reason: 'request_to_join_denied',
    sentence: 'The bot asked to join and was denied.',
  },
  timeline: [
    {
      at: '2026-11-20T10:02:00.000Z',
      event_type: 'could_not_join_meeting',
      event_sub_type: 'request_to_join_denied',
      old_state: 'joining',
      new_state: 'fatal_error',
    },
  ],
});

/** A read API with one meeting a day; counts the calls, which a refused call must not make. */
const calls = { listDay: 0, meeting: 0 };
const reader: MeetingReader = {
  async listDay({ day }) {
    calls.listDay += 1;
    return { meetings: [meeting(`bot_${day}`)], next_cursor: null };
  },
  async meeting(botId) {
    calls.meeting += 1;
    return meeting(botId);
  },
  transcript: () => Promise.reject(new Error('not used')),
  participants: async (botId) => ({ bot_id: botId, participants: [] }),
  recording: () => Promise.reject(new Error('not used')),
};

const client = new Client({ name: 'test', version: '1.0.0' });
beforeAll(async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMeetingServer(reader).connect(serverSide);
  await client.connect(clientSide);
});
afterAll(() => client.close());

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0]?.type === 'text' ? result.content[0].text : '');

describe('MCP tool arguments', () => {
  it('search_meetings refuses "query", naming the arguments it takes, and reads nothing', async () => {
    const before = { ...calls };
    const result = await call('search_meetings', { query: 'budget' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('search_meetings takes no "query"');
    expect(textOf(result)).toContain('its arguments are: from, to, state, participant, keywords, limit');
    expect(calls).toEqual(before);
    // The arguments it takes still work.
    const found = await call('search_meetings', { keywords: 'budget', limit: 1 });
    expect(found.isError ?? false).toBe(false);
  });

  it('every tool refuses an argument it does not take, and says which it takes', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_meeting',
      'get_recording_link',
      'get_summary',
      'get_transcript',
      'list_participants',
      'search_meetings',
      'why_meeting',
    ]);
    for (const tool of tools) {
      const result = await call(tool.name, { bot_id: 'bot_1', botid: 'bot_1' });
      expect(result.isError, tool.name).toBe(true);
      expect(textOf(result)).toMatch(new RegExp(`${tool.name} takes no ("bot_id", )?"botid"`));
      for (const name of Object.keys(tool.inputSchema.properties ?? {})) expect(textOf(result)).toContain(name);
      // Clients that read the schema learn it too.
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
  });
});

describe('why_meeting', () => {
  it('answers the outcome and timeline as the read API shows them, and the explanation as text', async () => {
    const result = await call('why_meeting', { bot_id: 'bot_denied' });
    expect(result.isError ?? false).toBe(false);
    const shown = meeting('bot_denied');
    expect(result.structuredContent).toEqual({
      bot_id: 'bot_denied',
      outcome: shown.outcome,
      timeline: shown.timeline,
    });
    expect(textOf(result)).toMatch(/could_not_join_meeting \(request_to_join_denied\)\s+joining → fatal_error/);
    expect(textOf(result)).toMatch(
      /outcome: missed \(request_to_join_denied\)\nThe bot asked to join and was denied\.$/,
    );
  });
});
