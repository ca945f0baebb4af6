/**
 * `search_transcripts`: every archived meeting's transcript lines that say some words (all time by
 * default), from the lake, newest meeting first and paged; each hit cited by bot id, `[HH:MM:SS]`
 * offset and speaker, with the resource that opens the transcript at that line.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { TranscriptHit } from '../../../lambdas/core/lake/lake-questions-contract';
import { DAY_PATTERN } from '../days';
import { callLake, costOf, lakeRange, type MeetingLake } from '../lake-calls';
import { transcriptAtUri } from '../resources';
import { answer, guarded } from '../tool-result';
import { toolInput } from './inputs';

export const TRANSCRIPT_SEARCH = { defaultHits: 20, maxHits: 100 } as const;

const dayInput = (what: string) => z.string().regex(DAY_PATTERN).optional().describe(what);

const input = {
  words: z
    .string()
    .min(1)
    .max(200)
    .describe('Words to find in what was said, as one phrase, any case (e.g. "pricing" or "renewal date").'),
  from: dayInput('First UTC day of meetings to search, YYYY-MM-DD (default: the first day the lake holds).'),
  to: dayInput('Last UTC day of meetings to search, YYYY-MM-DD (default: today).'),
  speaker: z.string().min(1).optional().describe('Only lines of speakers whose name contains this (any case).'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(TRANSCRIPT_SEARCH.maxHits)
    .default(TRANSCRIPT_SEARCH.defaultHits)
    .describe('Hits per page.'),
  cursor: z.string().optional().describe('next_cursor of the previous page, with the same words and filters.'),
};

const citedHit = z.object({
  bot_id: z.string(),
  day: z.string().describe('UTC day the meeting is listed under.'),
  started_at: z.string().nullable(),
  offset_ms: z.number().int().describe("Milliseconds from the recording's start."),
  offset: z.string().describe('HH:MM:SS of offset_ms.'),
  speaker: z.string(),
  snippet: z.string().describe('The line, cut to about 200 characters around the match.'),
  citation: z.string().describe('"[HH:MM:SS] Speaker: snippet (meeting bot_id)": quote it when using the hit.'),
  transcript_uri: z.string().describe('Resource with the transcript from this line on (or get_transcript with from).'),
});

const output = {
  words: z.string(),
  note: z.string().describe('What was searched, where it ran, what it scanned, how to get more.'),
  hits: z.array(citedHit),
  next_cursor: z.string().nullable(),
  engine: z.enum(['athena', 'duckdb']),
  bytes_scanned: z.number(),
  elapsed_ms: z.number(),
};

const cite = (hit: TranscriptHit) => ({
  bot_id: hit.bot_id,
  day: hit.day,
  started_at: hit.started_at,
  offset_ms: hit.offset_ms,
  offset: hit.offset,
  speaker: hit.speaker,
  snippet: hit.snippet,
  citation: `[${hit.offset}] ${hit.speaker}: ${hit.snippet} (meeting ${hit.bot_id})`,
  transcript_uri: transcriptAtUri(hit.bot_id, hit.offset),
});

export function registerSearchTranscripts(server: McpServer, lake: MeetingLake): void {
  server.registerTool(
    'search_transcripts',
    {
      title: 'Search what was said',
      description: `Finds transcript lines that say some words, across every archived meeting (all time unless from/to narrow it), newest meeting first, ${TRANSCRIPT_SEARCH.defaultHits} hits a page (next_cursor continues). Each hit is cited by its meeting's bot_id, its [HH:MM:SS] offset and speaker, with a meeting:// resource that opens the transcript at that line. Runs on the meetings lake; a long search reports progress and stops after a deadline, saying how to narrow it.`,
      inputSchema: toolInput('search_transcripts', input),
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(async () => {
        const page = await callLake(
          lake,
          extra,
          { tool: 'search_transcripts', narrow: 'narrow it with from/to (fewer days) or a speaker' },
          (options) =>
            lake.questions.searchTranscripts(
              lake.engine,
              {
                words: args.words,
                limit: args.limit,
                ...(args.from !== undefined && { from: args.from }),
                ...(args.to !== undefined && { to: args.to }),
                ...(args.speaker !== undefined && { speaker: args.speaker }),
                ...(args.cursor !== undefined && { cursor: args.cursor }),
              },
              options,
            ),
        );
        const hits = page.hits.map(cite);
        const range = lakeRange(args);
        const who = args.speaker === undefined ? '' : `, speakers matching "${args.speaker}"`;
        const more =
          page.next_cursor === null
            ? 'This is the last page.'
            : `Searched back to ${page.searched_through ?? 'the first day'}; more: call search_transcripts again with the same arguments and cursor "${page.next_cursor}".`;
        const note = `${hits.length} line(s) saying "${args.words}" in meetings of ${range}${who}, newest meeting first; from the meetings lake (${costOf(page)}). ${more}`;
        const structured = {
          words: args.words,
          note,
          hits,
          next_cursor: page.next_cursor,
          engine: page.engine,
          bytes_scanned: page.bytes_scanned,
          elapsed_ms: page.elapsed_ms,
        };
        const lines = hits.map((hit) => `${hit.citation}\n  ${hit.transcript_uri}`);
        const result = answer(structured, [note, '', ...lines].join('\n'));
        // Links to the transcripts cited, for clients that open resources.
        const linked = new Set<string>();
        for (const hit of hits) {
          if (linked.has(hit.transcript_uri)) continue;
          linked.add(hit.transcript_uri);
          result.content.push({
            type: 'resource_link',
            uri: hit.transcript_uri,
            name: `${hit.bot_id} at ${hit.offset}`,
            description: `Transcript of meeting ${hit.bot_id} from [${hit.offset}] (${hit.speaker})`,
            mimeType: 'text/plain',
          });
        }
        return result;
      }),
  );
}
