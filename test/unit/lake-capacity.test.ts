/** The meetings lake in `npm run capacity`, on figures worked out by hand. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ATHENA_PRICE,
  athenaDollars,
  formatLakeReport,
  type LakeAssumptions,
  type LakeProfile,
  lakeReport,
} from '../../capacity/lake-load';
import { PRICES } from '../../capacity/prices';
import { DEFAULT_LAKE_SETTINGS } from '../../lambdas/core/lake/lake-contract';
import { LAKE_COLUMNS } from '../../lambdas/core/lake/lake-tables';

// Round numbers: 50 B per utterance row, text half of it, 1,000 B per meeting row, 100 B per participant.
const profile: LakeProfile = {
  measured: '2026-11-25',
  meetings: 1000,
  utterancesPerMeeting: 600,
  participantsPerMeeting: 10,
  compactedBytesPerRow: { meetings: 1000, utterances: 50, participants: 100 },
  recentBytesPerMeeting: 40_000,
  utteranceColumnShare: {
    bot_id: 0.05,
    seq: 0.05,
    offset_ms: 0.05,
    duration_ms: 0.05,
    speaker: 0.1,
    speaker_id: 0.1,
    text: 0.5,
    language: 0.1,
  },
  meetingColumnShare: { bot_id: 0.1, started_at: 0.1, duration_ms: 0.1, summary: 0.7 },
};
const assumed = (changes: Partial<LakeAssumptions> = {}): LakeAssumptions => ({
  meetingsPerDay: 2000,
  utterancesPerMeeting: 600,
  months: 12,
  searchDays: 30,
  rewriteShare: 0,
  replacedVersionDays: 30,
  compactAfterHours: 30,
  cutoffBytes: DEFAULT_LAKE_SETTINGS.bytesScannedCutoffBytes,
  ...changes,
});

describe('meetings lake capacity', () => {
  it('sizes a year of 2,000 meetings a day × 600 utterances', () => {
    const report = lakeReport(assumed(), profile);
    expect(report.rowsPerDay).toEqual({ meetings: 2000, utterances: 1_200_000, participants: 20_000 });
    // A day: 1.2 M × 50 + 2,000 × 1,000 + 20,000 × 100 = 64 MB; a month of 30 days 1.92 GB.
    expect(report.bytesPerMonth).toBe(64_000_000 * 30);
    expect(report.bytesAfter).toBe(64_000_000 * 30 * 12);
    // Recent files live 30 h past their day's end (2.25 days); deleted ones are kept 30 days as old versions.
    expect(report.recentBytes).toBe(40_000 * 2000 * 2.25);
    expect(report.replacedBytes).toBe(40_000 * 2000 * 30);
    const standingGb = (40_000 * 2000 * 32.25) / 1024 ** 3;
    expect(report.storage.lastMonth).toBeCloseTo(
      ((64_000_000 * 360) / 1024 ** 3 + standingGb) * PRICES.s3StandardPerGbMonth,
      9,
    );
    // Months 1..12 hold 1..12 months of files: 78 month-files in all.
    expect(report.storage.wholePeriod).toBeCloseTo(
      ((64_000_000 * 30 * 78) / 1024 ** 3 + standingGb * 12) * PRICES.s3StandardPerGbMonth,
      9,
    );
  });

  it('counts S3 requests: three PUTs per meeting, compaction lists, reads and replaces each day', () => {
    const report = lakeReport(assumed({ rewriteShare: 0.1 }), profile);
    expect(report.requestsPerMonth).toEqual({
      // 60,000 meetings × 3 tables × 1.1, and 3 compacted files + the state file on each of 30 days.
      puts: 60_000 * 3 * 1.1 + 30 * 4,
      // 2,000 files per table-day in pages of 1,000.
      lists: 30 * 3 * 2,
      gets: 60_000 * 3,
    });
    const requests = report.costPerMonth.find((line) => line.service.startsWith('S3 requests'));
    expect(requests?.dollars).toBeCloseTo(((198_120 + 180) / 1000) * 0.005 + (180_000 / 1000) * 0.0004, 9);
  });

  it('prices Athena by the columns a question reads, with the 10 MB minimum', () => {
    const report = lakeReport(assumed(), profile);
    const [recent, allTime, talk, perDay] = report.queries;
    // Search: bot_id, seq, offset_ms, speaker, text (75 % of 60 MB of utterances) + bot_id, started_at (20 % of 2 MB) a day.
    const searchPerDay = 60_000_000 * 0.75 + 2_000_000 * 0.2;
    expect(recent).toMatchObject({ days: 30, bytes: searchPerDay * 30, overCutoff: false });
    expect(recent?.dollars).toBeCloseTo(((searchPerDay * 30) / 1024 ** 4) * 5, 12);
    expect(allTime?.days).toBe(360);
    // Talk time: speaker, duration_ms, bot_id = 20 % of the utterances.
    expect(talk?.bytes).toBeCloseTo(360 * 60_000_000 * 0.2, 3);
    // Meetings per day: bot_id and duration_ms of the meetings table only.
    expect(perDay?.bytes).toBeCloseTo(360 * 2_000_000 * 0.2, 3);
    expect(athenaDollars(1)).toBe(athenaDollars(ATHENA_PRICE.minimumBytes));
    expect(athenaDollars(ATHENA_PRICE.tbBytes)).toBe(5);
  });

  it('names the cutoff: the most one query costs, and how many days a search reaches before it', () => {
    const report = lakeReport(assumed(), profile);
    // 10 GiB at $5 per 2^40 bytes.
    expect(report.cutoff.dollars).toBeCloseTo(0.048828125, 12);
    const searchPerDay = 60_000_000 * 0.75 + 2_000_000 * 0.2;
    expect(report.cutoff.searchDays).toBe(Math.floor((10 * 1024 ** 3) / searchPerDay));
  });

  it('prices an all-time keyword search as the 31-day windows lake-search.ts runs, each under the cutoff', () => {
    const report = lakeReport(assumed(), profile);
    const searchPerDay = 60_000_000 * 0.75 + 2_000_000 * 0.2;
    // A year is 360 × 45.4 MB = 16.3 GB > 10 GiB in one query; in windows: 11 of 31 days, one of 19,
    // and the lake's first day (10 MB minimum), none stopped by the cutoff.
    const allTime = report.queries[1];
    expect(allTime).toMatchObject({ days: 360, queries: 13, overCutoff: false });
    expect(allTime?.bytes).toBeCloseTo(searchPerDay * 360, 3);
    expect(allTime?.dollars).toBeCloseTo(
      11 * athenaDollars(searchPerDay * 31) + athenaDollars(searchPerDay * 19) + athenaDollars(0),
      12,
    );
    expect(report.checks[0]).toMatchObject({ holds: true, demand: (searchPerDay * 31) / 1024 ** 3 });
    expect(formatLakeReport(report).join('\n')).toMatch(/ok {3}one 31-day window of a keyword search/);
    // Ten times the meetings: one window is 14 GB, over 10 GiB; the fix raises the cutoff above it.
    const busy = lakeReport(assumed({ meetingsPerDay: 20_000 }), profile);
    expect(busy.queries[1]?.overCutoff).toBe(true);
    expect(busy.checks[0]).toMatchObject({ holds: false, fix: '-c lakeBytesScannedCutoffGiB=17' });
    expect(formatLakeReport(busy).join('\n')).toMatch(
      /FAIL one 31-day window .*\n\s+→ -c lakeBytesScannedCutoffGiB=17/,
    );
  });

  it('reads the reviewed profile the bench measured, with a share for every column of the tables', () => {
    const reviewed = JSON.parse(
      readFileSync(new URL('../../capacity/lake-profile.json', import.meta.url), 'utf8'),
    ) as LakeProfile;
    expect(Object.keys(reviewed.utteranceColumnShare).sort()).toEqual(
      LAKE_COLUMNS.utterances.map((column) => column.name).sort(),
    );
    expect(Object.keys(reviewed.meetingColumnShare).sort()).toEqual(
      LAKE_COLUMNS.meetings.map((column) => column.name).sort(),
    );
    const shares = Object.values(reviewed.utteranceColumnShare).reduce((a, b) => a + b, 0);
    expect(shares).toBeCloseTo(1, 9);
    expect(reviewed.utterancesPerMeeting).toBe(600);
  });
});
