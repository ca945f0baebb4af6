/** The MCP server's search bounds (days, results, meetings read) and the reasons its tool errors give. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../cli/api';
import type { MeetingReader } from '../../cli/mcp/meeting-reader';
import { SEARCH_LIMITS, searchMeetings } from '../../cli/mcp/search';
import { failureReason } from '../../cli/mcp/tool-result';
import type { MeetingView } from '../../lambdas/core/read/read-api-contract';

/** A read API with `perDay` ended meetings on each day, and a count of its calls. */
function fakeReader(perDay: number) {
  const calls = { listDay: 0, meeting: 0 };
  const meeting = (botId: string): MeetingView => ({
    bot_id: botId,
    state: 'ended',
    state_at: null,
    summary: botId.endsWith('7') ? 'Budget review with Ada' : 'Standup',
    utterance_count: 1,
    participant_count: 1,
    schedule_id: `schedule-${botId}`,
    meeting_url: null,
    scheduled_join_at: null,
    archived_at: null,
    recording: null,
    outcome: null,
    timeline: [],
  });
  const reader: MeetingReader = {
    async listDay({ day, limit = 50, cursor }) {
      calls.listDay += 1;
      const start = Number(cursor ?? 0);
      const ids = Array.from({ length: perDay }, (_, i) => `bot_${day}_${i}`).slice(start, start + limit);
      const next = start + ids.length < perDay ? String(start + ids.length) : null;
      return { meetings: ids.map((id) => ({ ...meeting(id), state_at: null })), next_cursor: next };
    },
    async meeting(botId) {
      calls.meeting += 1;
      return meeting(botId);
    },
    transcript: () => Promise.reject(new Error('not used')),
    participants: async (botId) => ({
      bot_id: botId,
      participants: [
        { participant_uuid: 'p', name: 'Ada', user_uuid: null, is_host: true, joined_at: null, left_at: null },
      ],
    }),
    recording: () => Promise.reject(new Error('not used')),
  };
  return { reader, calls };
}

const NOW = new Date('2026-11-23T12:00:00Z');

describe('search_meetings bounds', () => {
  it('walks the days newest first, one listing each, and marks a cut-short answer', async () => {
    const { reader } = fakeReader(3);
    const result = await searchMeetings(reader, { limit: 4 }, NOW);
    expect(result).toMatchObject({ from: '2026-11-17', to: '2026-11-23', truncated: true, days_searched: 2 });
    expect(result.meetings.map((m) => m.day)).toEqual(['2026-11-23', '2026-11-23', '2026-11-23', '2026-11-22']);
    expect(result.note).toContain('more meetings match');
  });

  it('stops after reading its bound of meetings, saying on which day', async () => {
    const { reader, calls } = fakeReader(150);
    const result = await searchMeetings(reader, { keywords: 'budget', from: '2026-11-20', to: '2026-11-23' }, NOW);
    expect(calls.meeting).toBe(SEARCH_LIMITS.maxExamined);
    expect(result.truncated).toBe(true);
    expect(result.note).toContain('on 2026-11-22');
    expect(result.meetings.every((m) => m.summary_excerpt === 'Budget review with Ada')).toBe(true);
  });

  it('refuses more than the longest range and a range backwards', async () => {
    const { reader, calls } = fakeReader(1);
    await expect(searchMeetings(reader, { from: '2026-01-01', to: '2026-03-01' })).rejects.toThrow(/at most 31/);
    await expect(searchMeetings(reader, { from: '2026-03-02', to: '2026-03-01' })).rejects.toThrow(/after/);
    await expect(searchMeetings(reader, { from: '2026-02-30' })).rejects.toThrow(/YYYY-MM-DD/);
    expect(calls.listDay).toBe(0);
  });
});

describe('tool error reasons', () => {
  it('says what is missing, what is denied and what to do', () => {
    expect(failureReason(new ApiError(404, 'no meeting is known for bot bot_x'))).toBe(
      'not found (404): no meeting is known for bot bot_x',
    );
    expect(failureReason(new ApiError(403, 'Forbidden'))).toMatch(/^denied \(403\): Forbidden; .*execute-api:Invoke/);
    expect(failureReason(new ApiError(400, 'limit takes 1 to 200'))).toBe('refused (400): limit takes 1 to 200');
    const expired = Object.assign(new Error('The security token included in the request is expired'), {
      name: 'ExpiredTokenException',
    });
    expect(failureReason(expired)).toMatch(/^denied: ExpiredTokenException: .*aws sso login/);
  });
});
