/**
 * The meetings lake's size and cost: S3 bytes and requests per month for M meetings a day, and
 * what Athena scans and charges per question. Pure arithmetic on the bytes per row and per column
 * that `npm run bench -- lake` measured (capacity/lake-profile.json, the reviewed copy of
 * bench/out/lake-profile.json) and the assumptions below.
 *
 * Athena reads Parquet by column: a question pays for the columns it names, in the days (partitions)
 * it asks for, never for the others. A substring search cannot skip row groups by min/max, so it
 * reads its columns whole for every day in range. Athena's price (SQL queries, us-east-1, recorded
 * 2026-11-23): $5 per TB scanned (TB taken as 2^40 bytes), rounded up to the MB, at least 10 MB per
 * query; DDL and failed queries are free, a query cancelled or stopped by the cutoff pays for what
 * it read. Partition projection needs no Glue crawler or partition API calls.
 */
import { SEARCH_MAX_WINDOWS, SEARCH_WINDOW_DAYS } from '../lambdas/core/lake/lake-search';
import type { LakeTableName } from '../lambdas/core/lake/lake-tables';
import type { PipelineConfig } from '../lib/config';
import type { CostLine, LimitCheck } from './model';
import { PRICES } from './prices';

/** What `npm run bench -- lake` measured. */
export interface LakeProfile {
  measured: string;
  meetings: number;
  utterancesPerMeeting: number;
  participantsPerMeeting: number;
  /** Bytes of the compacted files per row, by table. */
  compactedBytesPerRow: Record<LakeTableName, number>;
  /** Bytes of a meeting's three recent files (smaller files compress less). */
  recentBytesPerMeeting: number;
  /** Each column's part of a compacted utterances (meetings) file's bytes. */
  utteranceColumnShare: Record<string, number>;
  meetingColumnShare: Record<string, number>;
}

export interface LakeAssumptions {
  meetingsPerDay: number;
  utterancesPerMeeting: number;
  /** How long the lake is kept (the year asked about): storage grows month by month to this. */
  months: number;
  /** Days a typical keyword search covers when the user gives a range (`--from`). */
  searchDays: number;
  /** Meetings whose rows are written again (a corrected transcript): one more PUT per table. */
  rewriteShare: number;
  /** How long S3 keeps a replaced or deleted version (config replacedVersionRetentionDays). */
  replacedVersionDays: number;
  /** Hours after a day's end before it is compacted (config lakeCompactAfterHours). */
  compactAfterHours: number;
  /** Athena's per-query bytes-scanned cutoff (config lakeBytesScannedCutoffGiB). */
  cutoffBytes: number;
}

/** `npm run capacity`'s lake workload when no flag changes it. */
export const DEFAULT_LAKE_WORKLOAD = {
  meetingsPerDay: 2000,
  utterancesPerMeeting: 600,
  months: 12,
  searchDays: 30,
  rewriteShare: 0.05,
} as const;

type LakeWorkload = Pick<LakeAssumptions, keyof typeof DEFAULT_LAKE_WORKLOAD>;

/** The lake's assumptions for a configuration: the workload, with its retention, compaction and cutoff. */
export function lakeAssumptionsFor(
  config: Pick<PipelineConfig, 'replacedVersionRetentionDays' | 'lakeCompactAfterHours' | 'lakeBytesScannedCutoffGiB'>,
  workload: LakeWorkload = DEFAULT_LAKE_WORKLOAD,
): LakeAssumptions {
  return {
    ...workload,
    replacedVersionDays: config.replacedVersionRetentionDays,
    compactAfterHours: config.lakeCompactAfterHours,
    cutoffBytes: config.lakeBytesScannedCutoffGiB * 1024 ** 3,
  };
}

export const ATHENA_PRICE = {
  recorded: '2026-11-23',
  perTbScanned: 5,
  /** Athena bills at least this much per query. */
  minimumBytes: 10 * 1024 ** 2,
  tbBytes: 1024 ** 4,
} as const;

const DAYS_PER_MONTH = 30;
const LIST_PAGE = 1000;

/** Columns each question of lake-questions.ts reads (a partition column costs nothing: it is in the path). */
export const QUESTION_COLUMNS = {
  search: { utterances: ['bot_id', 'seq', 'offset_ms', 'speaker', 'text'], meetings: ['bot_id', 'started_at'] },
  talkTime: { utterances: ['speaker', 'duration_ms', 'bot_id'], meetings: [] as string[] },
  meetingsPerDay: { utterances: [] as string[], meetings: ['bot_id', 'duration_ms'] },
} as const;
export type LakeQuestion = keyof typeof QUESTION_COLUMNS;

export interface QueryScan {
  question: string;
  days: number;
  /** Summed over its queries. */
  bytes: number;
  dollars: number;
  /** Queries it runs (a keyword search: one per window of days, and one for the lake's first day). */
  queries: number;
  /** The cutoff stops one of its queries (that one fails having cost the cutoff's price). */
  overCutoff: boolean;
}

export interface LakeReport {
  assumptions: LakeAssumptions;
  profile: LakeProfile;
  rowsPerDay: Record<LakeTableName, number>;
  /** Compacted bytes one month adds. */
  bytesPerMonth: number;
  /** Compacted bytes after `months`. */
  bytesAfter: number;
  /** Recent files alive at once, and deleted ones S3 still keeps as noncurrent versions. */
  recentBytes: number;
  replacedBytes: number;
  storage: { lastMonth: number; wholePeriod: number };
  requestsPerMonth: { puts: number; lists: number; gets: number };
  costPerMonth: CostLine[];
  queries: QueryScan[];
  cutoff: { bytes: number; dollars: number; searchDays: number };
  checks: LimitCheck[];
}

export const athenaDollars = (bytes: number): number =>
  (Math.max(bytes, ATHENA_PRICE.minimumBytes) / ATHENA_PRICE.tbBytes) * ATHENA_PRICE.perTbScanned;

const gb = (bytes: number) => bytes / 1024 ** 3;

export function lakeReport(a: LakeAssumptions, profile: LakeProfile): LakeReport {
  const participantsPerMeeting = profile.participantsPerMeeting;
  const rowsPerDay: Record<LakeTableName, number> = {
    meetings: a.meetingsPerDay,
    utterances: a.meetingsPerDay * a.utterancesPerMeeting,
    participants: a.meetingsPerDay * participantsPerMeeting,
  };
  const tableBytesPerDay = (table: LakeTableName) => rowsPerDay[table] * profile.compactedBytesPerRow[table];
  const bytesPerDay = tableBytesPerDay('meetings') + tableBytesPerDay('utterances') + tableBytesPerDay('participants');
  const bytesPerMonth = bytesPerDay * DAYS_PER_MONTH;
  const bytesAfter = bytesPerMonth * a.months;
  // A recent file scales with its meeting's lines; the profile's meetings had utterancesPerMeeting each.
  const recentPerMeeting = profile.recentBytesPerMeeting * (a.utterancesPerMeeting / profile.utterancesPerMeeting);
  const recentBytes = recentPerMeeting * a.meetingsPerDay * (1 + a.compactAfterHours / 24);
  const replacedBytes = recentPerMeeting * a.meetingsPerDay * (1 + a.rewriteShare) * a.replacedVersionDays;
  const standing = recentBytes + replacedBytes;
  // Month m holds m months of compacted files; the period's sum is 1 + 2 + … + months of them.
  const storage = {
    lastMonth: gb(bytesAfter + standing) * PRICES.s3StandardPerGbMonth,
    wholePeriod:
      (gb(bytesPerMonth) * ((a.months * (a.months + 1)) / 2) + gb(standing) * a.months) * PRICES.s3StandardPerGbMonth,
  };

  const tables = 3;
  const meetingsPerMonth = a.meetingsPerDay * DAYS_PER_MONTH;
  const requestsPerMonth = {
    // The archive's PUTs (and rewrites'), compaction's three files and the state file a day.
    puts: meetingsPerMonth * tables * (1 + a.rewriteShare) + DAYS_PER_MONTH * (tables + 1),
    // Compaction lists each table's day; LIST is priced as a PUT.
    lists: DAYS_PER_MONTH * tables * Math.ceil(a.meetingsPerDay / LIST_PAGE),
    // Compaction reads every recent file once (its DELETEs are free).
    gets: meetingsPerMonth * tables,
  };
  const costPerMonth: CostLine[] = [
    { service: `S3 storage, month ${a.months} (Standard)`, dollars: storage.lastMonth },
    {
      service: 'S3 requests (archive PUTs, compaction)',
      dollars:
        ((requestsPerMonth.puts + requestsPerMonth.lists) / 1000) * PRICES.s3PutPer1000Requests +
        (requestsPerMonth.gets / 1000) * PRICES.s3GetPer1000Requests,
    },
  ];

  const bytesOf = (question: LakeQuestion, days: number) => {
    const columns = QUESTION_COLUMNS[question];
    const part = (shares: Record<string, number>, names: readonly string[]) =>
      names.reduce((sum, name) => sum + (shares[name] ?? 0), 0);
    return (
      days *
      (tableBytesPerDay('utterances') * part(profile.utteranceColumnShare, columns.utterances) +
        tableBytesPerDay('meetings') * part(profile.meetingColumnShare, columns.meetings))
    );
  };
  const allDays = a.months * DAYS_PER_MONTH;
  const scan = (question: string, kind: LakeQuestion, days: number): QueryScan => {
    const bytes = bytesOf(kind, days);
    const overCutoff = bytes > a.cutoffBytes;
    return { question, days, bytes, dollars: athenaDollars(Math.min(bytes, a.cutoffBytes)), queries: 1, overCutoff };
  };
  // lake-search.ts runs a keyword search one window of days a query, newest first, after asking the
  // lake's first day (which reads no column, but Athena bills its 10 MB minimum). All time, worst
  // case (a rare word: every window runs), is that many queries over as many pages.
  const windowed = (question: string, days: number): QueryScan => {
    const windows = Math.ceil(days / SEARCH_WINDOW_DAYS);
    const lastDays = days - (windows - 1) * SEARCH_WINDOW_DAYS;
    const full = scan(question, 'search', SEARCH_WINDOW_DAYS);
    const last = scan(question, 'search', lastDays);
    return {
      question,
      days,
      bytes: bytesOf('search', days),
      dollars: (windows - 1) * full.dollars + last.dollars + athenaDollars(0),
      queries: windows + 1,
      overCutoff: (windows > 1 ? full : last).overCutoff,
    };
  };
  const windows = Math.ceil(allDays / SEARCH_WINDOW_DAYS);
  const queries = [
    scan(`keyword search, ${a.searchDays} days`, 'search', a.searchDays),
    windowed(`keyword search, all time (${Math.ceil(windows / SEARCH_MAX_WINDOWS)} page(s) at most)`, allDays),
    scan('talk time per speaker, all time', 'talkTime', allDays),
    scan('meetings per day, all time', 'meetingsPerDay', allDays),
  ];
  const searchDays = Math.floor(a.cutoffBytes / bytesOf('search', 1));
  const window = bytesOf('search', Math.min(SEARCH_WINDOW_DAYS, allDays));
  const overCutoff = window > a.cutoffBytes;
  const checks: LimitCheck[] = [
    {
      limit: `one ${SEARCH_WINDOW_DAYS}-day window of a keyword search within the bytes-scanned cutoff`,
      demand: window / 1024 ** 3,
      capacity: a.cutoffBytes / 1024 ** 3,
      unit: 'GiB',
      holds: !overCutoff,
      ...(overCutoff ? { fix: `-c lakeBytesScannedCutoffGiB=${Math.ceil((window * 1.25) / 1024 ** 3)}` } : {}),
    },
  ];
  return {
    assumptions: a,
    profile,
    rowsPerDay,
    bytesPerMonth,
    bytesAfter,
    recentBytes,
    replacedBytes,
    storage,
    requestsPerMonth,
    costPerMonth,
    queries,
    cutoff: { bytes: a.cutoffBytes, dollars: athenaDollars(a.cutoffBytes), searchDays },
    checks,
  };
}

const n = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const size = (bytes: number) =>
  bytes >= 1024 ** 3 ? `${n(bytes / 1024 ** 3, 1)} GiB` : `${n(bytes / 1024 ** 2, 1)} MiB`;

export function formatLakeReport(report: LakeReport): string[] {
  const a = report.assumptions;
  const p = report.profile;
  const lines = [
    `meetings lake: ${n(a.meetingsPerDay)} meetings a day × ${n(a.utterancesPerMeeting)} utterances (${n(report.rowsPerDay.utterances)} utterance rows a day), kept ${a.months} months`,
    `  bytes per row after compaction (measured ${p.measured}, npm run bench -- lake): utterances ${n(p.compactedBytesPerRow.utterances, 1)}, meetings ${n(p.compactedBytesPerRow.meetings)}, participants ${n(p.compactedBytesPerRow.participants)}`,
    `  S3: ${size(report.bytesPerMonth)} a month, ${size(report.bytesAfter)} after ${a.months} months; recent files ${size(report.recentBytes)}, deleted ones kept ${a.replacedVersionDays} days as old versions ${size(report.replacedBytes)}`,
    `  S3 requests a month: ${n(report.requestsPerMonth.puts)} PUT, ${n(report.requestsPerMonth.lists)} LIST, ${n(report.requestsPerMonth.gets)} GET`,
    `  cost per month (${PRICES.region} list prices of ${PRICES.recorded}):`,
  ];
  for (const line of report.costPerMonth) lines.push(`    ${line.service.padEnd(40)} $${line.dollars.toFixed(2)}`);
  lines.push(
    `    ${`S3 storage, all ${a.months} months together`.padEnd(40)} $${report.storage.wholePeriod.toFixed(2)}`,
  );
  lines.push(
    `  Athena per query ($${ATHENA_PRICE.perTbScanned} per TB scanned, 10 MB minimum, recorded ${ATHENA_PRICE.recorded}):`,
  );
  for (const q of report.queries)
    lines.push(
      `    ${q.question.padEnd(48)} ${size(q.bytes).padStart(11)}  $${q.dollars.toFixed(4)}${q.queries > 1 ? ` (${n(q.queries)} queries)` : ''}${q.overCutoff ? '  STOPPED by the cutoff (pays for the cutoff, answers nothing)' : ''}`,
    );
  lines.push(
    `  bytes-scanned cutoff: ${size(report.cutoff.bytes)} per query = $${report.cutoff.dollars.toFixed(4)} at most; a keyword search reaches it after ${n(report.cutoff.searchDays)} days`,
  );
  for (const check of report.checks) {
    lines.push(
      `  ${check.holds ? 'ok  ' : 'FAIL'} ${check.limit}: ${n(check.demand, 1)} / ${n(check.capacity, 1)} ${check.unit}`,
    );
    if (!check.holds && check.fix !== undefined) lines.push(`       → ${check.fix}`);
  }
  return lines;
}
