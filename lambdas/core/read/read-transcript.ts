/**
 * GET /meetings/{bot_id}/transcript: the utterance items in time order, each with its offset
 * from the recording start. The table knows that start as the first `joined_recording` state
 * change's `created_at`; it is used when the utterances' `timestamp_ms` fall after it (epoch
 * times, as the service sends them), else offsets count from the first utterance.
 */
import { isoToMicros } from '../apply/state-order';
import type { TableAccess } from '../store/dynamo';
import { keys, SK_PREFIX } from '../store/table-layout';
import { knownMeeting } from './known-bot';
import type { UtteranceView } from './read-api-contract';
import { EVENTUALLY_CONSISTENT, type Item, itemsWithPrefix, type ReadConsistency } from './table-reads';

/** The state whose first arrival is the recording start. */
const RECORDING_STATE = 'joined_recording';
/** The state change is stamped after recording began: an utterance this much earlier still counts from it. */
const START_SLACK_MS = 60_000;
/** A recording start further than this before the first utterance is not this transcript's. */
const MAX_LEAD_MS = 24 * 3600_000;

export interface TranscriptLines {
  bot_id: string;
  offsets_from: 'recording_start' | 'first_utterance';
  utterances: UtteranceView[];
}

/** `reads`: the archive's lake writer reads consistently what it has just written. */
export async function readTranscript(
  botId: string,
  table: TableAccess,
  reads: ReadConsistency = EVENTUALLY_CONSISTENT,
): Promise<TranscriptLines> {
  await knownMeeting(table, botId);
  const [items, start] = await Promise.all([
    itemsWithPrefix(
      table,
      keys.bot(botId),
      SK_PREFIX.utterance,
      { expression: 'timestampMs, speakerUuid, speakerName, durationMs, #text', names: { '#text': 'text' } },
      reads,
    ),
    recordingStartMs(table, botId, reads),
  ]);
  const lines = items.map(toLine).sort((a, b) => a.timestamp_ms - b.timestamp_ms);
  const first = lines[0]?.timestamp_ms;
  const fromStart =
    start !== undefined && first !== undefined && first >= start - START_SLACK_MS && first - start <= MAX_LEAD_MS;
  const origin = fromStart ? start : (first ?? 0);
  return {
    bot_id: botId,
    offsets_from: fromStart ? 'recording_start' : 'first_utterance',
    utterances: lines.map((line) => ({ ...line, offset_ms: Math.max(0, line.timestamp_ms - origin) })),
  };
}

function toLine(item: Item): Omit<UtteranceView, 'offset_ms'> {
  const speakerUuid = String(item.speakerUuid);
  return {
    // An unnamed speaker is shown by its id, so captions still tell speakers apart.
    speaker_name: typeof item.speakerName === 'string' && item.speakerName !== '' ? item.speakerName : speakerUuid,
    speaker_uuid: speakerUuid,
    timestamp_ms: Number(item.timestampMs),
    duration_ms: typeof item.durationMs === 'number' ? item.durationMs : null,
    text: typeof item.text === 'string' ? item.text : '',
  };
}

/** When the bot first started recording (epoch ms), from its state history; undefined if never seen. */
async function recordingStartMs(
  table: TableAccess,
  botId: string,
  reads: ReadConsistency,
): Promise<number | undefined> {
  const changes = await itemsWithPrefix(
    table,
    keys.bot(botId),
    SK_PREFIX.stateChange,
    { expression: 'newState, createdAt' },
    reads,
  );
  const starts = changes
    .filter((change) => change.newState === RECORDING_STATE && typeof change.createdAt === 'string')
    .map((change) => Math.floor(isoToMicros(String(change.createdAt)) / 1000));
  return starts.length === 0 ? undefined : Math.min(...starts);
}
