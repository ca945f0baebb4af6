/**
 * The read API's lake routes (lambdas/core/lake/lake-search-routes.ts): query strings validated into
 * 400s in the house error shape, a question answered on a real DuckDB engine over a lake directory,
 * a query that outlasts the wait answered 202 and picked up by the results route, and the metrics
 * (bytes scanned by question, refusals by reason).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorBody } from '../../lambdas/core/api-error';
import {
  type LakeEngine,
  type LakeQuery,
  LakeQueryFailedError,
  LakeQueryPendingError,
  type LakeRunOptions,
  resultObjects,
} from '../../lambdas/core/lake/lake-engine';
import { lakeKeys } from '../../lambdas/core/lake/lake-layout';
import {
  LakeInputError,
  type LakeSearchFunctions,
  type StatsAnswer,
  type TranscriptSearchPage,
} from '../../lambdas/core/lake/lake-questions-contract';
import {
  answerLakeRoute,
  LAKE_SEARCH_ROUTES,
  type LakeRouteRequest,
  type LakeSearchRouteDependencies,
} from '../../lambdas/core/lake/lake-search-routes';
import { encodeLakeRows } from '../../lambdas/core/lake/parquet-codec';
import { createLakeSearchHandler } from '../../lambdas/lake-search/adapter';
import { createDuckDbLakeEngine } from '../../local/lake/duckdb-lake-engine';
import { type RecordedMetric, recordingTelemetry } from '../fixtures/local-pipeline';
import { scratchDir } from '../fixtures/scratch';

const QUERY_ID = '5b3c0d4e-1f2a-4b5c-8d9e-0a1b2c3d4e5f';

let duck: LakeEngine & { close(): void };

beforeAll(async () => {
  const root = scratchDir('lake-routes-');
  const put = (key: string, bytes: Uint8Array) => {
    mkdirSync(dirname(join(root, key)), { recursive: true });
    writeFileSync(join(root, key), bytes);
  };
  const line = (seq: number, speaker: string, text: string) => ({
    bot_id: 'bot_a',
    seq,
    offset_ms: seq * 1000,
    duration_ms: 900,
    speaker,
    speaker_id: speaker,
    text,
    language: null,
  });
  put(
    lakeKeys.recentFile('utterances', '2026-11-24', 'bot_a'),
    encodeLakeRows('utterances', [
      line(0, 'Ada', 'the pricing is fine'),
      line(1, 'Bo', 'Pricing again'),
      line(2, 'Ada', 'bye'),
    ]),
  );
  duck = await createDuckDbLakeEngine({ root });
});
afterAll(() => duck?.close());

/**
 * The questions as the route calls them: each runs one SQL text on the engine it is given (so an
 * engine that resumes answers with the resumed query's rows) and validates like lake-search.ts.
 */
const calls: Array<{ input: unknown; options?: LakeRunOptions }> = [];
const questions: Pick<LakeSearchFunctions, 'searchTranscripts' | 'lakeStats'> = {
  async searchTranscripts(engine, input, options) {
    calls.push({ input, ...(options && { options }) });
    if (input.words.length > 200) throw new LakeInputError('words must be 1-200 characters');
    const result = await engine.run(
      {
        sql: 'SELECT bot_id, day, offset_ms, speaker, text FROM utterances WHERE strpos(lower(text), lower(?)) > 0 ORDER BY offset_ms',
        params: [input.words],
      },
      options,
    );
    const page: TranscriptSearchPage = {
      hits: resultObjects(result).map((row) => ({
        bot_id: String(row.bot_id),
        day: String(row.day),
        started_at: null,
        offset_ms: Number(row.offset_ms),
        offset: '00:00:00',
        speaker: String(row.speaker),
        snippet: String(row.text),
      })),
      next_cursor: null,
      searched_through: null,
      engine: result.engine,
      bytes_scanned: result.bytesScanned,
      elapsed_ms: result.elapsedMs,
      queries: 1,
    };
    return page;
  },
  async lakeStats(engine, input, options) {
    calls.push({ input, ...(options && { options }) });
    const result = await engine.run(
      {
        sql: 'SELECT speaker, sum(duration_ms) AS talk_ms, count(*) AS utterances, count(DISTINCT bot_id) AS meetings FROM utterances GROUP BY speaker ORDER BY talk_ms DESC, speaker',
        params: [],
      },
      options,
    );
    const answer: StatsAnswer = {
      question: 'talk-time',
      rows: resultObjects(result).map((row) => ({
        speaker: String(row.speaker),
        talk_ms: Number(row.talk_ms),
        utterances: Number(row.utterances),
        meetings: Number(row.meetings),
      })),
      engine: result.engine,
      bytes_scanned: result.bytesScanned,
      elapsed_ms: result.elapsedMs,
      queries: 1,
    };
    return answer;
  },
};

function routeDeps(engine: LakeEngine = duck): { deps: LakeSearchRouteDependencies; metrics: RecordedMetric[] } {
  const { telemetry, metrics } = recordingTelemetry();
  calls.length = 0;
  return { deps: { engine, questions, telemetry, waitMs: 25_000 }, metrics };
}

const request = (
  routeKey: string,
  query: Record<string, string> = {},
  pathParameters?: Record<string, string>,
): LakeRouteRequest => ({
  routeKey,
  queryStringParameters: query,
  ...(pathParameters && { pathParameters }),
});

/** Athena as the route meets it: the first run outlasts the wait, the resume answers (here from DuckDB). */
function slowEngine(): LakeEngine & { resumed: string[] } {
  let last: LakeQuery | undefined;
  const resumed: string[] = [];
  return {
    resumed,
    async run(query) {
      last = query;
      throw new LakeQueryPendingError(QUERY_ID);
    },
    async resume(queryId, options) {
      resumed.push(queryId);
      if (last === undefined) throw new Error('nothing to resume');
      return duck.run(last, options);
    },
  };
}

describe('GET /search', () => {
  it('answers a page of hits from the lake with what it scanned, counted by question', async () => {
    const { deps, metrics } = routeDeps();
    const answer = await answerLakeRoute(
      request(LAKE_SEARCH_ROUTES.search, { q: 'PRICING', from: '2026-11-01', to: '2026-11-30', limit: '5' }),
      deps,
    );
    expect(answer.status).toBe(200);
    const page = answer.body as TranscriptSearchPage;
    expect(page.hits.map((h) => [h.bot_id, h.day, h.offset_ms, h.speaker])).toEqual([
      ['bot_a', '2026-11-24', 0, 'Ada'],
      ['bot_a', '2026-11-24', 1000, 'Bo'],
    ]);
    expect(page.bytes_scanned).toBeGreaterThan(0);
    expect(calls).toEqual([
      { input: { words: 'PRICING', from: '2026-11-01', to: '2026-11-30', limit: 5 }, options: { waitMs: 25_000 } },
    ]);
    expect(metrics).toEqual([{ name: 'LakeQueryBytesScanned', dimensions: { question: 'search' } }]);
  });

  it.each([
    [{}, /q \(the words to find\) is required/],
    [{ q: '   ' }, /q \(the words to find\) is required/],
    [{ q: 'pricing', form: '2026-01-01' }, /unknown parameter 'form'/],
    [{ q: 'pricing', limit: 'ten' }, /limit must be a whole number/],
    [{ q: 'pricing', limit: '-1' }, /limit must be a whole number/],
    [{ q: 'x'.repeat(201) }, /words must be 1-200 characters/],
  ])('refuses %j with a 400 in the house error shape, counted', async (query, reason) => {
    const { deps, metrics } = routeDeps();
    const answer = await answerLakeRoute(request(LAKE_SEARCH_ROUTES.search, query as Record<string, string>), deps);
    expect(answer.status).toBe(400);
    const body = apiErrorBody.parse(answer.body);
    expect(body.error.code).toBe('invalid-query');
    expect(body.error.message).toMatch(reason);
    expect(metrics).toEqual([{ name: 'LakeQueryRefused', dimensions: { reason: 'invalid-input' } }]);
  });

  it('answers 422 when the workgroup cutoff stopped the query, and names what to do', async () => {
    const cutoff: LakeEngine = {
      run: async () => {
        throw new LakeQueryFailedError('Query exhausted resources: bytes scanned limit', true);
      },
    };
    const { deps, metrics } = routeDeps(cutoff);
    const answer = await answerLakeRoute(request(LAKE_SEARCH_ROUTES.search, { q: 'pricing' }), deps);
    expect(answer.status).toBe(422);
    expect(apiErrorBody.parse(answer.body).error).toMatchObject({ code: 'scan-cutoff', message: /from and to/ });
    expect(metrics).toEqual([{ name: 'LakeQueryRefused', dimensions: { reason: 'cutoff' } }]);
  });
});

describe('GET /stats', () => {
  it('answers the question asked', async () => {
    const { deps, metrics } = routeDeps();
    const answer = await answerLakeRoute(request(LAKE_SEARCH_ROUTES.stats, { question: 'talk-time' }), deps);
    expect(answer.status).toBe(200);
    expect((answer.body as StatsAnswer).rows).toEqual([
      { speaker: 'Ada', talk_ms: 1800, utterances: 2, meetings: 1 },
      { speaker: 'Bo', talk_ms: 900, utterances: 1, meetings: 1 },
    ]);
    expect(calls[0]?.input).toEqual({ question: 'talk-time' });
    expect(metrics).toEqual([{ name: 'LakeQueryBytesScanned', dimensions: { question: 'talk-time' } }]);
  });

  it.each([
    [{}, /question must be one of talk-time, meetings-per-participant, meetings-per-day/],
    [{ question: 'salaries' }, /question must be one of/],
    [{ question: 'talk-time', q: 'pricing' }, /unknown parameter 'q'/],
  ])('refuses %j with a 400', async (query, reason) => {
    const { deps } = routeDeps();
    const answer = await answerLakeRoute(request(LAKE_SEARCH_ROUTES.stats, query as Record<string, string>), deps);
    expect(answer.status).toBe(400);
    expect(apiErrorBody.parse(answer.body).error.message).toMatch(reason);
  });
});

describe('a query that outlasts the wait', () => {
  it('is a 503 for a search whose first window outlasts the wait: a page is several queries, never resumed', async () => {
    const engine = slowEngine();
    const { deps, metrics } = routeDeps(engine);
    const answer = await answerLakeRoute(request(LAKE_SEARCH_ROUTES.search, { q: 'pricing', speaker: 'ada' }), deps);
    expect(answer.status).toBe(503);
    expect(apiErrorBody.parse(answer.body).error).toMatchObject({ code: 'query-timeout' });
    expect(apiErrorBody.parse(answer.body).error.message).toMatch(/narrow it with from and to/);
    expect(metrics).toEqual([{ name: 'LakeQueryRefused', dimensions: { reason: 'timeout' } }]);
    const resumed = await answerLakeRoute(
      request(LAKE_SEARCH_ROUTES.results, { q: 'pricing' }, { query_id: QUERY_ID }),
      deps,
    );
    expect(resumed.status).toBe(400);
    expect(engine.resumed).toEqual([]);
  });

  it('is answered 202 for a stats question, and the results route picks it up with the same parameters', async () => {
    const engine = slowEngine();
    const { deps, metrics } = routeDeps(engine);
    const pending = await answerLakeRoute(request(LAKE_SEARCH_ROUTES.stats, { question: 'talk-time' }), deps);
    expect(pending).toEqual({
      status: 202,
      body: {
        query_id: QUERY_ID,
        status: 'running',
        results_path: `/search/results/${QUERY_ID}?question=talk-time`,
      },
    });
    expect(metrics).toEqual([{ name: 'LakeQueryRefused', dimensions: { reason: 'timeout' } }]);
    const url = new URL((pending.body as { results_path: string }).results_path, 'https://api.example.org');
    const answer = await answerLakeRoute(
      request(LAKE_SEARCH_ROUTES.results, Object.fromEntries(url.searchParams), {
        query_id: url.pathname.split('/').at(-1) as string,
      }),
      deps,
    );
    expect(answer.status).toBe(200);
    expect(engine.resumed).toEqual([QUERY_ID]);
  });

  it('resumes a stats question when the parameters name one', async () => {
    const engine = slowEngine();
    const { deps } = routeDeps(engine);
    await answerLakeRoute(request(LAKE_SEARCH_ROUTES.stats, { question: 'talk-time' }), deps);
    const answer = await answerLakeRoute(
      request(LAKE_SEARCH_ROUTES.results, { question: 'talk-time' }, { query_id: QUERY_ID }),
      deps,
    );
    expect(answer.status).toBe(200);
    expect((answer.body as StatsAnswer).question).toBe('talk-time');
  });

  it.each([
    [{ query_id: 'not-a-query' }, { q: 'pricing' }, 400, /query_id must be the id a 202 answer gave/],
    [{ query_id: QUERY_ID }, { q: 'pricing', question: 'talk-time' }, 400, /not both/],
  ])('the results route refuses %j %j', async (path, query, status, reason) => {
    const { deps } = routeDeps(slowEngine());
    const answer = await answerLakeRoute(request(LAKE_SEARCH_ROUTES.results, query, path), deps);
    expect(answer.status).toBe(status);
    expect(apiErrorBody.parse(answer.body).error.message).toMatch(reason);
  });

  it('is unknown to an engine that never pends (DuckDB in local mode): 404', async () => {
    const { deps } = routeDeps(duck);
    const answer = await answerLakeRoute(
      request(LAKE_SEARCH_ROUTES.results, { question: 'talk-time' }, { query_id: QUERY_ID }),
      deps,
    );
    expect(answer.status).toBe(404);
    expect(apiErrorBody.parse(answer.body).error.code).toBe('unknown-query');
  });
});

describe('the lake search handler', () => {
  const event = (routeKey: string, query: Record<string, string>) =>
    ({
      routeKey,
      queryStringParameters: query,
      requestContext: { requestId: 'req-7' },
    }) as unknown as APIGatewayProxyEventV2;

  it('answers JSON, never cached, and a failure nobody expected as a bare 500 naming the request', async () => {
    const broken: LakeEngine = {
      run: async () => {
        throw new Error('socket hang up at 10.0.0.7');
      },
    };
    const { deps } = routeDeps(broken);
    const errors: unknown[] = [];
    const handler = createLakeSearchHandler({
      ...deps,
      telemetry: { ...deps.telemetry, log: { ...deps.telemetry.log, error: (...args) => void errors.push(args) } },
    });
    const failed = await handler(event(LAKE_SEARCH_ROUTES.search, { q: 'pricing' }));
    expect(failed.statusCode).toBe(500);
    expect(failed.body).not.toContain('10.0.0.7');
    expect(apiErrorBody.parse(JSON.parse(String(failed.body))).error.message).toContain('req-7');
    expect(errors).toHaveLength(1);

    const ok = await createLakeSearchHandler(routeDeps().deps)(
      event(LAKE_SEARCH_ROUTES.stats, { question: 'talk-time' }),
    );
    expect(ok).toMatchObject({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  });
});
