/** `get_transcript`: one page of a meeting's transcript, filtered and cited, in the format asked for. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { utteranceView } from '../../../lambdas/core/read/read-api-contract';
import { toPlainText, toWebVtt } from '../../../lambdas/core/read/transcript-formats';
import type { MeetingReader } from '../meeting-reader';
import { answer, guarded } from '../tool-result';
import { OFFSET_PATTERN, offsetMs, TRANSCRIPT_PAGE, type TranscriptPage, transcriptPage } from '../transcript-page';
import { botIdInput, toolInput } from './inputs';

const FORMATS = ['json', 'text', 'vtt'] as const;

const offsetInput = (edge: string) =>
  z
    .string()
    .regex(OFFSET_PATTERN)
    .optional()
    .describe(
      `Only utterances starting ${edge} this offset from the transcript's start: HH:MM:SS, MM:SS or seconds, as the [HH:MM:SS] citations show.`,
    );

const input = {
  bot_id: botIdInput,
  format: z
    .enum(FORMATS)
    .default('text')
    .describe(
      'text: one "[HH:MM:SS] Speaker: text" line per utterance; vtt: WebVTT captions; json: the utterances as JSON. Every format also comes as structured utterances.',
    ),
  from: offsetInput('at or after'),
  to: offsetInput('at or before'),
  speaker: z
    .string()
    .min(1)
    .optional()
    .describe("Only this speaker's utterances: part of the name (any case) or the speaker uuid."),
  max_utterances: z
    .number()
    .int()
    .min(1)
    .max(TRANSCRIPT_PAGE.maxUtterances)
    .default(TRANSCRIPT_PAGE.defaultUtterances)
    .describe(`Utterances per page; a page also stops at about ${TRANSCRIPT_PAGE.maxBytes / 1000} KB.`),
  cursor: z
    .string()
    .optional()
    .describe("next_cursor of the previous page, to continue after it; it keeps that call's from, to and speaker."),
};

const output = {
  bot_id: z.string(),
  offsets_from: z.enum(['recording_start', 'first_utterance']),
  note: z.string().describe('Which utterances this page holds, what the offsets count from, how to get more.'),
  utterances_total: z.number().int(),
  utterances_matching: z.number().int(),
  first: z.number().int().describe('Position of the first utterance of this page among those matching (1-based).'),
  last: z.number().int(),
  next_cursor: z.string().nullable(),
  utterances: z.array(
    z.object({
      ...utteranceView.shape,
      line: z.string().describe('The utterance cited: "[HH:MM:SS] Speaker: text", the offset as in the text format.'),
      timestamp: z
        .string()
        .nullable()
        .describe("When it was said, ISO 8601 (UTC); null when the service's timestamp_ms is no wall-clock time."),
    }),
  ),
};

function describePage(botId: string, total: number, from: string, page: TranscriptPage): string {
  const filtered = page.matching === total ? '' : ` matching the filter (${page.matching} of ${total})`;
  const origin = from === 'recording_start' ? 'the recording start' : 'the first utterance';
  const head =
    page.utterances.length === 0
      ? `Meeting ${botId}: no utterances${filtered === '' ? '' : ' match the filter'} on this page (${page.matching} matching of ${total}).`
      : `Meeting ${botId}: utterances ${page.first}–${page.first + page.utterances.length - 1} of ${page.matching}${filtered}; [HH:MM:SS] are offsets from ${origin}.`;
  const more =
    page.nextCursor === null
      ? 'This is the last page.'
      : `More: call get_transcript with bot_id "${botId}" and cursor "${page.nextCursor}".`;
  return `${head} ${more}`;
}

export function registerGetTranscript(server: McpServer, reader: MeetingReader): void {
  server.registerTool(
    'get_transcript',
    {
      title: 'Get a transcript page',
      description: `A meeting's transcript, one page at a time (at most ${TRANSCRIPT_PAGE.maxUtterances} utterances and about ${TRANSCRIPT_PAGE.maxBytes / 1000} KB; next_cursor continues), optionally only a time range or one speaker. Each utterance is cited by its offset ([HH:MM:SS]) and its time; quote those when using it.`,
      inputSchema: toolInput('get_transcript', input),
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const transcript = await reader.transcript(args.bot_id);
        const page = transcriptPage(transcript, {
          filter: {
            ...(args.from !== undefined && { fromMs: offsetMs(args.from) }),
            ...(args.to !== undefined && { toMs: offsetMs(args.to) }),
            ...(args.speaker !== undefined && { speaker: args.speaker }),
          },
          maxUtterances: args.max_utterances,
          ...(args.cursor !== undefined && { cursor: args.cursor }),
        });
        const note = describePage(transcript.bot_id, transcript.utterances.length, transcript.offsets_from, page);
        const structured = {
          bot_id: transcript.bot_id,
          offsets_from: transcript.offsets_from,
          note,
          utterances_total: transcript.utterances.length,
          utterances_matching: page.matching,
          first: page.first,
          last: page.first + page.utterances.length - 1,
          next_cursor: page.nextCursor,
          utterances: page.utterances,
        };
        if (args.format === 'text') return answer(structured, `${note}\n\n${toPlainText(page.utterances)}`);
        if (args.format === 'vtt')
          return answer(structured, toWebVtt(page.utterances).replace(/^WEBVTT\n\n/, `WEBVTT\n\nNOTE ${note}\n\n`));
        return answer(structured);
      }),
  );
}
