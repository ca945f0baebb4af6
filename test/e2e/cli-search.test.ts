/**
 * `meeting-pipeline search` and `query` against local mode (the whole local stack, its endpoints
 * file as `npm run dev` writes it), over a lake written into the local S3's recordings bucket with
 * the lake's own codec and keys: the CLI mirrors the bucket's `lake/` and asks DuckDB, as it does
 * in local mode. The bin runs as a child process where the user's view matters (the lines on the
 * terminal, the exit status); the many variations run `main` in this process (each child costs
 * seconds of start-up on a busy machine).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryCommand } from '../../cli/commands/query';
import { EXIT, UsageError } from '../../cli/exit-codes';
import { type ClosableLakeEngine, lakeEngineFor } from '../../cli/lake-engine';
import { resolveTarget } from '../../cli/target';
import type { LakeQuery } from '../../lambdas/core/lake/lake-engine';
import { lakeKeys } from '../../lambdas/core/lake/lake-layout';
import type { TranscriptSearchPage } from '../../lambdas/core/lake/lake-questions-contract';
import { searchTranscripts } from '../../lambdas/core/lake/lake-search';
import type { LakeRow, LakeTableName } from '../../lambdas/core/lake/lake-tables';
import { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { s3Client } from '../../lambdas/shared/s3-client';
import { cliInProcess } from '../fixtures/cli-in-process';
import { type CliLocalStack, cli, type Run, startCliLocalStack } from '../fixtures/cli-local-stack';
import { controlsIn } from '../fixtures/control-characters';

/** What a hostile participant puts in a name or a line: OSC 52 (clipboard), a CSI, a bidi override. */
const ESCAPES = '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007\u009b2J\u202e';
/** A name with a line break of its own: printed raw, its second line would pass for another hit's. */
const HOSTILE_SPEAKER = `Mallory${ESCAPES}\n2026-11-24  bot_forged  [00:00:09]  Boss`;
/** A line that, printed raw, would start a forged hit of its own. */
const FORGED = 'pricing\r\n2026-11-24  bot_forged  [00:00:00]  Boss: wire the money';

interface FixtureMeeting {
  botId: string;
  day: string;
  startedAt: string;
  lines: Array<{ offsetMs: number; speaker: string; text: string }>;
}

const MEETINGS: FixtureMeeting[] = [
  {
    botId: 'bot_new',
    day: '2026-11-24',
    startedAt: '2026-11-24T10:00:00.000Z',
    lines: [
      { offsetMs: 5_000, speaker: 'Bob', text: 'nothing to see here' },
      { offsetMs: 3_723_000, speaker: 'Alice', text: 'We should talk about Pricing today' },
    ],
  },
  {
    botId: 'bot_mid',
    day: '2026-11-23',
    startedAt: '2026-11-23T15:30:00.000Z',
    lines: [
      { offsetMs: 61_000, speaker: 'Bob', text: 'the pricing page is fine' },
      { offsetMs: 62_500, speaker: HOSTILE_SPEAKER, text: FORGED },
    ],
  },
  {
    botId: 'bot_old',
    day: '2026-11-20',
    startedAt: '2026-11-20T09:00:00.000Z',
    lines: [{ offsetMs: 0, speaker: 'Alice', text: 'old pricing, from last week' }],
  },
];

function rowsOf(meeting: FixtureMeeting): Record<LakeTableName, LakeRow[]> {
  const speakers = new Set(meeting.lines.map((line) => line.speaker));
  return {
    meetings: [
      {
        bot_id: meeting.botId,
        state: 'ended',
        started_at: meeting.startedAt,
        ended_at: null,
        duration_ms: null,
        utterance_count: meeting.lines.length,
        participant_count: speakers.size,
        speaker_count: speakers.size,
        schedule_id: null,
        calendar_id: null,
        summary: null,
        archived_at: meeting.startedAt,
        lake_version: meeting.startedAt,
      },
    ],
    utterances: meeting.lines.map((line, seq) => ({
      bot_id: meeting.botId,
      seq,
      offset_ms: line.offsetMs,
      duration_ms: 1_000,
      speaker: line.speaker,
      speaker_id: `spk_${line.speaker.slice(0, 3)}`,
      text: line.text,
      language: null,
    })),
    participants: [...speakers].map((name, i) => ({
      bot_id: meeting.botId,
      participant_id: `p_${i}`,
      name,
      user_id: null,
      is_host: i === 0,
      joined_at: meeting.startedAt,
      left_at: null,
    })),
  };
}

/** stderr without the npm warning this machine's npm config adds to every npx. */
const stderrLines = (stderr: string) => stderr.split('\n').filter((line) => line !== '' && !line.includes('nodedir'));
const NO_TRACE = /^\s+at /m;

const TABLES = ['utterances', 'participants', 'meetings'] as const;

/** A meeting's three recent files into the local S3's recordings bucket, as the archive writes them. */
async function putMeeting(meeting: FixtureMeeting): Promise<void> {
  const rows = rowsOf(meeting);
  for (const table of TABLES)
    await s3Client().send(
      new PutObjectCommand({
        Bucket: local?.stack.recordingsBucket,
        Key: lakeKeys.recentFile(table, meeting.day, meeting.botId),
        Body: encodeLakeRows(table, rows[table]),
      }),
    );
}

let local: CliLocalStack | undefined;
let target: string[] = [];

beforeAll(async () => {
  local = await startCliLocalStack('clisearch');
  target = ['--endpoints-file', local.endpointsFile];
  for (const meeting of MEETINGS) await putMeeting(meeting);
}, 120_000);

afterAll(async () => {
  await local?.stop();
});

/** `main` in this process (test/fixtures/cli-in-process.ts). */
const inProcess = (...argv: string[]): Promise<Run> => cliInProcess(argv);

const searchJson = async (...args: string[]): Promise<TranscriptSearchPage> => {
  const result = await inProcess('search', ...args, '--json', ...target);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as TranscriptSearchPage;
};

/** Each run of the bin starts a Node process: on a machine this busy, seconds each. */
const CHILD_TIMEOUT = 240_000;

describe('meeting-pipeline search', () => {
  it(
    'finds every meeting that said the words, newest first, one line a hit with its day, offset and speaker',
    async () => {
      const result = await cli(['search', 'pricing', ...target]);
      expect(result.code).toBe(0);
      expect(result.stdout.split('\n').filter((line) => line !== '')).toEqual([
        '2026-11-24  bot_new  [01:02:03]  Alice: We should talk about Pricing today',
        '2026-11-23  bot_mid  [00:01:01]  Bob: the pricing page is fine',
        // The hostile name and line: their controls gone, the line break (and every run of
        // spaces) one space, so it forges no hit of its own.
        '2026-11-23  bot_mid  [00:01:02]  Mallory]52;c;Y3VybCBldmlsIHwgc2g=2J 2026-11-24 bot_forged [00:00:09] Boss: pricing 2026-11-24 bot_forged [00:00:00] Boss: wire the money',
        '2026-11-20  bot_old  [00:00:00]  Alice: old pricing, from last week',
      ]);
      expect(controlsIn(result.stdout)).toEqual([]);
      // The cost on stderr: the engine and what it read.
      expect(stderrLines(result.stderr)).toEqual([
        expect.stringMatching(/^4 hits \(duckdb, [\d.]+ KiB scanned, [\d.]+ s\)$/),
      ]);
    },
    CHILD_TIMEOUT,
  );

  it('--json prints the page object, with the exact text and the cost', async () => {
    const page = await searchJson('pricing');
    expect(page.engine).toBe('duckdb');
    expect(page.bytes_scanned).toBeGreaterThan(0);
    expect(page.next_cursor).toBeNull();
    expect(page.hits.map((hit) => [hit.day, hit.bot_id, hit.offset_ms, hit.offset])).toEqual([
      ['2026-11-24', 'bot_new', 3_723_000, '01:02:03'],
      ['2026-11-23', 'bot_mid', 61_000, '00:01:01'],
      ['2026-11-23', 'bot_mid', 62_500, '00:01:02'],
      ['2026-11-20', 'bot_old', 0, '00:00:00'],
    ]);
    // JSON keeps what was said exactly (escaped, never acting on the terminal).
    expect(page.hits[2]?.speaker).toBe(HOSTILE_SPEAKER);
    expect(page.hits[2]?.snippet).toContain('bot_forged');
  });

  it('pages: each page prints the command for the next, and the pages cover every hit once', async () => {
    const seen: string[] = [];
    let args = ['search', 'pricing', '--limit', '1', ...target];
    for (let page = 0; page < 10; page++) {
      const result = await inProcess(...args);
      expect(result.code).toBe(0);
      seen.push(...result.stdout.split('\n').filter((line) => line !== ''));
      const next = stderrLines(result.stderr).find((line) => line.startsWith('next page: '));
      if (next === undefined) break;
      expect(stderrLines(result.stderr)[0]).toMatch(
        /^1 hit, searched back to 2026-11-2\d, more on the next page \(duckdb, /,
      );
      // The printed command is the one to run: its words, flags and target, and the cursor.
      const words = next.slice('next page: meeting-pipeline '.length).split(' ');
      expect(words.slice(0, 4)).toEqual(['search', 'pricing', '--limit', '1']);
      expect(words).toContain('--cursor');
      expect(words).toContain(local?.endpointsFile);
      args = words;
    }
    expect(seen.map((line) => line.split('  ').slice(1, 3).join(' '))).toEqual([
      'bot_new [01:02:03]',
      'bot_mid [00:01:01]',
      'bot_mid [00:01:02]',
      'bot_old [00:00:00]',
    ]);
  });

  it('--from, --to and --speaker narrow the hits', async () => {
    const range = await searchJson('pricing', '--from', '2026-11-21', '--to', '2026-11-23');
    expect(range.hits.map((hit) => hit.bot_id)).toEqual(['bot_mid', 'bot_mid']);
    const alice = await searchJson('pricing', '--speaker', 'ALIce');
    expect(alice.hits.map((hit) => hit.bot_id)).toEqual(['bot_new', 'bot_old']);
    const none = await inProcess('search', 'no such words anywhere', ...target);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(stderrLines(none.stderr)).toEqual([expect.stringMatching(/^no hits \(duckdb, /)]);
  });

  it('the mistakes people make are one line and exit 2', async () => {
    const cases = [
      [['search'], 'search needs <words>'],
      [['search', '  '], 'search needs words to find'],
      [
        ['search', 'pricing', '--from', '2026-11-24', '--to', '2026-11-01'],
        '--from 2026-11-24 is after --to 2026-11-01',
      ],
      [['search', 'pricing', '--from', '11/24/2026'], '--from takes a day as YYYY-MM-DD (UTC), not "11/24/2026"'],
      [['search', 'pricing', '--to', '2026-02-30'], '--to takes a day as YYYY-MM-DD (UTC), not "2026-02-30"'],
      [['search', 'pricing', '--limit', '0'], '--limit takes a whole number from 1 to 100'],
      [['search', 'pricing', '--form', '2026-11-01'], 'unknown option --form (did you mean --from?)'],
      [['search', 'pricing', '--cursor', '!!not-a-cursor!!'], 'cursor'],
      [['query'], 'query needs <SQL>'],
      [['query', 'SELECT 1', '--max-rows', 'all'], '--max-rows takes a whole number from 1 to 100000'],
    ] as const;
    for (const [args, expected] of cases) {
      const result = await inProcess(...args, ...target);
      expect({ args, code: result.code }).toEqual({ args, code: EXIT.usage });
      expect(stderrLines(result.stderr), args.join(' ')).toEqual([expect.stringContaining(expected)]);
      expect(result.stderr).not.toMatch(NO_TRACE);
      expect(result.stdout).toBe('');
    }
    // The lake is read by Athena or DuckDB: a bare API base cannot.
    const bare = await inProcess('search', 'pricing', '--endpoint', 'http://127.0.0.1:1');
    expect(bare.code).toBe(EXIT.usage);
    expect(stderrLines(bare.stderr)).toEqual([expect.stringContaining('--endpoint names only the HTTP API')]);
  });
});

describe('meeting-pipeline query', () => {
  it(
    'runs a SELECT and prints an aligned table, the row count and the cost on stderr',
    async () => {
      const result = await cli([
        'query',
        'SELECT bot_id, count(*) AS lines, min(offset_ms) AS first_ms FROM utterances GROUP BY bot_id ORDER BY bot_id',
        ...target,
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        [
          'bot_id   lines  first_ms',
          'bot_mid      2     61000',
          'bot_new      2      5000',
          'bot_old      1         0',
          '',
        ].join('\n'),
      );
      expect(stderrLines(result.stderr)).toEqual([expect.stringMatching(/^3 rows \(duckdb, [\d.]+ KiB scanned, /)]);
    },
    CHILD_TIMEOUT,
  );

  it('--json gives columns and rows exactly; the table acts on nothing; --max-rows stops reading and says so', async () => {
    const sql = "SELECT speaker, text FROM utterances WHERE bot_id = 'bot_mid' ORDER BY seq";
    const json = await inProcess('query', sql, '--json', ...target);
    expect(json.code).toBe(0);
    expect(controlsIn(json.stdout)).toEqual([]);
    const answer = JSON.parse(json.stdout) as { columns: string[]; rows: unknown[][]; truncated: boolean };
    expect(answer.columns).toEqual(['speaker', 'text']);
    expect(answer.rows).toEqual([
      ['Bob', 'the pricing page is fine'],
      [HOSTILE_SPEAKER, FORGED],
    ]);
    expect(answer.truncated).toBe(false);
    const table = await inProcess('query', sql, ...target);
    expect(controlsIn(table.stdout)).toEqual([]);
    // Header and two rows: the line break inside the text forged no row.
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(3);
    const cut = await inProcess('query', sql, '--max-rows', '1', ...target);
    expect(cut.code).toBe(0);
    expect(cut.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(cut.stderr).toContain('1 row, more not read (--max-rows 1');
  });

  it(
    'refuses what is not one read-only statement, with the reason and exit 2, never reaching the lake',
    async () => {
      // An S3 that does not answer: a statement that went as far as opening the engine fails there.
      const dir = join(local?.dir ?? '', 'unreachable');
      mkdirSync(dir);
      const unreachable = join(dir, 'endpoints.json');
      const endpoints = JSON.parse(readFileSync(local?.endpointsFile ?? '', 'utf8'));
      writeFileSync(
        unreachable,
        JSON.stringify({ ...endpoints, s3: { ...endpoints.s3, endpoint: 'http://127.0.0.1:1' } }),
      );
      const [control, refused] = await Promise.all([
        cli(['query', 'SELECT 1', '--endpoints-file', unreachable]),
        cli(['query', 'SELECT 1; DELETE FROM meetings', '--endpoints-file', unreachable]),
      ]);
      // The control: a read-only statement goes on to the lake, and fails to reach it.
      expect(control?.code).toBe(EXIT.error);
      expect(control?.stderr).not.toContain('refused');
      expect(refused?.code).toBe(EXIT.usage);
      expect(stderrLines(refused?.stderr ?? '')).toEqual([
        expect.stringMatching(/^meeting-pipeline query: refused: \S/),
      ]);
      expect(refused?.stdout).toBe('');
      // The other statements, each refused the same way.
      for (const sql of [
        'DROP TABLE meetings',
        "INSERT INTO meetings (bot_id) VALUES ('x')",
        'DELETE FROM utterances',
      ]) {
        const result = await inProcess('query', sql, '--endpoints-file', unreachable);
        expect({ sql, code: result.code }).toEqual({ sql, code: EXIT.usage });
        expect(stderrLines(result.stderr), sql).toEqual([
          expect.stringMatching(/^meeting-pipeline query: refused: \S/),
        ]);
      }
    },
    CHILD_TIMEOUT,
  );

  it('answers a table or column the lake lacks in one line naming what exists, exit 2', async () => {
    const cases = [
      ['SELECT * FROM nosuch', /^meeting-pipeline query: no table nosuch; tables: meetings, utterances, participants /],
      ['SELECT nosuch FROM meetings', /^meeting-pipeline query: no column nosuch; candidates: \w/],
      ['SELECT m.nosuch FROM meetings m', /^meeting-pipeline query: no column nosuch in m /],
    ] as const;
    for (const [sql, expected] of cases) {
      const result = await inProcess('query', sql, ...target);
      expect({ sql, code: result.code }).toEqual({ sql, code: EXIT.usage });
      expect(stderrLines(result.stderr)).toEqual([expect.stringMatching(expected)]);
      expect(result.stdout).toBe('');
    }
    // Any other failure of DuckDB's (here a conversion) is its first line: the statement under a caret is left out.
    const syntax = await inProcess('query', "SELECT CAST('x' AS INTEGER) AS n", ...target);
    expect(syntax.code).toBe(EXIT.error);
    expect(stderrLines(syntax.stderr)).toEqual([expect.stringMatching(/^meeting-pipeline query: the query failed: /)]);
  });

  it('checks the SQL before it opens any engine (the engine is a spy here)', async () => {
    const asked: LakeQuery[] = [];
    const open = vi.fn(
      async (): Promise<ClosableLakeEngine> => ({
        async run(query) {
          asked.push(query);
          return { columns: ['n'], rows: [[1]], truncated: false, bytesScanned: 0, engine: 'duckdb', elapsedMs: 1 };
        },
        close() {},
      }),
    );
    const command = queryCommand(open);
    for (const sql of ['DROP TABLE meetings', 'SELECT 1; DELETE FROM meetings', 'INSERT INTO meetings VALUES (1)'])
      await expect(command.run(['query', sql, ...target])).rejects.toBeInstanceOf(UsageError);
    expect(open).not.toHaveBeenCalled();
    expect(asked).toEqual([]);
    // The control: a SELECT does reach the engine, as the user wrote it.
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await command.run(['query', 'SELECT 1 AS n', ...target]);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(open).toHaveBeenCalledTimes(1);
    expect(asked).toEqual([{ sql: 'SELECT 1 AS n', params: [] }]);
  });
});

describe("local mode's lake engine", () => {
  it('kept open (as the MCP server keeps it), finds a meeting archived after it opened and loses one erased', async () => {
    const engine = await lakeEngineFor(await resolveTarget({ endpointsFile: local?.endpointsFile ?? '' }));
    // Today: local mode compacts every closed day at start, and a file PUT straight into a compacted
    // day's recent tier is not read (a real writer folds it in: lake-writer.ts); today is never compacted.
    const today = new Date().toISOString().slice(0, 10);
    const late: FixtureMeeting = {
      botId: 'bot_late',
      day: today,
      startedAt: `${today}T00:00:00.000Z`,
      lines: [{ offsetMs: 7_000, speaker: 'Dana', text: 'the quarterly forecast is in' }],
    };
    const botsSaying = async (words: string) =>
      (await searchTranscripts(engine, { words })).hits.map((hit) => `${hit.bot_id} ${hit.offset}`);
    try {
      expect(await botsSaying('quarterly forecast')).toEqual([]);
      await putMeeting(late);
      expect(await botsSaying('quarterly forecast')).toEqual(['bot_late 00:00:07']);
      for (const table of TABLES)
        await s3Client().send(
          new DeleteObjectCommand({
            Bucket: local?.stack.recordingsBucket,
            Key: lakeKeys.recentFile(table, late.day, late.botId),
          }),
        );
      expect(await botsSaying('quarterly forecast')).toEqual([]);
    } finally {
      engine.close();
    }
  });
});
