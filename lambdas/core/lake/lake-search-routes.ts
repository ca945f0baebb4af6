/**
 * The read API's lake routes, Lambda-free: transcript search and stats over every archived meeting,
 * for systems that have IAM permission to invoke the API but none on Athena.
 *
 *   GET /search?q=&from=&to=&speaker=&limit=&cursor=      a page of hits, newest first
 *   GET /stats?question=&from=&to=&limit=                 talk time, meetings per participant or per day
 *   GET /search/results/{query_id}?<the same parameters>  the answer of a query that outlasted the wait
 *
 * The HTTP API gives a function 30 s: a question waits `waitMs` (~25 s) and, when Athena is still
 * running it, answers 202 with the query's id and the path to ask again; the query goes on, and
 * the results route picks it up (shaped by the same parameters, which is why they are repeated).
 * Every refusal is a 4xx in the house error shape, counted by reason.
 */

import { type ApiErrorBody, apiError } from '../api-error';
import { METRICS, type Telemetry } from '../telemetry';
import type { LakeEngine, LakeRunOptions } from './lake-engine';
import { LakeQueryFailedError, LakeQueryPendingError } from './lake-engine';
import {
  LakeInputError,
  type LakeSearchFunctions,
  STATS_QUESTIONS,
  type StatsInput,
  type StatsQuestion,
  type TranscriptSearchInput,
} from './lake-questions-contract';

export const LAKE_SEARCH_ROUTES = {
  search: 'GET /search',
  stats: 'GET /stats',
  results: 'GET /search/results/{query_id}',
} as const;

/** Why a lake route refused or stopped a question: the `reason` of LakeQueryRefused. */
export const LAKE_ROUTE_REFUSALS = ['invalid-input', 'cutoff', 'failed', 'timeout'] as const;
export type LakeRouteRefusal = (typeof LAKE_ROUTE_REFUSALS)[number];

export interface LakeSearchRouteDependencies {
  /** Athena in AWS; DuckDB (which never pends) in local mode. */
  engine: LakeEngine;
  questions: Pick<LakeSearchFunctions, 'searchTranscripts' | 'lakeStats'>;
  telemetry: Telemetry;
  waitMs: number;
}

export interface LakeRouteRequest {
  routeKey: string;
  pathParameters?: Readonly<Record<string, string | undefined>>;
  queryStringParameters?: Readonly<Record<string, string | undefined>>;
}

export interface LakeRouteAnswer {
  status: number;
  body: unknown;
}

/** The parameters each question takes; any other is refused (a typo must not widen the search to all time). */
const SEARCH_PARAMS = ['q', 'from', 'to', 'speaker', 'limit', 'cursor'] as const;
const STATS_PARAMS = ['question', 'from', 'to', 'limit'] as const;

/** Athena's query execution ids are UUIDs; anything else never reaches it. */
const QUERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class RouteRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly reason: LakeRouteRefusal | undefined,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new RouteRefusal(400, 'invalid-query', message, 'invalid-input');

type Params = Readonly<Record<string, string | undefined>>;

function onlyParams(params: Params, allowed: readonly string[]): void {
  const unknown = Object.keys(params).filter((name) => params[name] !== undefined && !allowed.includes(name));
  if (unknown.length > 0)
    throw invalid(
      `unknown parameter ${unknown.map((name) => `'${name}'`).join(', ')}; this route takes ${allowed.join(', ')}`,
    );
}

function limitOf(params: Params): number | undefined {
  const raw = params.limit;
  if (raw === undefined) return undefined;
  if (!/^\d{1,6}$/.test(raw)) throw invalid(`limit must be a whole number (given '${raw.slice(0, 20)}')`);
  return Number(raw);
}

/** Only the parameters given (an unset `from` means all time, not an empty string). */
const given = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

function searchInput(params: Params): TranscriptSearchInput {
  onlyParams(params, SEARCH_PARAMS);
  if (params.q === undefined || params.q.trim() === '') throw invalid('q (the words to find) is required');
  return given({
    words: params.q,
    from: params.from,
    to: params.to,
    speaker: params.speaker,
    limit: limitOf(params),
    cursor: params.cursor,
  }) as TranscriptSearchInput;
}

function statsInput(params: Params): StatsInput {
  onlyParams(params, STATS_PARAMS);
  const question = params.question as StatsQuestion | undefined;
  if (question === undefined || !STATS_QUESTIONS.includes(question))
    throw invalid(`question must be one of ${STATS_QUESTIONS.join(', ')}`);
  return given({ question, from: params.from, to: params.to, limit: limitOf(params) }) as StatsInput;
}

/** An engine whose next run picks up a query already started instead of starting one. */
function resuming(engine: LakeEngine, queryId: string): LakeEngine {
  const { resume } = engine;
  if (resume === undefined)
    throw new RouteRefusal(
      404,
      'unknown-query',
      `no query ${queryId}: this engine answers every query at once`,
      undefined,
    );
  // The question's own SQL and parameters travel with the id: another query's id is refused.
  return { run: (query, options) => resume.call(engine, queryId, { ...options, expected: query }) };
}

type Question = { kind: 'search'; input: TranscriptSearchInput } | { kind: 'stats'; input: StatsInput };

function questionOf(request: LakeRouteRequest): { question: Question; queryId?: string } {
  const params = request.queryStringParameters ?? {};
  switch (request.routeKey) {
    case LAKE_SEARCH_ROUTES.search:
      return { question: { kind: 'search', input: searchInput(params) } };
    case LAKE_SEARCH_ROUTES.stats:
      return { question: { kind: 'stats', input: statsInput(params) } };
    case LAKE_SEARCH_ROUTES.results: {
      const queryId = request.pathParameters?.query_id ?? '';
      if (!QUERY_ID.test(queryId)) throw invalid('query_id must be the id a 202 answer gave');
      if (params.q !== undefined && params.question !== undefined)
        throw invalid('give q (a search) or question (stats), not both');
      // Only a stats question is one query: a search page is several (its day windows), and one that
      // cannot finish its first window within the wait is answered 503, never resumed.
      if (params.question === undefined)
        throw invalid('the results route answers stats questions (question=...); ask a search again');
      return { question: { kind: 'stats', input: statsInput(params) }, queryId };
    }
    default:
      throw new RouteRefusal(404, 'no-route', `no lake route ${request.routeKey}`, undefined);
  }
}

/** The `question` dimension of LakeQueryBytesScanned: `search` or the stats question. */
const metricQuestion = (question: Question): string =>
  question.kind === 'search' ? 'search' : question.input.question;

/** Where to ask again for a query that outlasted the wait: the results route with the same parameters. */
function resultsPath(queryId: string, params: Params): string {
  const query = new URLSearchParams(
    Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  return `/search/results/${queryId}${query === '' ? '' : `?${query}`}`;
}

/** Answers one lake route. Refusals are 4xx with a reason; unexpected failures are thrown (the adapter answers 500). */
export async function answerLakeRoute(
  request: LakeRouteRequest,
  deps: LakeSearchRouteDependencies,
): Promise<LakeRouteAnswer> {
  const refused = (reason: LakeRouteRefusal) => deps.telemetry.metrics.emit(METRICS.lakeQueryRefused, 1, { reason });
  try {
    const { question, queryId } = questionOf(request);
    const engine = queryId === undefined ? deps.engine : resuming(deps.engine, queryId);
    const options: LakeRunOptions = { waitMs: deps.waitMs };
    const answer =
      question.kind === 'search'
        ? await deps.questions.searchTranscripts(engine, question.input, options)
        : await deps.questions.lakeStats(engine, question.input, options);
    deps.telemetry.metrics.emit(METRICS.lakeQueryBytesScanned, answer.bytes_scanned, {
      question: metricQuestion(question),
    });
    return { status: 200, body: answer };
  } catch (failure) {
    if (failure instanceof LakeQueryPendingError && request.routeKey === LAKE_SEARCH_ROUTES.search) {
      refused('timeout');
      return {
        status: 503,
        body: apiError(
          'query-timeout',
          `no window of days finished within ${Math.round(deps.waitMs / 1000)} s: narrow it with from and to, then ask again`,
        ),
      };
    }
    if (failure instanceof LakeQueryPendingError) {
      refused('timeout');
      const params = request.queryStringParameters ?? {};
      return {
        status: 202,
        body: { query_id: failure.queryId, status: 'running', results_path: resultsPath(failure.queryId, params) },
      };
    }
    const refusal = refusalOf(failure);
    if (refusal === undefined) throw failure;
    if (refusal.reason !== undefined) refused(refusal.reason);
    return { status: refusal.status, body: apiError(refusal.code, refusal.message) satisfies ApiErrorBody };
  }
}

function refusalOf(failure: unknown): RouteRefusal | undefined {
  if (failure instanceof RouteRefusal) return failure;
  if (failure instanceof LakeInputError) return invalid(failure.message);
  if (failure instanceof LakeQueryFailedError)
    return failure.cutoff
      ? new RouteRefusal(
          422,
          'scan-cutoff',
          'the query would read more than the lake allows one query to scan: narrow it with from and to',
          'cutoff',
        )
      : new RouteRefusal(422, 'query-failed', failure.message, 'failed');
  return undefined;
}
