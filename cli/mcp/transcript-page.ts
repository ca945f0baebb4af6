/**
 * Transcript pages for MCP clients: the read API returns a whole transcript, which for a long
 * meeting is megabytes; a tool answer holds at most `maxUtterances` utterances and about
 * `maxBytes`, and a cursor continues after the last one. The cursor carries the filters too,
 * so a client continuing a page needs only the bot id and the cursor.
 */
import { z } from 'zod';
import type { UtteranceView } from '../../lambdas/core/read/read-api-contract';
import { toPlainText } from '../../lambdas/core/read/transcript-formats';
import type { TranscriptJson } from './meeting-reader';
import { ToolInputError } from './tool-result';

export const TRANSCRIPT_PAGE = {
  defaultUtterances: 200,
  maxUtterances: 500,
  /** Bytes of a page's utterances as JSON: the answer stays well under what a client can hold. */
  maxBytes: 50_000,
} as const;

/** Offsets as the citations show them: `HH:MM:SS`, `MM:SS` or seconds. */
export const OFFSET_PATTERN = /^\d+(:\d{1,2}){0,2}$/;

export function offsetMs(text: string): number {
  if (!OFFSET_PATTERN.test(text)) throw new ToolInputError(`an offset is HH:MM:SS, MM:SS or seconds, not ${text}`);
  return text.split(':').reduce((total, part) => total * 60 + Number(part), 0) * 1000;
}

export interface TranscriptFilter {
  /** Utterances starting at or after this offset. */
  fromMs?: number;
  /** Utterances starting at or before this offset. */
  toMs?: number;
  /** Part of a speaker's name (any case), or a speaker uuid. */
  speaker?: string;
}

/** An utterance with what cites it: its line in the text format (`[HH:MM:SS] Speaker: text`) and its time. */
export interface CitedUtterance extends UtteranceView {
  line: string;
  /** ISO 8601; null when `timestamp_ms` is no wall-clock time (a service may count from the meeting start). */
  timestamp: string | null;
}

/** Epoch milliseconds before 2000 are no meeting's time: such a `timestamp_ms` counts from something else. */
export const EARLIEST_WALL_CLOCK_MS = Date.UTC(2000, 0, 1);

const cursorShape = z.object({
  bot: z.string(),
  /** The last utterance given: timestamp and speaker, its key in the transcript's order. */
  after: z.tuple([z.number(), z.string()]),
  fromMs: z.number().optional(),
  toMs: z.number().optional(),
  speaker: z.string().optional(),
});
type Cursor = z.infer<typeof cursorShape>;

export const encodeCursor = (cursor: Cursor): string => Buffer.from(JSON.stringify(cursor)).toString('base64url');

export function decodeCursor(text: string, botId: string): Cursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const parsed = cursorShape.safeParse(decoded);
  if (!parsed.success) throw new ToolInputError('cursor is not one get_transcript gave: pass next_cursor unchanged');
  if (parsed.data.bot !== botId)
    throw new ToolInputError(`cursor belongs to meeting ${parsed.data.bot}, not ${botId}: pass the same bot_id`);
  return parsed.data;
}

type Key = Pick<UtteranceView, 'timestamp_ms' | 'speaker_uuid'>;
const order = (a: Key, b: Key): number =>
  a.timestamp_ms - b.timestamp_ms || (a.speaker_uuid < b.speaker_uuid ? -1 : a.speaker_uuid > b.speaker_uuid ? 1 : 0);

function matches(u: UtteranceView, filter: TranscriptFilter): boolean {
  if (filter.fromMs !== undefined && u.offset_ms < filter.fromMs) return false;
  if (filter.toMs !== undefined && u.offset_ms > filter.toMs) return false;
  const speaker = filter.speaker?.trim().toLowerCase();
  if (speaker === undefined || speaker === '') return true;
  return u.speaker_uuid.toLowerCase() === speaker || u.speaker_name.toLowerCase().includes(speaker);
}

export const cite = (u: UtteranceView): CitedUtterance => ({
  ...u,
  line: toPlainText([u]).trimEnd(),
  timestamp: u.timestamp_ms >= EARLIEST_WALL_CLOCK_MS ? new Date(u.timestamp_ms).toISOString() : null,
});

export interface TranscriptPage {
  filter: TranscriptFilter;
  /** Utterances the filter keeps, in the whole transcript. */
  matching: number;
  /** Position of the page's first utterance among those (1-based). */
  first: number;
  utterances: CitedUtterance[];
  nextCursor: string | null;
}

/** One page: from the start, or after the cursor's utterance (with the cursor's filters). */
export function transcriptPage(
  transcript: TranscriptJson,
  request: { filter: TranscriptFilter; cursor?: string; maxUtterances: number; maxBytes?: number },
): TranscriptPage {
  const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, transcript.bot_id);
  const filter: TranscriptFilter =
    cursor === undefined
      ? request.filter
      : {
          ...(cursor.fromMs !== undefined && { fromMs: cursor.fromMs }),
          ...(cursor.toMs !== undefined && { toMs: cursor.toMs }),
          ...(cursor.speaker !== undefined && { speaker: cursor.speaker }),
        };
  const kept = transcript.utterances.filter((u) => matches(u, filter)).sort(order);
  let start = 0;
  if (cursor !== undefined) {
    const [timestampMs, speakerUuid] = cursor.after;
    start = kept.findIndex((u) => order(u, { timestamp_ms: timestampMs, speaker_uuid: speakerUuid }) > 0);
    if (start === -1) start = kept.length;
  }
  const maxBytes = request.maxBytes ?? TRANSCRIPT_PAGE.maxBytes;
  const page: CitedUtterance[] = [];
  let bytes = 0;
  for (const u of kept.slice(start, start + request.maxUtterances)) {
    const cited = cite(u);
    bytes += Buffer.byteLength(JSON.stringify(cited));
    // Always one, so a page moves on even past an utterance larger than the budget.
    if (page.length > 0 && bytes > maxBytes) break;
    page.push(cited);
  }
  const last = page.at(-1);
  const more = start + page.length < kept.length;
  return {
    filter,
    matching: kept.length,
    first: start + 1,
    utterances: page,
    nextCursor:
      more && last !== undefined
        ? encodeCursor({ bot: transcript.bot_id, after: [last.timestamp_ms, last.speaker_uuid], ...filter })
        : null,
  };
}
