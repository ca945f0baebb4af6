/**
 * The five operations, over a parsed JSON body: StartQueryExecution, GetQueryExecution,
 * GetQueryResults, StopQueryExecution and GetWorkGroup, each refusing what Athena refuses, in
 * Athena's words.
 */
import type { WorkGroupConfiguration } from '@aws-sdk/client-athena';
import { invalidRequest, missingMember, workGroupNotFound } from './errors';
import { athenaError, type Execution, type Executions, s3Location } from './executions';
import { columnInfo, MAX_PAGE_ROWS, resultPage } from './results';
import { requireTrinoStatement } from './trino-syntax';

export type Body = Record<string, unknown>;

export interface OperationContext {
  executions: Executions;
  workGroups: Readonly<Record<string, WorkGroupConfiguration>>;
}

/** Queries run in this workgroup when the request names none, as in every Athena account. */
const DEFAULT_WORK_GROUP = 'primary';

const text = (body: Body, member: string): string | undefined => {
  const value = body[member];
  return typeof value === 'string' ? value : undefined;
};

const required = (body: Body, member: string): string => {
  const value = text(body, member);
  if (value === undefined) throw missingMember(member.charAt(0).toLowerCase() + member.slice(1));
  return value;
};

const nested = (body: Body, member: string): Body =>
  typeof body[member] === 'object' && body[member] !== null ? (body[member] as Body) : {};

function workGroup(context: OperationContext, name: string): WorkGroupConfiguration {
  const configuration = context.workGroups[name];
  if (configuration === undefined) throw workGroupNotFound();
  return configuration;
}

async function startQueryExecution(context: OperationContext, body: Body): Promise<Body> {
  const query = required(body, 'QueryString');
  const name = text(body, 'WorkGroup') ?? DEFAULT_WORK_GROUP;
  const configuration = workGroup(context, name);
  const requested = text(nested(body, 'ResultConfiguration'), 'OutputLocation');
  const enforced = configuration.EnforceWorkGroupConfiguration === true;
  const location = enforced
    ? (configuration.ResultConfiguration?.OutputLocation ?? requested)
    : (requested ?? configuration.ResultConfiguration?.OutputLocation);
  if (location === undefined) {
    throw invalidRequest(
      'No output location provided. An output location is required either through the Workgroup result configuration setting or as an API input.',
    );
  }
  s3Location(location);
  await requireTrinoStatement(query);
  const params = Array.isArray(body.ExecutionParameters)
    ? body.ExecutionParameters.filter((value): value is string => typeof value === 'string')
    : [];
  const id = context.executions.start({
    query,
    params,
    workGroup: name,
    database: text(nested(body, 'QueryExecutionContext'), 'Database'),
    outputLocation: location.endsWith('/') ? location : `${location}/`,
    cutoffBytes: configuration.BytesScannedCutoffPerQuery,
    token: text(body, 'ClientRequestToken'),
  });
  return { QueryExecutionId: id };
}

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);

function describe(execution: Execution): Body {
  const queued = (execution.startedAt ?? execution.completedAt ?? Date.now()) - execution.submittedAt;
  const total = (execution.completedAt ?? Date.now()) - execution.submittedAt;
  return {
    QueryExecutionId: execution.id,
    Query: execution.query,
    ...(execution.params.length === 0 ? {} : { ExecutionParameters: execution.params }),
    StatementType: 'DML',
    ResultConfiguration: { OutputLocation: execution.outputLocation },
    ...(execution.database === undefined ? {} : { QueryExecutionContext: { Database: execution.database } }),
    Status: {
      State: execution.state,
      ...(execution.reason === undefined ? {} : { StateChangeReason: execution.reason }),
      SubmissionDateTime: seconds(execution.submittedAt),
      ...(execution.completedAt === undefined ? {} : { CompletionDateTime: seconds(execution.completedAt) }),
      ...(athenaError(execution) === undefined ? {} : { AthenaError: athenaError(execution) }),
    },
    Statistics: {
      DataScannedInBytes: execution.bytesScanned,
      EngineExecutionTimeInMillis: Math.max(0, total - queued),
      QueryQueueTimeInMillis: queued,
      TotalExecutionTimeInMillis: total,
    },
    WorkGroup: execution.workGroup,
    EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
  };
}

async function getQueryResults(context: OperationContext, body: Body): Promise<Body> {
  const id = required(body, 'QueryExecutionId');
  const token = text(body, 'NextToken');
  const maxResults = body.MaxResults;
  if (token === '') {
    throw invalidRequest(
      "1 validation error detected: Value '' at 'nextToken' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  }
  if (typeof maxResults === 'number' && maxResults < 1) {
    throw invalidRequest(
      `1 validation error detected: Value '${maxResults}' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1`,
    );
  }
  const execution = context.executions.get(id);
  if (typeof maxResults === 'number' && maxResults > MAX_PAGE_ROWS) {
    throw invalidRequest(`MaxResults is more than maximum allowed length ${MAX_PAGE_ROWS}`);
  }
  if (execution.state === 'QUEUED' || execution.state === 'RUNNING') {
    throw invalidRequest(
      `Query has not yet finished. Current state: ${execution.state}`,
      'INVALID_QUERY_EXECUTION_STATE',
    );
  }
  if (execution.state === 'FAILED') {
    throw invalidRequest(
      'Query did not finish successfully. Final query state: FAILED',
      'INVALID_QUERY_EXECUTION_STATE',
    );
  }
  const result = execution.result;
  // Read from the result file, as Athena reads it: a file deleted since (erasure, expiry) has no results.
  const rows = result === undefined ? undefined : await context.executions.resultRows(execution);
  if (result === undefined || rows === undefined) throw invalidRequest('Could not find results', 'RESULT_NOT_FOUND');
  const offset = token === undefined ? 0 : pageOffset(token, rows.length);
  const page = resultPage(rows, offset, typeof maxResults === 'number' ? maxResults : MAX_PAGE_ROWS);
  return {
    UpdateCount: 0,
    ResultSet: { Rows: page.rows, ResultSetMetadata: { ColumnInfo: columnInfo(result) } },
    ...(page.next === undefined ? {} : { NextToken: pageToken(id, page.next) }),
  };
}

/** Tokens are opaque to clients; this one carries the query and the offset. */
const pageToken = (id: string, offset: number) => Buffer.from(`${id}:${offset}`).toString('base64url');

function pageOffset(token: string, length: number): number {
  const match = /^[^:]+:(\d+)$/.exec(Buffer.from(token, 'base64url').toString());
  const offset = match === null ? Number.NaN : Number(match[1]);
  if (!(offset >= 0 && offset <= length)) throw invalidRequest(`Malformed nextPageToken ${token}`);
  return offset;
}

function getWorkGroup(context: OperationContext, body: Body): Body {
  const name = required(body, 'WorkGroup');
  const configuration = workGroup(context, name);
  return {
    WorkGroup: {
      Name: name,
      State: 'ENABLED',
      Configuration: {
        EnforceWorkGroupConfiguration: false,
        PublishCloudWatchMetricsEnabled: false,
        RequesterPaysEnabled: false,
        EnableMinimumEncryptionConfiguration: false,
        EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
        ...configuration,
      },
    },
  };
}

export const OPERATIONS: Record<string, (context: OperationContext, body: Body) => Body | Promise<Body>> = {
  StartQueryExecution: startQueryExecution,
  GetQueryExecution: (context, body) => ({
    QueryExecution: describe(context.executions.get(required(body, 'QueryExecutionId'))),
  }),
  GetQueryResults: getQueryResults,
  StopQueryExecution: (context, body) => {
    context.executions.stop(required(body, 'QueryExecutionId'));
    return {};
  },
  GetWorkGroup: getWorkGroup,
};
