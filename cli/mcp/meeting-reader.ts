/**
 * What the MCP server reads, through the read API (never the table): each call parsed
 * with the contract's schema, so the tools see the same shapes as the CLI and the API's callers.
 */
import type * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import {
  type MeetingView,
  meetingList,
  meetingView,
  participantList,
  READ_API_ROUTES,
  recordingLink,
  transcriptJson,
} from '../../lambdas/core/read/read-api-contract';
import { requestJson, routeUrl } from '../api';
import type { Target } from '../target';

export type MeetingList = z.infer<typeof meetingList>;
export type TranscriptJson = z.infer<typeof transcriptJson>;
export type ParticipantList = z.infer<typeof participantList>;
export type RecordingLink = z.infer<typeof recordingLink>;

export interface DayQuery {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  state?: string;
  limit?: number;
  cursor?: string;
}

export interface MeetingReader {
  listDay(query: DayQuery): Promise<MeetingList>;
  meeting(botId: string): Promise<MeetingView>;
  transcript(botId: string): Promise<TranscriptJson>;
  participants(botId: string): Promise<ParticipantList>;
  recording(botId: string): Promise<RecordingLink>;
}

/** A reader over the read API of the target the CLI resolved (signed in AWS, plain on loopback). */
export function readApiReader(target: () => Promise<Target>): MeetingReader {
  const get = async <S extends $ZodType>(
    route: string,
    schema: S,
    params: Record<string, string> = {},
    query: Record<string, string | number | undefined> = {},
  ): Promise<z.output<S>> => {
    const api = await target();
    return (await requestJson(api, routeUrl(api, route, params, query), schema)).value;
  };
  return {
    listDay: ({ day, state, limit, cursor }) =>
      get(READ_API_ROUTES.listMeetings, meetingList, {}, { day, state, limit, cursor }),
    meeting: (botId) => get(READ_API_ROUTES.getMeeting, meetingView, { bot_id: botId }),
    transcript: (botId) => get(READ_API_ROUTES.transcript, transcriptJson, { bot_id: botId }, { format: 'json' }),
    participants: (botId) => get(READ_API_ROUTES.participants, participantList, { bot_id: botId }),
    recording: (botId) => get(READ_API_ROUTES.recording, recordingLink, { bot_id: botId }),
  };
}
