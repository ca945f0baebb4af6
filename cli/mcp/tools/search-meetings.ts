/**
 * `search_meetings`: meetings over a range of UTC days, by state, participant and keywords; the
 * recent window through the read API, older or longer ranges through the meetings lake.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DAY_PATTERN } from '../days';
import { callLake, type MeetingLake } from '../lake-calls';
import type { MeetingReader } from '../meeting-reader';
import { beyondRecentWindow, SEARCH_LIMITS, type SearchCriteria, searchMeetings, searchResult } from '../search';
import { answer, guarded } from '../tool-result';
import { toolInput } from './inputs';

const dayInput = (what: string) => z.string().regex(DAY_PATTERN).optional().describe(what);

const input = {
  from: dayInput(
    `First UTC day to search, YYYY-MM-DD (default: ${SEARCH_LIMITS.defaultDays - 1} days before \`to\`). Within the last ${SEARCH_LIMITS.maxDays} days the read API answers; an earlier or longer range goes to the meetings lake when the server has one (otherwise at most ${SEARCH_LIMITS.maxDays} days per search).`,
  ),
  to: dayInput('Last UTC day to search, YYYY-MM-DD (default: today, UTC).'),
  state: z
    .string()
    .min(1)
    .optional()
    .describe('Only meetings now in this bot state, e.g. "ended", "joined_recording", "fatal_error".'),
  participant: z
    .string()
    .min(1)
    .optional()
    .describe('Only meetings with a participant whose name contains this (any case).'),
  keywords: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Recent window: words that must all appear (any case) in the meeting's title or summary; the title is its schedule id (and meeting link), the read API keeps no other. From the lake: the words as one phrase in the summary or the transcript.",
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_LIMITS.maxResults)
    .default(SEARCH_LIMITS.defaultResults)
    .describe('Most meetings to return.'),
};

export function registerSearchMeetings(
  server: McpServer,
  reader: MeetingReader,
  lake?: MeetingLake,
  now: () => Date = () => new Date(),
): void {
  const reach =
    lake === undefined
      ? `The read API lists one day per call, so a search covers at most ${SEARCH_LIMITS.maxDays} days`
      : `Within the last ${SEARCH_LIMITS.maxDays} days the read API lists one day per call; a range reaching earlier or longer goes to the meetings lake (archived meetings, any number of days), and source says which answered. A search`;
  server.registerTool(
    'search_meetings',
    {
      title: 'Search meetings',
      description: `Finds meetings between two UTC days (newest first), optionally by state, participant name and keywords in title and summary. ${reach} reads at most ${SEARCH_LIMITS.maxExamined} meetings; when it stops short, truncated is true and note says where. Each result names its meeting by bot_id, for get_meeting, get_transcript and the other tools.`,
      inputSchema: toolInput('search_meetings', input),
      outputSchema: searchResult.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(async () => {
        const criteria: SearchCriteria = {
          ...(args.from !== undefined && { from: args.from }),
          ...(args.to !== undefined && { to: args.to }),
          ...(args.state !== undefined && { state: args.state }),
          ...(args.participant !== undefined && { participant: args.participant }),
          ...(args.keywords !== undefined && { keywords: args.keywords }),
          limit: args.limit,
        };
        const at = now();
        const result =
          lake !== undefined && beyondRecentWindow(criteria, at)
            ? await callLake(
                lake,
                extra,
                { tool: 'search_meetings', narrow: 'narrow it with from/to (fewer days) or keywords' },
                (options) =>
                  searchMeetings(reader, criteria, at, (listInput) =>
                    lake.questions.listLakeMeetings(lake.engine, listInput, options),
                  ),
              )
            : await searchMeetings(reader, criteria, at);
        return answer({ ...result });
      }),
  );
}
