/**
 * The lake's parts and how they call each other, pinned before they were built (each part's
 * module implements its piece; see docs/lake.md for the whole).
 *
 *  write     lake-writer.ts       writeMeetingToLake: after the archive record, the meeting's rows
 *                                 into its recent files (idempotent by content hash), then
 *                                 foldDay when the day is already compacted.
 *  maintain  lake-compaction.ts   compactClosedDays / foldDay under the day's lease;
 *            lake-erasure.ts      eraseFromLake: a meeting's rows out of every file + its results;
 *            lake-retention.ts    dropLakeDays: whole partitions before the retention cutoff.
 *  ask       lake-questions.ts    one SQL text per question (search, stats), read-only guard;
 *            athena-engine.ts     LakeEngine over Athena; local/lake/duckdb-lake-engine.ts over DuckDB.
 *  serve     lake-search.ts       the read API's search route core; cli/commands/search.ts, query.ts;
 *                                 cli/mcp/tools (search_transcripts, meeting_stats, search_meetings).
 */

import type { TableAccess } from '../store/dynamo';
import type { ObjectVersionStore } from '../store/object-versions';
import type { Telemetry } from '../telemetry';

/** The lake's S3 operations (the stack's bucket); the AWS adapter and local mode implement it alike. */
export interface LakeObjects extends ObjectVersionStore {
  readonly bucket: string;
  /** The current version's bytes and ETag (or those of `versionId`), or null when there is none. */
  get(key: string, versionId?: string): Promise<{ body: Uint8Array; etag: string } | null>;
  /** Writes the whole object (one PUT: readers see the old bytes or the new, never a mix). */
  put(key: string, body: Uint8Array, metadata?: Record<string, string>): Promise<void>;
  /** The object's metadata, or null. */
  head(key: string): Promise<{ bytes: number; etag: string; metadata: Record<string, string> } | null>;
  /** Current objects whose key starts with `prefix` (every page). */
  list(prefix: string): Promise<Array<{ key: string; bytes: number }>>;
}

/** What the lake's writers and maintenance take (the archive, compaction, erase and retention functions). */
export interface LakeDependencies {
  table: TableAccess;
  objects: LakeObjects;
  telemetry: Telemetry;
  now(): Date;
}

/** A meeting's rows were written (or were already there unchanged): the archive's type, which calls the writer. */
export type { LakeWriteOutcome } from '../archive/archive-meeting';

/** What erasing a meeting removed from the lake: the receipt's `lake_rows`, `lake_objects`, `query_results`. */
export interface LakeErasureCounts {
  /** Rows removed, all tables (a compacted file rewritten without them). */
  lake_rows: number;
  /** Object versions deleted: the meeting's recent files, and the older versions of rewritten compacted files. */
  lake_objects: number;
  /** Athena result objects (and their metadata files) that named the bot, deleted. */
  query_results: number;
}

/** The meeting item attribute that records where its rows are (day, content hash, version). */
export const LAKE_ATTRIBUTE = 'lake';
export interface LakeRecord {
  day: string;
  /** SHA-256 of the rows written: an archive re-run with the same content writes nothing. */
  sha256: string;
  /** The `lake_version` column of those rows. */
  version: string;
}

/** Settings in lib/config.ts that reach the lake's functions. */
export interface LakeSettings {
  /** A day is compacted once it ended this many hours ago (late archives and fixes land first). */
  compactAfterHours: number;
  /** Athena's per-query bytes-scanned cutoff (workgroup, enforced). */
  bytesScannedCutoffBytes: number;
  /** Query results expire after this many days (lifecycle rule on the results prefix). */
  resultsExpireDays: number;
}

export const DEFAULT_LAKE_SETTINGS: LakeSettings = {
  compactAfterHours: 30,
  bytesScannedCutoffBytes: 10 * 1024 ** 3,
  resultsExpireDays: 1,
};
