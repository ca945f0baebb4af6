/**
 * The lake's questions (lambdas/core/lake/lake-search.ts) on DuckDB over a fixture lake written with
 * the real Parquet codec under the bucket's keys: one day compacted (with a stale recent file the
 * views must not read), later days recent. Every expectation is computed from the fixture rows here,
 * not read back from the engine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LakeEngine,
  type LakeQuery,
  LakeQueryPendingError,
  type LakeResult,
} from '../../lambdas/core/lake/lake-engine';
import { lakeKeys } from '../../lambdas/core/lake/lake-layout';
import { TEXT_WINDOW_CHARS } from '../../lambdas/core/lake/lake-questions';
import { LakeInputError, type TranscriptHit } from '../../lambdas/core/lake/lake-questions-contract';
import {
  formatOffset,
  lakeStats,
  listLakeMeetings,
  SNIPPET_CHARS,
  searchTranscripts,
  snippetOf,
} from '../../lambdas/core/lake/lake-search';
import type { LakeRow, LakeTableName } from '../../lambdas/core/lake/lake-tables';
import { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { scratchDir } from '../fixtures/scratch';

interface FixtureMeeting {
  bot: string;
  day: string;
  startedAt: string | null;
  durationMs: number | null;
  summary: string | null;
  participants: Array<string | null>;
  lines: Array<{ speaker: string; text: string; offsetMs: number; durationMs: number | null }>;
}

const longLine = `${'filler words here. '.repeat(160)}the PRICING question came up${' and more after.'.repeat(200)}`;
const many = Array.from({ length: 23 }, (_, i) => ({
  speaker: i % 2 === 0 ? 'Alice Example' : 'Bob',
  text: `line ${i} about pricing`,
  offsetMs: i * 61_000,
  durationMs: 1_000 + i,
}));

const MEETINGS: FixtureMeeting[] = [
  {
    // A week before the others: the days between are empty windows.
    bot: 'bot_early',
    day: '2026-11-12',
    startedAt: '2026-11-12T07:00:00.000Z',
    durationMs: 60_000,
    summary: null,
    participants: [],
    lines: [{ speaker: 'Frank', text: 'early pricing idea', offsetMs: 2_000, durationMs: 1_000 }],
  },
  {
    bot: 'bot_old',
    day: '2026-11-19',
    startedAt: '2026-11-19T08:00:00.000Z',
    durationMs: 1_800_000,
    summary: 'Budget review',
    participants: ['Alice Example', 'Carol'],
    lines: [
      { speaker: 'Alice Example', text: 'Pricing for next year', offsetMs: 3_723_000, durationMs: 4_000 },
      { speaker: 'Carol', text: 'agreed', offsetMs: 3_730_000, durationMs: null },
    ],
  },
  {
    bot: 'bot_a',
    day: '2026-11-20',
    startedAt: '2026-11-20T09:00:00.000Z',
    durationMs: 3_600_000,
    summary: 'Weekly sync',
    participants: ['Alice Example', 'Bob', null],
    lines: [
      { speaker: 'Alice Example', text: 'We are 100% sure', offsetMs: 0, durationMs: 2_000 },
      { speaker: 'Bob', text: 'only 50 percent', offsetMs: 5_000, durationMs: 3_000 },
      { speaker: 'Bob', text: 'use snake_case names', offsetMs: 9_000, durationMs: null },
      { speaker: 'Alice Example', text: 'not snakeXcase', offsetMs: 12_000, durationMs: 1_500 },
      { speaker: 'Alice Example', text: "it's fine", offsetMs: 15_000, durationMs: 500 },
      { speaker: 'Bob', text: 'its fine', offsetMs: 18_000, durationMs: 500 },
      { speaker: 'Bob', text: 'path back\\slash here', offsetMs: 21_000, durationMs: 700 },
      { speaker: 'Bob', text: 'back slash there', offsetMs: 24_000, durationMs: 700 },
      { speaker: 'Alice Example', text: longLine, offsetMs: 30_000, durationMs: 10_000 },
    ],
  },
  {
    bot: 'bot_b',
    day: '2026-11-21',
    startedAt: '2026-11-21T10:00:00.000Z',
    durationMs: null,
    summary: 'Pricing workshop',
    participants: ['Bob', 'Dave'],
    lines: many,
  },
  {
    bot: 'bot_c',
    day: '2026-11-21',
    startedAt: '2026-11-21T10:00:00.000Z',
    durationMs: 600_000,
    summary: null,
    participants: ['Dave'],
    lines: [{ speaker: 'Dave', text: 'pricing again', offsetMs: 359_999_000, durationMs: 2_500 }],
  },
  {
    bot: 'bot_nostart',
    day: '2026-11-22',
    startedAt: null,
    durationMs: null,
    summary: null,
    participants: [],
    lines: [{ speaker: 'Eve', text: 'late pricing note', offsetMs: 1_000, durationMs: null }],
  },
];

const meetingRow = (m: FixtureMeeting): LakeRow => ({
  bot_id: m.bot,
  state: 'ended',
  started_at: m.startedAt,
  ended_at: null,
  duration_ms: m.durationMs,
  utterance_count: m.lines.length,
  participant_count: m.participants.length,
  speaker_count: new Set(m.lines.map((line) => line.speaker)).size,
  schedule_id: null,
  calendar_id: null,
  summary: m.summary,
  archived_at: '2026-11-23T00:00:00.000Z',
  lake_version: '2026-11-23T00:00:00.000Z',
});
const utteranceRows = (m: FixtureMeeting): LakeRow[] =>
  m.lines.map((line, seq) => ({
    bot_id: m.bot,
    seq,
    offset_ms: line.offsetMs,
    duration_ms: line.durationMs,
    speaker: line.speaker,
    speaker_id: `id-${line.speaker}`,
    text: line.text,
    language: null,
  }));
const participantRows = (m: FixtureMeeting): LakeRow[] =>
  m.participants.map((name, i) => ({
    bot_id: m.bot,
    participant_id: `${m.bot}-p${i}`,
    name,
    user_id: null,
    is_host: i === 0,
    joined_at: null,
    left_at: null,
  }));

const COMPACTED_THROUGH = '2026-11-19';

function writeLake(root: string): void {
  const put = (key: string, bytes: Uint8Array) => {
    mkdirSync(dirname(join(root, key)), { recursive: true });
    writeFileSync(join(root, key), bytes);
  };
  const rowsOf: Record<LakeTableName, (m: FixtureMeeting) => LakeRow[]> = {
    meetings: (m) => [meetingRow(m)],
    utterances: utteranceRows,
    participants: participantRows,
  };
  for (const table of ['meetings', 'utterances', 'participants'] as const) {
    for (const m of MEETINGS) {
      if (m.day <= COMPACTED_THROUGH) {
        put(lakeKeys.compactedFile(table, m.day), encodeLakeRows(table, rowsOf[table](m)));
        // A recent file compaction has not deleted yet: the views must not read it.
        put(lakeKeys.recentFile(table, m.day, m.bot), encodeLakeRows(table, rowsOf[table](m)));
      } else {
        put(lakeKeys.recentFile(table, m.day, m.bot), encodeLakeRows(table, rowsOf[table](m)));
      }
    }
  }
  put(
    lakeKeys.stateFile(),
    new Uint8Array(
      parquetWriteBuffer({ columnData: [{ name: 'compacted_through', data: [COMPACTED_THROUGH], type: 'STRING' }] }),
    ),
  );
}

/** "Today" for the searches: a few empty days after the newest meeting. */
const NOW = new Date('2026-11-25T12:00:00.000Z');

/** Every line containing `words` (case-insensitive, literally), in the search's order: day, start (newest first), bot, line. */
function expectedHits(words: string, filter: (m: FixtureMeeting, speaker: string) => boolean = () => true) {
  const hits = MEETINGS.flatMap((m) =>
    m.lines
      .map((line, seq) => ({ m, line, seq }))
      .filter(({ m, line }) => line.text.toLowerCase().includes(words.toLowerCase()) && filter(m, line.speaker)),
  );
  return hits
    .sort(
      (x, y) =>
        y.m.day.localeCompare(x.m.day) ||
        (y.m.startedAt ?? '').localeCompare(x.m.startedAt ?? '') ||
        (x.m.bot < y.m.bot ? -1 : x.m.bot > y.m.bot ? 1 : 0) ||
        x.seq - y.seq,
    )
    .map(({ m, line }) => ({ bot_id: m.bot, offset_ms: line.offsetMs, speaker: line.speaker }));
}

const brief = (hit: TranscriptHit) => ({ bot_id: hit.bot_id, offset_ms: hit.offset_ms, speaker: hit.speaker });

let duckdb: LakeEngine & { close(): void };
const ran: Array<{ query: LakeQuery; result: LakeResult }> = [];
/** The DuckDB engine, recording what each question sent and got back. */
const engine: LakeEngine = {
  async run(query, options) {
    const result = await duckdb.run(query, options);
    ran.push({ query, result });
    return result;
  },
};

beforeAll(async () => {
  const root = scratchDir('lake-questions-');
  writeLake(root);
  duckdb = await createDuckDbLakeEngine({ root });
});
afterAll(() => duckdb?.close());

describe('searchTranscripts', () => {
  it('finds every line with the words, newest meeting first, with exact offsets and speakers', async () => {
    const page = await searchTranscripts(engine, { words: 'PRICING', limit: 100, now: NOW });
    expect(page.hits.map(brief)).toEqual(expectedHits('pricing'));
    expect(page.next_cursor).toBeNull();
    expect(page.engine).toBe('duckdb');
    expect(page.bytes_scanned).toBeGreaterThan(0);
    // The compacted day is read once (its stale recent file is not), with its exact offset.
    const old = page.hits.filter((hit) => hit.bot_id === 'bot_old');
    expect(old).toEqual([
      {
        bot_id: 'bot_old',
        day: '2026-11-19',
        started_at: '2026-11-19T08:00:00.000Z',
        offset_ms: 3_723_000,
        offset: '01:02:03',
        speaker: 'Alice Example',
        snippet: 'Pricing for next year',
      },
    ]);
    expect(page.hits.find((hit) => hit.bot_id === 'bot_c')?.offset).toBe('99:59:59');
    // Newest day first (bot_nostart's day, though it has no start time); same start: bot id breaks the tie.
    expect(page.hits[0]?.bot_id).toBe('bot_nostart');
    expect(page.hits.findIndex((hit) => hit.bot_id === 'bot_b')).toBeLessThan(
      page.hits.findIndex((hit) => hit.bot_id === 'bot_c'),
    );
    expect(page.hits.at(-1)?.bot_id).toBe('bot_early');
    expect(page.searched_through).toBe('2026-11-12');
  });

  it('pages with cursors: every hit exactly once, in order', async () => {
    const seen: TranscriptHit[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await searchTranscripts(engine, {
        words: 'pricing',
        limit: 4,
        now: NOW,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.hits.length).toBeLessThanOrEqual(4);
      seen.push(...page.hits);
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor !== undefined && pages < 50);
    const expected = expectedHits('pricing');
    expect(expected.length).toBe(28);
    expect(pages).toBe(Math.ceil(expected.length / 4));
    expect(seen.map(brief)).toEqual(expected);
  });

  it('filters by speaker (part of the name, any case) and by day range on the partition column', async () => {
    const bySpeaker = await searchTranscripts(engine, { words: 'pricing', speaker: 'aLiCe', limit: 100 });
    expect(bySpeaker.hits.map(brief)).toEqual(expectedHits('pricing', (_m, speaker) => speaker === 'Alice Example'));
    const range = await searchTranscripts(engine, {
      words: 'pricing',
      from: '2026-11-20',
      to: '2026-11-21',
      limit: 100,
    });
    expect(range.hits.map(brief)).toEqual(
      expectedHits('pricing', (m) => m.day >= '2026-11-20' && m.day <= '2026-11-21'),
    );
    const fromOnly = await searchTranscripts(engine, { words: 'pricing', from: '2026-11-22', limit: 100 });
    expect(fromOnly.hits.map((hit) => hit.bot_id)).toEqual(['bot_nostart']);
    const toOnly = await searchTranscripts(engine, { words: 'pricing', to: '2026-11-19', limit: 100 });
    expect(toOnly.hits.map((hit) => hit.bot_id)).toEqual(['bot_old', 'bot_early']);
    expect(ran.at(-1)?.query.sql).toContain('u.day BETWEEN ? AND ?');
  });

  it.each([
    ['100%', ['We are 100% sure']],
    ['0%', ['We are 100% sure']],
    ['e_c', ['use snake_case names']],
    ["it's", ["it's fine"]],
    ['k\\s', ['path back\\slash here']],
    ['%', ['We are 100% sure']],
    ['_', ['use snake_case names']],
  ])('takes %s literally (no wildcard, no quote breaking out)', async (words, lines) => {
    const page = await searchTranscripts(engine, { words, limit: 100 });
    expect(page.hits.map((hit) => hit.snippet)).toEqual(lines);
    // The words travel as a parameter only, the same value the search was given.
    expect(ran.at(-1)?.query.params[0]).toBe(words);
  });

  it('cuts a long line to a snippet around the first match; the engine returns at most the window', async () => {
    const page = await searchTranscripts(engine, { words: 'pricing question', limit: 100 });
    expect(page.hits).toHaveLength(1);
    const snippet = page.hits[0]?.snippet ?? '';
    expect(snippet).toContain('PRICING question');
    expect(snippet.startsWith('…') && snippet.endsWith('…')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARS + 2);
    expect(snippet.length).toBeGreaterThanOrEqual(SNIPPET_CHARS);
    const windows = ran.at(-1)?.result.rows.map((row) => String(row.at(-1))) ?? [];
    expect(longLine.length).toBeGreaterThan(TEXT_WINDOW_CHARS * 2);
    expect(windows.every((window) => window.length <= TEXT_WINDOW_CHARS)).toBe(true);
  });

  it('refuses bad input with LakeInputError before running anything', async () => {
    const before = ran.length;
    const bad = [
      { words: '' },
      { words: '   ' },
      { words: 'x'.repeat(201) },
      { words: 'x', limit: 0 },
      { words: 'x', limit: 101 },
      { words: 'x', limit: 1.5 },
      { words: 'x', from: '2026-13-01' },
      { words: 'x', from: '2026-02-30' },
      { words: 'x', from: '20261101' },
      { words: 'x', from: '2026-11-21', to: '2026-11-20' },
      { words: 'x', cursor: 'not-a-cursor' },
      { words: 'x', cursor: Buffer.from(JSON.stringify({ k: 'meeting', s: '', b: 'x' })).toString('base64url') },
      // A cursor from before day windows (no range start, no day to go on from).
      { words: 'x', cursor: Buffer.from(JSON.stringify({ k: 'hit', s: '', b: 'x', q: 0 })).toString('base64url') },
      {
        words: 'x',
        cursor: Buffer.from(JSON.stringify({ k: 'hit', f: '2026-11-01', t: '2026-02-30', a: null })).toString(
          'base64url',
        ),
      },
      { words: 'x', windowDays: 0 },
      { words: 'x', windowDays: 367 },
      { words: 'x', maxWindows: 0 },
      { words: 'x', maxWindows: 101 },
      { words: 'x', now: '2026-11-25' as unknown as Date },
    ];
    for (const input of bad) {
      await expect(searchTranscripts(engine, input), JSON.stringify(input)).rejects.toBeInstanceOf(LakeInputError);
    }
    expect(ran.length).toBe(before);
  });
});

/** The day bounds each window query of a search ran with (its two day parameters), in order. */
const windowsRan = (since: number) =>
  ran
    .slice(since)
    .filter(({ query }) => query.sql.includes('day BETWEEN ? AND ?'))
    .map(({ query }) => query.params.filter((p) => typeof p === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(p)).slice(0, 2));

/** Every page of a search (from its cursor, if it has one), following next_cursor. */
async function allPages(input: Parameters<typeof searchTranscripts>[1]) {
  const pages: Awaited<ReturnType<typeof searchTranscripts>>[] = [];
  let cursor = input.cursor;
  do {
    const page = await searchTranscripts(engine, { ...input, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

describe('searchTranscripts in windows of days', () => {
  it('reads one window of days a query, newest first, from today back to the lake first day', async () => {
    const since = ran.length;
    const page = await searchTranscripts(engine, { words: 'pricing', limit: 100, now: NOW, windowDays: 2 });
    expect(page.hits.map(brief)).toEqual(expectedHits('pricing'));
    // First the lake's first and last day (one cheap query), then 2-day windows down to 2026-11-12.
    expect(ran[since]?.query.sql).toContain('min(day)');
    expect(windowsRan(since)).toEqual([
      ['2026-11-24', '2026-11-25'],
      ['2026-11-22', '2026-11-23'],
      ['2026-11-20', '2026-11-21'],
      ['2026-11-18', '2026-11-19'],
      ['2026-11-16', '2026-11-17'],
      ['2026-11-14', '2026-11-15'],
      ['2026-11-12', '2026-11-13'],
    ]);
    expect(page.queries).toBe(8);
    expect(page.queries).toBe(ran.length - since);
    // The cost is the sum over every query the page ran.
    const scanned = ran.slice(since).reduce((sum, { result }) => sum + result.bytesScanned, 0);
    expect(page.bytes_scanned).toBe(scanned);
    expect(page.next_cursor).toBeNull();
    expect(page.searched_through).toBe('2026-11-12');
  });

  it('stops once the page is full: an all-time first page reads only the newest window', async () => {
    const since = ran.length;
    const page = await searchTranscripts(engine, { words: 'pricing', limit: 2, now: NOW, windowDays: 5 });
    expect(page.hits.map(brief)).toEqual(expectedHits('pricing').slice(0, 2));
    expect(windowsRan(since)).toEqual([['2026-11-21', '2026-11-25']]);
    // A default window (31 days) starts no earlier than the lake's first day.
    const whole = ran.length;
    await searchTranscripts(engine, { words: 'pricing', limit: 2, now: NOW });
    expect(windowsRan(whole)).toEqual([['2026-11-12', '2026-11-25']]);
    expect(page.searched_through).toBe('2026-11-21');
    expect(page.next_cursor).not.toBeNull();
  });

  it.each([1, 2, 3, 5, 7])(
    'pages cross window boundaries and empty windows: every hit exactly once (limit %i, 1-day windows)',
    async (limit) => {
      const pages = await allPages({ words: 'pricing', limit, now: NOW, windowDays: 1 });
      expect(pages.flatMap((page) => page.hits).map(brief)).toEqual(expectedHits('pricing'));
      expect(pages.every((page) => page.hits.length <= limit)).toBe(true);
      expect(pages.at(-1)?.next_cursor).toBeNull();
    },
  );

  it('pages the same with windows of 3 days, a speaker and a range', async () => {
    const pages = await allPages({
      words: 'pricing',
      speaker: 'bob',
      from: '2026-11-13',
      to: '2026-11-21',
      limit: 3,
      windowDays: 3,
    });
    expect(pages.flatMap((page) => page.hits).map(brief)).toEqual(
      expectedHits('pricing', (m, speaker) => speaker === 'Bob' && m.day >= '2026-11-13' && m.day <= '2026-11-21'),
    );
    expect(pages.at(-1)?.searched_through).toBe('2026-11-13');
  });

  it('ends a page at maxWindows with what it found and a cursor to go on, saying how far back it searched', async () => {
    const pages = await allPages({ words: 'pricing', limit: 100, now: NOW, windowDays: 1, maxWindows: 2 });
    // 25 and 24 are empty: the first page has no hit yet still a cursor.
    expect(pages[0]?.hits).toEqual([]);
    expect(pages[0]?.searched_through).toBe('2026-11-24');
    expect(pages[0]?.next_cursor).not.toBeNull();
    expect(pages[0]?.queries).toBe(3);
    expect(pages[1]?.hits.map((hit) => hit.bot_id)).toEqual(['bot_nostart']);
    expect(pages[1]?.searched_through).toBe('2026-11-22');
    expect(pages[1]?.queries).toBe(2);
    expect(pages.flatMap((page) => page.hits).map(brief)).toEqual(expectedHits('pricing'));
    // 14 days from 25 back to 12, two a page.
    expect(pages.map((page) => page.searched_through)).toEqual([
      '2026-11-24',
      '2026-11-22',
      '2026-11-20',
      '2026-11-18',
      '2026-11-16',
      '2026-11-14',
      '2026-11-12',
    ]);
    expect(pages.at(-1)?.next_cursor).toBeNull();
  });

  it('searches past today when the lake holds a later day (the caller clock is behind)', async () => {
    const page = await searchTranscripts(engine, {
      words: 'pricing',
      limit: 1,
      now: new Date('2026-11-20T00:00:00.000Z'),
    });
    expect(page.hits.map((hit) => hit.bot_id)).toEqual(['bot_nostart']);
  });

  it("spends the caller's waitMs over the whole page: each query gets what is left, the page ends between windows", async () => {
    // Each query reports 10 s of engine time: with 25 s the page runs the lake's days and two windows.
    const waits: Array<number | undefined> = [];
    const slow: LakeEngine = {
      async run(query, options) {
        waits.push(options?.waitMs);
        return { ...(await duckdb.run(query)), elapsedMs: 10_000 };
      },
    };
    const page = await searchTranscripts(slow, { words: 'pricing', now: NOW, windowDays: 1 }, { waitMs: 25_000 });
    expect(waits).toEqual([25_000, 15_000, 5_000]);
    expect(page).toMatchObject({ hits: [], queries: 3, searched_through: '2026-11-24', elapsed_ms: 30_000 });
    expect(page.next_cursor).not.toBeNull();
    const rest = await allPages({ words: 'pricing', now: NOW, windowDays: 1, cursor: page.next_cursor ?? '' });
    expect(rest.flatMap((next) => next.hits).map(brief)).toEqual(expectedHits('pricing'));
  });

  it('ends a page before a window still running after others finished, and the next page starts there', async () => {
    // Athena as the route meets it: the third query (the second window) outlasts the wait.
    let runs = 0;
    const pending: LakeEngine = {
      async run(query, options) {
        runs++;
        if (runs === 3) throw new LakeQueryPendingError('0b5f1c9e-0000-4000-8000-000000000000');
        return duckdb.run(query, options);
      },
    };
    const page = await searchTranscripts(pending, { words: 'pricing', limit: 100, now: NOW, windowDays: 2 });
    expect(page.queries).toBe(2);
    expect(page.searched_through).toBe('2026-11-24');
    expect(page.next_cursor).not.toBeNull();
    const rest = await allPages({
      words: 'pricing',
      limit: 100,
      now: NOW,
      windowDays: 2,
      cursor: page.next_cursor ?? '',
    });
    expect([...page.hits, ...rest.flatMap((next) => next.hits)].map(brief)).toEqual(expectedHits('pricing'));
    // The first query of a page pending has nothing to answer with: it is the caller's to report.
    runs = 2;
    await expect(
      searchTranscripts(pending, { words: 'pricing', from: '2026-11-12', to: '2026-11-25', now: NOW }),
    ).rejects.toBeInstanceOf(LakeQueryPendingError);
  });

  it('an empty lake: one query for its days, no hits, no cursor', async () => {
    const empty = await createDuckDbLakeEngine({ root: scratchDir('lake-questions-empty-') });
    try {
      const page = await searchTranscripts(empty, { words: 'pricing', now: NOW });
      expect(page).toMatchObject({ hits: [], next_cursor: null, searched_through: null, queries: 1 });
    } finally {
      empty.close();
    }
  });

  it('lists meetings with words in windows too, each once across pages', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof listLakeMeetings>> = await listLakeMeetings(engine, {
        words: 'pricing',
        limit: 1,
        now: NOW,
        windowDays: 2,
        maxWindows: 2,
        ...(cursor === null ? {} : { cursor }),
      });
      seen.push(...page.meetings.map((m) => m.bot_id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(seen).toEqual(['bot_nostart', 'bot_b', 'bot_c', 'bot_a', 'bot_old', 'bot_early']);
  });
});

describe('lakeStats', () => {
  it('talk time per speaker: sum of durations (unknown counts 0), largest first, exact', async () => {
    const answer = await lakeStats(engine, { question: 'talk-time' });
    const bySpeaker = new Map<string, { talk_ms: number; utterances: number; meetings: Set<string> }>();
    for (const m of MEETINGS) {
      for (const line of m.lines) {
        const entry = bySpeaker.get(line.speaker) ?? { talk_ms: 0, utterances: 0, meetings: new Set<string>() };
        entry.talk_ms += line.durationMs ?? 0;
        entry.utterances++;
        entry.meetings.add(m.bot);
        bySpeaker.set(line.speaker, entry);
      }
    }
    const expected = [...bySpeaker]
      .map(([speaker, e]) => ({ speaker, talk_ms: e.talk_ms, utterances: e.utterances, meetings: e.meetings.size }))
      .sort((x, y) => y.talk_ms - x.talk_ms || x.speaker.localeCompare(y.speaker));
    expect(answer.question).toBe('talk-time');
    expect(answer.rows).toEqual(expected);
    const ranged = await lakeStats(engine, { question: 'talk-time', from: '2026-11-19', to: '2026-11-19', limit: 1 });
    expect(ranged.rows).toEqual([{ speaker: 'Alice Example', talk_ms: 4_000, utterances: 1, meetings: 1 }]);
  });

  it('meetings per participant by name (nameless left out), most first', async () => {
    const answer = await lakeStats(engine, { question: 'meetings-per-participant' });
    expect(answer.rows).toEqual([
      { name: 'Alice Example', meetings: 2 },
      { name: 'Bob', meetings: 2 },
      { name: 'Dave', meetings: 2 },
      { name: 'Carol', meetings: 1 },
    ]);
  });

  it('meetings and duration per day, newest day first', async () => {
    const answer = await lakeStats(engine, { question: 'meetings-per-day', from: '2026-11-20' });
    expect(answer.rows).toEqual([
      { day: '2026-11-22', meetings: 1, duration_ms: 0 },
      { day: '2026-11-21', meetings: 2, duration_ms: 600_000 },
      { day: '2026-11-20', meetings: 1, duration_ms: 3_600_000 },
    ]);
  });

  it('refuses an unknown question', async () => {
    await expect(lakeStats(engine, { question: 'salaries' } as never)).rejects.toBeInstanceOf(LakeInputError);
  });
});

describe('listLakeMeetings', () => {
  const order = ['bot_nostart', 'bot_b', 'bot_c', 'bot_a', 'bot_old', 'bot_early'];

  it('lists meetings newest first and pages through all of them once', async () => {
    const first = await listLakeMeetings(engine, { limit: 2 });
    expect(first.meetings[1]).toEqual({
      bot_id: 'bot_b',
      day: '2026-11-21',
      started_at: '2026-11-21T10:00:00.000Z',
      ended_at: null,
      state: 'ended',
      duration_ms: null,
      utterance_count: 23,
      participant_count: 2,
      summary: 'Pricing workshop',
    });
    const seen = [...first.meetings];
    let cursor = first.next_cursor;
    while (cursor !== null) {
      const page = await listLakeMeetings(engine, { limit: 2, cursor });
      // Without words the list reads no text: a later page is one query over the rest of the range.
      expect(page.queries).toBe(1);
      seen.push(...page.meetings);
      cursor = page.next_cursor;
    }
    expect(seen.map((m) => m.bot_id)).toEqual(order);
  });

  it('keeps meetings whose summary or transcript has the words, within the range', async () => {
    const budget = await listLakeMeetings(engine, { words: 'budget' });
    expect(budget.meetings.map((m) => m.bot_id)).toEqual(['bot_old']);
    const pricing = await listLakeMeetings(engine, { words: 'pricing' });
    expect(pricing.meetings.map((m) => m.bot_id)).toEqual(order);
    const ranged = await listLakeMeetings(engine, { words: 'pricing', from: '2026-11-20', to: '2026-11-20' });
    expect(ranged.meetings.map((m) => m.bot_id)).toEqual(['bot_a']);
    const sure = await listLakeMeetings(engine, { words: '100%' });
    expect(sure.meetings.map((m) => m.bot_id)).toEqual(['bot_a']);
  });
});

describe('formatOffset', () => {
  it.each([
    [0, '00:00:00'],
    [999, '00:00:00'],
    [61_000, '00:01:01'],
    [3_723_000, '01:02:03'],
    [359_999_999, '99:59:59'],
    [360_000_000, '100:00:00'],
    [-5, '00:00:00'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatOffset(ms)).toBe(text);
  });
});

describe('snippetOf', () => {
  it('returns a short line whole, whitespace runs as one space', () => {
    expect(snippetOf('we  talked\nabout pricing', 'PRICING')).toBe('we talked about pricing');
  });

  it('centres a long line on the first match and marks both cuts', () => {
    const line = `${'a'.repeat(500)}Pricing${'b'.repeat(500)}pricing`;
    const snippet = snippetOf(line, 'pricing');
    expect(snippet).toBe(`…${'a'.repeat(96)}Pricing${'b'.repeat(97)}…`);
  });

  it('keeps the start when the match is near it, and never splits a surrogate pair', () => {
    const line = `pricing! ${'😀'.repeat(300)}`;
    const snippet = snippetOf(line, 'pricing');
    expect(snippet.startsWith('pricing! ')).toBe(true);
    expect(snippet.endsWith('😀…')).toBe(true);
    // A lone surrogate would not survive a UTF-8 round trip.
    expect(Buffer.from(snippet).toString()).toBe(snippet);
  });

  it('takes the words literally (regular-expression characters too)', () => {
    expect(snippetOf('cost (in $) is 3.5', '(in $)')).toBe('cost (in $) is 3.5');
    expect(snippetOf('x'.repeat(300), 'a.b')).toBe(`${'x'.repeat(SNIPPET_CHARS)}…`);
  });
});
