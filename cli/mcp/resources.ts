/**
 * Resources: `meeting://recent` (today's and yesterday's meetings, UTC), `meeting://{bot_id}`
 * (one meeting, listed for the recent ones), `meeting://{bot_id}/transcript` (its first
 * transcript page, as text) and `meeting://{bot_id}/transcript/at/{HH:MM:SS}` (the page starting
 * at that offset: what search_transcripts cites). A failed read is a protocol error with the reason.
 */
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { toPlainText } from '../../lambdas/core/read/transcript-formats';
import { ApiError } from '../api';
import { daysBefore, utcDay } from './days';
import type { MeetingReader } from './meeting-reader';
import { failureReason } from './tool-result';
import { offsetMs, TRANSCRIPT_PAGE, transcriptPage } from './transcript-page';

export const RECENT_URI = 'meeting://recent';
const RECENT_DAYS = 2;
const RECENT_LIMIT = 100;
/** JSON-RPC code MCP gives an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

export const meetingUri = (botId: string): string => `meeting://${encodeURIComponent(botId)}`;
/** The transcript from an offset (`HH:MM:SS`) on. */
export const transcriptAtUri = (botId: string, offset: string): string =>
  `${meetingUri(botId)}/transcript/at/${offset}`;

async function recentMeetings(reader: MeetingReader, now: Date) {
  const today = utcDay(now);
  const days = Array.from({ length: RECENT_DAYS }, (_, i) => daysBefore(today, i));
  const pages = await Promise.all(days.map((day) => reader.listDay({ day, limit: RECENT_LIMIT })));
  const meetings = pages.flatMap((page, i) =>
    page.meetings.map((m) => ({ uri: meetingUri(m.bot_id), day: days[i] ?? today, ...m })),
  );
  const cut = pages.some((page) => page.next_cursor !== null);
  return {
    days,
    meetings,
    note: `Meetings of ${days.join(' and ')} (UTC), newest first${cut ? `, at most ${RECENT_LIMIT} a day: use search_meetings for the rest` : ''}.`,
  };
}

async function read<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new McpError(
      error instanceof ApiError && error.status === 404 ? RESOURCE_NOT_FOUND : -32603,
      failureReason(error),
    );
  }
}

const variable = (value: string | string[] | undefined): string =>
  decodeURIComponent(Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));

export function registerResources(server: McpServer, reader: MeetingReader, now: () => Date = () => new Date()): void {
  server.registerResource(
    'recent-meetings',
    RECENT_URI,
    {
      title: 'Recent meetings',
      description: "Today's and yesterday's meetings (UTC days), newest first, each with its meeting:// URI.",
      mimeType: 'application/json',
    },
    (uri) =>
      read(async () => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify(await recentMeetings(reader, now()), null, 2),
          },
        ],
      })),
  );

  const transcriptText = async (uri: URL, botId: string, from?: string) => {
    const fromMs = from === undefined ? undefined : offsetMs(from);
    const page = transcriptPage(await reader.transcript(botId), {
      filter: fromMs === undefined ? {} : { fromMs },
      maxUtterances: TRANSCRIPT_PAGE.defaultUtterances,
    });
    const at = from === undefined ? '' : ` from [${from}]`;
    const more =
      page.nextCursor === null
        ? ''
        : `\n[more: call get_transcript with bot_id "${botId}" and cursor "${page.nextCursor}"]\n`;
    return {
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/plain',
          text: `Transcript of meeting ${botId}${at}, utterances 1–${page.utterances.length} of ${page.matching}\n\n${toPlainText(page.utterances)}${more}`,
        },
      ],
    };
  };

  // Both registered before meeting://{bot_id}, whose variable never spans a slash anyway.
  server.registerResource(
    'meeting-transcript',
    new ResourceTemplate('meeting://{bot_id}/transcript', { list: undefined }),
    {
      title: "A meeting's transcript (first page)",
      description: `The first ${TRANSCRIPT_PAGE.defaultUtterances} utterances (at most about ${TRANSCRIPT_PAGE.maxBytes / 1000} KB) as "[HH:MM:SS] Speaker: text" lines; get_transcript pages through the rest.`,
      mimeType: 'text/plain',
    },
    (uri, variables) => read(() => transcriptText(uri, variable(variables.bot_id))),
  );

  server.registerResource(
    'meeting-transcript-at',
    new ResourceTemplate('meeting://{bot_id}/transcript/at/{offset}', { list: undefined }),
    {
      title: "A meeting's transcript from an offset",
      description: `Up to ${TRANSCRIPT_PAGE.defaultUtterances} utterances starting at the offset (HH:MM:SS from the recording's start), as "[HH:MM:SS] Speaker: text" lines: where a search_transcripts hit points.`,
      mimeType: 'text/plain',
    },
    (uri, variables) => read(() => transcriptText(uri, variable(variables.bot_id), variable(variables.offset))),
  );

  server.registerResource(
    'meeting',
    new ResourceTemplate('meeting://{bot_id}', {
      list: () =>
        read(async () => ({
          resources: (await recentMeetings(reader, now())).meetings.map((m) => ({
            uri: m.uri,
            name: m.schedule_id ?? m.bot_id,
            title: `${m.schedule_id ?? m.bot_id} (${m.bot_id})`,
            description: `Meeting ${m.bot_id}, ${m.state ?? 'state unknown'}${m.state_at === null ? '' : ` since ${m.state_at}`}`,
            mimeType: 'application/json',
          })),
        })),
    }),
    {
      title: 'A meeting',
      description: 'One meeting as get_meeting returns it (state, summary, counts, schedule, recording), as JSON.',
      mimeType: 'application/json',
    },
    (uri, variables) =>
      read(async () => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify(await reader.meeting(variable(variables.bot_id)), null, 2),
          },
        ],
      })),
  );
}
