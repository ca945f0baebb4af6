/**
 * The lake's tables, defined once: the Parquet writer, the Glue catalogue (lib/meetings-lake.ts),
 * the DuckDB views of local mode and the bench all take their columns from here.
 *
 * Types are the small set both engines read the same way from Parquet: `string` (UTF-8),
 * `bigint` (INT64) and `boolean`. Times are ISO-8601 UTC strings with milliseconds
 * (`2026-11-24T09:00:00.000Z`): they sort and compare as text in Athena and DuckDB alike, so the
 * same SQL runs on both without time-zone conversions. Every table is partitioned by `day`, the
 * UTC date (`yyyy-MM-dd`) of the meeting's listing time (the day the read API lists it under and
 * retention counts from); it is part of the path, not of the file.
 */

export type LakeColumnType = 'string' | 'bigint' | 'boolean';

export interface LakeColumn {
  name: string;
  type: LakeColumnType;
  /** Whether the value may be null (a meeting without a schedule, a speaker's unknown language). */
  nullable: boolean;
  /** One line for the Glue catalogue and docs/lake.md. */
  comment: string;
}

export const LAKE_TABLE_NAMES = ['meetings', 'utterances', 'participants'] as const;
export type LakeTableName = (typeof LAKE_TABLE_NAMES)[number];

/** The partition column every table has (from the object key `day=<yyyy-MM-dd>/`). */
export const LAKE_PARTITION_COLUMN = 'day';

const column = (name: string, type: LakeColumnType, nullable: boolean, comment: string): LakeColumn => ({
  name,
  type,
  nullable,
  comment,
});

export const LAKE_COLUMNS: Record<LakeTableName, readonly LakeColumn[]> = {
  meetings: [
    column('bot_id', 'string', false, 'the bot that attended the meeting'),
    column('state', 'string', true, 'the last state the pipeline applied'),
    column('started_at', 'string', true, 'ISO time the bot joined (or the meeting was listed)'),
    column('ended_at', 'string', true, 'ISO time the meeting ended, if it did'),
    column('duration_ms', 'bigint', true, 'ended_at minus started_at'),
    column('utterance_count', 'bigint', false, 'lines of the final transcript'),
    column('participant_count', 'bigint', false, 'participants recorded'),
    column('speaker_count', 'bigint', false, 'distinct speakers in the transcript'),
    column('schedule_id', 'string', true, 'the schedule that launched the bot, if any'),
    column('calendar_id', 'string', true, 'the calendar whose event made that schedule, if any'),
    column('summary', 'string', true, 'the meeting summary, if the service sent one'),
    column('archived_at', 'string', false, 'ISO time the meeting was archived'),
    column('lake_version', 'string', false, 'ISO time these rows were written (a rewrite replaces older ones)'),
    // Last, so files written before they existed read them as null in either engine.
    column(
      'outcome_status',
      'string',
      true,
      'how the meeting went: recorded, partial, missed, failed… (docs/read-api.md)',
    ),
    column(
      'outcome_reason',
      'string',
      true,
      "why: the service's sub-type where it gave one, else ours (docs/read-api.md)",
    ),
  ],
  utterances: [
    column('bot_id', 'string', false, 'the meeting'),
    column('seq', 'bigint', false, 'position of the line in the transcript, from 0'),
    column('offset_ms', 'bigint', false, 'milliseconds from the recording start (as the read API gives them)'),
    column('duration_ms', 'bigint', true, 'how long the line was spoken, if known'),
    column('speaker', 'string', false, 'speaker name (the speaker id when the service gave no name)'),
    column('speaker_id', 'string', false, "the service's speaker uuid"),
    column('text', 'string', false, 'what was said'),
    column('language', 'string', true, 'language code, if the service gave one'),
  ],
  participants: [
    column('bot_id', 'string', false, 'the meeting'),
    column('participant_id', 'string', false, "the service's participant uuid"),
    column('name', 'string', true, 'display name'),
    column('user_id', 'string', true, "the participant's user uuid at the meeting platform, if known"),
    column('is_host', 'boolean', false, 'whether the participant hosted'),
    column('joined_at', 'string', true, 'ISO time of the first join'),
    column('left_at', 'string', true, 'ISO time of the last leave'),
  ],
};

/** A row as the codec writes and reads it (partition column excluded). */
export type LakeRow = Record<string, string | number | boolean | null>;
