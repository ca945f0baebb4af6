/**
 * The Athena lake engine (lambdas/core/lake/athena-engine.ts) through the real AWS SDK against the
 * local Athena emulator, which runs DuckDB over lake files and writes results to the versioned S3
 * emulator: parameters arrive as one literal each, results are typed and paged past Athena's
 * 1000-row pages, the cutoff, a pending query resumed by id, an abort cancelling at Athena, and a
 * failing query's reason.
 */
import { GetQueryExecutionCommand } from '@aws-sdk/client-athena';
import { afterEach, describe, expect, it } from 'vitest';
import { createAthenaLakeEngine, sqlLiteral } from '../../lambdas/core/lake/athena-engine';
import {
  type LakeProgress,
  LakeQueryFailedError,
  LakeQueryPendingError,
  resultObjects,
} from '../../lambdas/core/lake/lake-engine';
import type { QueryCost } from '../../lambdas/core/lake/lake-questions-contract';
import { lakeSearch } from '../../lambdas/core/lake/lake-search';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import {
  HeldEngine,
  LAKE_DATABASE,
  type LocalAthena,
  RESULTS_LOCATION,
  startLocalAthena,
  utterance,
} from '../fixtures/athena-lake';

const SEARCH_SQL = [
  'SELECT bot_id, seq, offset_ms, speaker, text, language',
  'FROM utterances',
  'WHERE day BETWEEN ? AND ? AND strpos(lower(text), lower(?)) > 0',
  'ORDER BY day DESC, bot_id, offset_ms',
  'LIMIT ?',
].join('\n');

let lake: LocalAthena | undefined;
afterEach(async () => {
  await lake?.stop();
  lake = undefined;
});

const engineOf = (local: LocalAthena, workGroup = 'lake') =>
  createAthenaLakeEngine({ athena: local.athena, workGroup, database: LAKE_DATABASE, pollMs: 10, maxPollMs: 50 });

describe('sqlLiteral', () => {
  it('quotes a string with its quotes doubled and writes numbers as digits', () => {
    expect(sqlLiteral("x'); DROP TABLE y; --")).toBe("'x''); DROP TABLE y; --'");
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral(42)).toBe('42');
    expect(() => sqlLiteral(Number.NaN)).toThrow(LakeQueryFailedError);
  });
});

describe('the Athena lake engine against the local Athena', () => {
  it('runs a search with parameters and answers typed rows, newest day first', async () => {
    lake = await startLocalAthena();
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [
      utterance('bot-a', 0, 'Ana', 'Shall we talk about PRICING today?'),
      utterance('bot-a', 1, 'Ben', 'Not yet.'),
    ]);
    lake.writeRecent('utterances', '2026-11-03', 'bot-b', [utterance('bot-b', 4, 'Cleo', 'the pricing page is live')]);
    lake.writeRecent('utterances', '2026-12-01', 'bot-c', [utterance('bot-c', 0, 'Dan', 'pricing, again')]);
    const progress: LakeProgress[] = [];

    const result = await engineOf(lake).run(
      { sql: SEARCH_SQL, params: ['2026-11-01', '2026-11-30', 'pricing', 50] },
      { onProgress: (p) => progress.push(p) },
    );

    expect(result.engine).toBe('athena');
    expect(result.queryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.columns).toEqual(['bot_id', 'seq', 'offset_ms', 'speaker', 'text', 'language']);
    expect(resultObjects(result)).toEqual([
      { bot_id: 'bot-b', seq: 4, offset_ms: 4000, speaker: 'Cleo', text: 'the pricing page is live', language: null },
      {
        bot_id: 'bot-a',
        seq: 0,
        offset_ms: 0,
        speaker: 'Ana',
        text: 'Shall we talk about PRICING today?',
        language: null,
      },
    ]);
    expect(result.truncated).toBe(false);
    expect(result.bytesScanned).toBeGreaterThan(0);
    expect(progress.every((p) => p.state === 'QUEUED' || p.state === 'RUNNING')).toBe(true);
  });

  it('sends a parameter that reads like SQL as one value: it matches only that text', async () => {
    lake = await startLocalAthena();
    const hostile = "x'); DROP TABLE y; --";
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [
      utterance('bot-a', 0, 'Ana', `someone typed ${hostile} into the form`),
      utterance('bot-a', 1, 'Ben', 'x marks the spot'),
    ]);

    const result = await engineOf(lake).run({ sql: SEARCH_SQL, params: ['2026-11-01', '2026-11-30', hostile, 10] });

    expect(result.rows.map((row) => row[1])).toEqual([0]);
  });

  it('reads every page past 1000 rows, and stops at maxRows saying more existed', async () => {
    lake = await startLocalAthena();
    const rows = Array.from({ length: 2500 }, (_, seq) => utterance('bot-long', seq, 'Ana', `line ${seq}`));
    lake.writeRecent('utterances', '2026-11-02', 'bot-long', rows);
    const engine = engineOf(lake);
    const sql = 'SELECT seq, text FROM utterances ORDER BY seq';

    const all = await engine.run({ sql, params: [] });
    const first1500 = await engine.run({ sql, params: [] }, { maxRows: 1500 });
    const exactly = await engine.run({ sql, params: [] }, { maxRows: 2500 });
    const few = await engine.run({ sql, params: [] }, { maxRows: 3 });

    expect(all.rows).toHaveLength(2500);
    expect(all.rows.map((row) => row[0])).toEqual(rows.map((row) => row.seq));
    expect(all.rows[2499]).toEqual([2499, 'line 2499']);
    expect(all.truncated).toBe(false);
    expect(first1500.rows).toHaveLength(1500);
    expect(first1500.rows[1499]).toEqual([1499, 'line 1499']);
    expect(first1500.truncated).toBe(true);
    expect(exactly.rows).toHaveLength(2500);
    expect(exactly.truncated).toBe(false);
    expect(few.rows).toEqual([
      [0, 'line 0'],
      [1, 'line 1'],
      [2, 'line 2'],
    ]);
    expect(few.truncated).toBe(true);
  });

  it('fails a query over the workgroup cutoff as the cutoff, not as a wrong query', async () => {
    lake = await startLocalAthena({
      workGroups: {
        capped: {
          ResultConfiguration: { OutputLocation: RESULTS_LOCATION },
          EnforceWorkGroupConfiguration: true,
          BytesScannedCutoffPerQuery: 64,
        },
      },
    });
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [utterance('bot-a', 0, 'Ana', 'a line longer than the cap')]);

    const error = await engineOf(lake, 'capped')
      .run({ sql: 'SELECT count(*) AS n FROM utterances', params: [] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LakeQueryFailedError);
    expect((error as LakeQueryFailedError).cutoff).toBe(true);
    expect((error as Error).message).toContain('Bytes scanned limit was exceeded');
  });

  it('leaves a query running after waitMs with its id, and resume reads its result', async () => {
    let held: HeldEngine | undefined;
    lake = await startLocalAthena({
      engine: (duckdb) => {
        held = new HeldEngine(duckdb);
        return held;
      },
    });
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [utterance('bot-a', 0, 'Ana', 'hello')]);
    const engine = engineOf(lake);
    const progress: LakeProgress[] = [];

    const pending = await engine
      .run({ sql: 'SELECT text FROM utterances', params: [] }, { waitMs: 150, onProgress: (p) => progress.push(p) })
      .catch((e: unknown) => e);

    expect(pending).toBeInstanceOf(LakeQueryPendingError);
    const queryId = (pending as LakeQueryPendingError).queryId;
    expect(progress.at(-1)?.state).toBe('RUNNING');
    // Still pending when asked again within a short wait.
    await expect(engine.resume?.(queryId, { waitMs: 30 })).rejects.toBeInstanceOf(LakeQueryPendingError);
    held?.release();
    const result = await engine.resume?.(queryId);
    expect(result?.queryId).toBe(queryId);
    expect(result?.rows).toEqual([['hello']]);
  });

  it('resumes a query only as the question it was: another SQL or other parameters are refused', async () => {
    lake = await startLocalAthena();
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [utterance('bot-a', 0, 'Ana', 'hello pricing')]);
    const engine = engineOf(lake);
    const asked = { sql: 'SELECT text FROM utterances WHERE strpos(text, ?) > 0', params: ['pricing'] };
    const { queryId } = await engine.run(asked);
    const id = queryId ?? '';
    await expect(engine.resume?.(id, { expected: asked })).resolves.toMatchObject({ rows: [['hello pricing']] });
    await expect(
      engine.resume?.(id, { expected: { sql: 'SELECT speaker FROM utterances', params: [] } }),
    ).rejects.toThrow(/is not the question asked/);
    await expect(engine.resume?.(id, { expected: { ...asked, params: ['hello'] } })).rejects.toBeInstanceOf(
      LakeQueryFailedError,
    );
  });

  it('refuses to resume a query id Athena does not know, in its words', async () => {
    lake = await startLocalAthena();
    const unknown = '00000000-0000-0000-0000-000000000000';

    const error = await engineOf(lake)
      .resume?.(unknown)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LakeQueryFailedError);
    expect((error as Error).message).toBe(`QueryExecution ${unknown} was not found`);
  });

  it('cancels the query at Athena when the caller aborts', async () => {
    let held: HeldEngine | undefined;
    lake = await startLocalAthena({
      engine: (duckdb) => {
        held = new HeldEngine(duckdb);
        return held;
      },
    });
    const controller = new AbortController();
    const started = startedQueryIds(lake);

    const outcome = await engineOf(lake)
      .run(
        { sql: 'SELECT text FROM utterances', params: [] },
        {
          signal: controller.signal,
          onProgress: (p) => {
            if (p.state === 'RUNNING') controller.abort(new Error('the client went away'));
          },
        },
      )
      .catch((e: unknown) => e);

    expect((outcome as Error).message).toBe('the client went away');
    expect(held?.signals).toHaveLength(1);
    expect(held?.signals[0]?.aborted).toBe(true);
    // The query the engine started is the one Athena now reports cancelled by its user.
    expect(started).toHaveLength(1);
    const { QueryExecution: execution } = await lake.athena.send(
      new GetQueryExecutionCommand({ QueryExecutionId: started[0] }),
    );
    expect(execution?.Status?.State).toBe('CANCELLED');
    expect(execution?.Status?.StateChangeReason).toBe('Query cancelled by user');
  });

  it("reports a failing query with Athena's reason", async () => {
    lake = await startLocalAthena();
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [utterance('bot-a', 0, 'Ana', 'hello')]);

    const error = await engineOf(lake)
      .run({ sql: 'SELECT no_such_column FROM utterances', params: [] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LakeQueryFailedError);
    expect((error as LakeQueryFailedError).cutoff).toBe(false);
    expect((error as Error).message).toMatch(/failed: COLUMN_NOT_FOUND: .*no_such_column/);
  });

  it('reports SQL Athena refuses to start as a failed query, in its words', async () => {
    lake = await startLocalAthena();

    const error = await engineOf(lake)
      .run({ sql: 'SELECT offset_ms::varchar FROM utterances', params: [] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LakeQueryFailedError);
    expect((error as Error).message).toMatch(/^line 1:17: /);
  });

  it("reports a workgroup Athena does not know in Athena's words", async () => {
    lake = await startLocalAthena();

    const error = await engineOf(lake, 'no-such-group')
      .run({ sql: 'SELECT 1', params: [] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LakeQueryFailedError);
    expect((error as Error).message).toBe('WorkGroup is not found.');
  });
});

describe('the questions on Athena and on DuckDB', () => {
  it('answer the same: search (both pages), every stat, and the meeting list', async () => {
    lake = await startLocalAthena();
    const days = ['2026-11-02', '2026-11-03', '2026-11-04'];
    days.forEach((day, d) => {
      for (const m of [0, 1]) {
        const botId = `bot-${d}-${m}`;
        const startedAt = `${day}T0${m + 8}:00:00.000Z`;
        lake?.writeRecent('meetings', day, botId, [meeting(botId, startedAt, m === 0 ? 'about pricing' : null)]);
        lake?.writeRecent(
          'utterances',
          day,
          botId,
          Array.from({ length: 6 }, (_, seq) =>
            utterance(botId, seq, seq % 2 === 0 ? 'Ana' : "Ben O'Neil", `line ${seq}: the Pricing of ${botId}`),
          ),
        );
        lake?.writeRecent('participants', day, botId, [participant(botId, 'p-ana', 'Ana', true)]);
      }
    });
    const athena = engineOf(lake);
    const duckdb = await createDuckDbLakeEngine({ root: lake.root });
    const both = async <T extends QueryCost>(ask: (engine: typeof athena) => Promise<T>) => {
      const [onAthena, onDuckDb] = [without(await ask(athena)), without(await ask(duckdb))];
      expect(onAthena).toEqual(onDuckDb);
      return onAthena;
    };

    try {
      const first = await both((engine) =>
        lakeSearch.searchTranscripts(engine, { words: 'pricing', speaker: "o'neil", limit: 4 }),
      );
      expect((first.hits as unknown[]).length).toBe(4);
      await both((engine) =>
        lakeSearch.searchTranscripts(engine, {
          words: 'pricing',
          speaker: "o'neil",
          limit: 4,
          cursor: first.next_cursor as string,
        }),
      );
      for (const question of ['talk-time', 'meetings-per-participant', 'meetings-per-day'] as const) {
        await both((engine) => lakeSearch.lakeStats(engine, { question, from: '2026-11-03' }));
      }
      const listed = await both((engine) => lakeSearch.listLakeMeetings(engine, { words: 'pricing', limit: 2 }));
      expect((listed.meetings as unknown[]).length).toBe(2);
    } finally {
      duckdb.close();
    }
  });
});

/** An answer without what differs by engine and run (engine name, bytes, time, query id). */
function without(answer: QueryCost): Record<string, unknown> {
  const { engine: _engine, bytes_scanned: _bytes, elapsed_ms: _ms, query_id: _id, ...rest } = answer;
  return rest;
}

const meeting = (botId: string, startedAt: string, summary: string | null) => ({
  bot_id: botId,
  state: 'ended',
  started_at: startedAt,
  ended_at: startedAt.replace('T0', 'T1'),
  duration_ms: 3_600_000,
  utterance_count: 6,
  participant_count: 1,
  speaker_count: 2,
  schedule_id: null,
  calendar_id: null,
  summary,
  archived_at: startedAt,
  lake_version: startedAt,
});

const participant = (botId: string, id: string, name: string, isHost: boolean) => ({
  bot_id: botId,
  participant_id: id,
  name,
  user_id: null,
  is_host: isHost,
  joined_at: null,
  left_at: null,
});

/** The ids StartQueryExecution answers from now on, as the client received them. */
function startedQueryIds(local: LocalAthena): string[] {
  const ids: string[] = [];
  local.athena.middlewareStack.add(
    (next) => async (args) => {
      const answer = await next(args);
      const id = (answer.output as { QueryExecutionId?: unknown }).QueryExecutionId;
      if (typeof id === 'string') ids.push(id);
      return answer;
    },
    { step: 'initialize' },
  );
  return ids;
}
