/**
 * The local Athena emulator (local/emulators/athena/) refuses what Athena refuses, in Athena's
 * words: unsigned requests, unknown operations and workgroups, a missing output location, tables
 * outside the context database, SQL the Trino grammar cannot read, a parameter count that does not match the `?`s, a query over the
 * workgroup's bytes-scanned cutoff, result pages over 1000 rows, results of a query that did not
 * succeed, unknown query ids. And it does what clients rely on: results as `<location><id>.csv`
 * and `.csv.metadata` in S3, the enforced workgroup location winning over the request's, pages
 * with the header row first, idempotent starts by ClientRequestToken.
 */
import {
  type AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  GetWorkGroupCommand,
  type QueryExecution,
  StartQueryExecutionCommand,
  type StartQueryExecutionCommandInput,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HeldEngine,
  LAKE_DATABASE,
  type LocalAthena,
  RESULTS_BUCKET,
  RESULTS_LOCATION,
  startLocalAthena,
  utterance,
} from '../fixtures/athena-lake';

let lake: LocalAthena | undefined;
afterEach(async () => {
  await lake?.stop();
  lake = undefined;
});

interface Refusal {
  name: string;
  message: string;
  athenaErrorCode?: string;
  status?: number;
}

async function refusal(call: Promise<unknown>): Promise<Refusal> {
  try {
    await call;
  } catch (error) {
    const e = error as Error & { AthenaErrorCode?: string; $metadata?: { httpStatusCode?: number } };
    return {
      name: e.name,
      message: e.message,
      ...(e.AthenaErrorCode === undefined ? {} : { athenaErrorCode: e.AthenaErrorCode }),
      status: e.$metadata?.httpStatusCode,
    };
  }
  throw new Error('the call was not refused');
}

const start = async (athena: AthenaClient, input: Partial<StartQueryExecutionCommandInput>): Promise<string> => {
  const { QueryExecutionId } = await athena.send(
    new StartQueryExecutionCommand({
      QueryString: 'SELECT 1 AS one',
      WorkGroup: 'lake',
      QueryExecutionContext: { Database: LAKE_DATABASE },
      ...input,
    }),
  );
  return QueryExecutionId as string;
};

/** Polls until the query has ended (no clock in the assertion: only the final state counts). */
async function ended(athena: AthenaClient, id: string): Promise<QueryExecution> {
  for (;;) {
    const { QueryExecution: execution } = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
    const state = execution?.Status?.State;
    if (state !== 'QUEUED' && state !== 'RUNNING') return execution as QueryExecution;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A signed-looking request sent by hand (the SDK always signs; these show what happens when a client does not). */
async function raw(endpoint: string, target: string | undefined, headers: Record<string, string>, body = '{}') {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      ...(target === undefined ? {} : { 'x-amz-target': target }),
      ...headers,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const SIGNED = {
  authorization:
    'AWS4-HMAC-SHA256 Credential=local/20261125/us-east-1/athena/aws4_request, SignedHeaders=host, Signature=ab12',
  'x-amz-date': '20261125T020000Z',
};

describe('the Athena emulator: the edge', () => {
  it('refuses a request without a SigV4 signature, or with an incomplete one', async () => {
    lake = await startLocalAthena();
    const endpoint = lake.emulator.endpoint;

    const unsigned = await raw(endpoint, 'AmazonAthena.GetWorkGroup', {}, '{"WorkGroup":"lake"}');
    const incomplete = await raw(endpoint, 'AmazonAthena.GetWorkGroup', {
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20261125/us-east-1/athena/aws4_request',
      'x-amz-date': SIGNED['x-amz-date'],
    });
    const undated = await raw(endpoint, 'AmazonAthena.GetWorkGroup', { authorization: SIGNED.authorization });
    const signed = await raw(endpoint, 'AmazonAthena.GetWorkGroup', SIGNED, '{"WorkGroup":"lake"}');

    expect(unsigned).toEqual({
      status: 400,
      body: { __type: 'MissingAuthenticationTokenException', Message: 'Missing Authentication Token' },
    });
    expect(incomplete.body).toEqual({
      __type: 'IncompleteSignatureException',
      Message:
        "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter.",
    });
    expect(undated.body.Message).toBe(
      "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    );
    expect(signed.status).toBe(200);
  });

  it('answers an operation it does not have as Athena does, with no message', async () => {
    lake = await startLocalAthena();

    const unknown = await raw(lake.emulator.endpoint, 'AmazonAthena.ListWorkGroups', SIGNED);
    const wrongCase = await raw(lake.emulator.endpoint, 'AmazonAthena.getWorkGroup', SIGNED);
    const noTarget = await raw(lake.emulator.endpoint, undefined, SIGNED);

    for (const answer of [unknown, wrongCase, noTarget]) {
      expect(answer).toEqual({ status: 400, body: { __type: 'UnknownOperationException' } });
    }
  });

  it('refuses a body that is not JSON', async () => {
    lake = await startLocalAthena();

    const answer = await raw(lake.emulator.endpoint, 'AmazonAthena.GetWorkGroup', SIGNED, '{"WorkGroup":');

    expect(answer).toEqual({ status: 400, body: { __type: 'SerializationException' } });
  });
});

describe('the Athena emulator: workgroups', () => {
  it('refuses a workgroup it was not given, named or left to the default primary', async () => {
    lake = await startLocalAthena();
    const notFound = {
      name: 'InvalidRequestException',
      message: 'WorkGroup is not found.',
      athenaErrorCode: 'INVALID_INPUT',
      status: 400,
    };

    expect(await refusal(start(lake.athena, { WorkGroup: 'other' }))).toEqual(notFound);
    expect(await refusal(start(lake.athena, { WorkGroup: undefined }))).toEqual(notFound);
    expect(await refusal(lake.athena.send(new GetWorkGroupCommand({ WorkGroup: 'other' })))).toEqual(notFound);
  });

  it('describes a workgroup with the configuration it was given', async () => {
    lake = await startLocalAthena({
      workGroups: {
        lake: {
          ResultConfiguration: { OutputLocation: RESULTS_LOCATION },
          EnforceWorkGroupConfiguration: true,
          BytesScannedCutoffPerQuery: 10_000_000_000,
        },
      },
    });

    const { WorkGroup: group } = await lake.athena.send(new GetWorkGroupCommand({ WorkGroup: 'lake' }));

    expect(group?.Name).toBe('lake');
    expect(group?.State).toBe('ENABLED');
    expect(group?.Configuration?.ResultConfiguration?.OutputLocation).toBe(RESULTS_LOCATION);
    expect(group?.Configuration?.EnforceWorkGroupConfiguration).toBe(true);
    expect(group?.Configuration?.BytesScannedCutoffPerQuery).toBe(10_000_000_000);
  });

  it('refuses a query with no output location from the workgroup or the request', async () => {
    lake = await startLocalAthena({ workGroups: { bare: {} } });

    expect(await refusal(start(lake.athena, { WorkGroup: 'bare' }))).toMatchObject({
      name: 'InvalidRequestException',
      message:
        'No output location provided. An output location is required either through the Workgroup result configuration setting or as an API input.',
    });
    expect(
      await refusal(start(lake.athena, { WorkGroup: 'bare', ResultConfiguration: { OutputLocation: 'bucket/x/' } })),
    ).toMatchObject({ message: 'outputLocation is not a valid S3 path.' });
  });

  it("writes the result to the enforced workgroup's location, whatever the request asks", async () => {
    lake = await startLocalAthena({
      workGroups: {
        lake: { ResultConfiguration: { OutputLocation: RESULTS_LOCATION }, EnforceWorkGroupConfiguration: true },
        open: { ResultConfiguration: { OutputLocation: RESULTS_LOCATION } },
      },
    });
    const elsewhere = `s3://${RESULTS_BUCKET}/elsewhere/`;

    const enforced = await ended(
      lake.athena,
      await start(lake.athena, { ResultConfiguration: { OutputLocation: elsewhere } }),
    );
    const open = await ended(
      lake.athena,
      await start(lake.athena, { WorkGroup: 'open', ResultConfiguration: { OutputLocation: elsewhere } }),
    );

    expect(enforced.ResultConfiguration?.OutputLocation).toBe(`${RESULTS_LOCATION}${enforced.QueryExecutionId}.csv`);
    expect(open.ResultConfiguration?.OutputLocation).toBe(`${elsewhere}${open.QueryExecutionId}.csv`);
  });
});

describe('the Athena emulator: queries', () => {
  it('writes each result as <OutputLocation><id>.csv (every value quoted, NULL empty) and .csv.metadata', async () => {
    lake = await startLocalAthena();
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [
      utterance('bot-a', 0, 'Ana', 'she said "yes", then left'),
      { ...utterance('bot-a', 1, 'Ben', 'line two'), language: 'en' },
    ]);

    const id = await start(lake.athena, {
      QueryString: 'SELECT seq, text, language FROM utterances ORDER BY seq',
    });
    const execution = await ended(lake.athena, id);
    const csv = await lake.s3.send(new GetObjectCommand({ Bucket: RESULTS_BUCKET, Key: `lake-results/${id}.csv` }));
    const metadata = await lake.s3.send(
      new HeadObjectCommand({ Bucket: RESULTS_BUCKET, Key: `lake-results/${id}.csv.metadata` }),
    );

    expect(execution.Status?.State).toBe('SUCCEEDED');
    expect(await csv.Body?.transformToString()).toBe(
      '"seq","text","language"\n"0","she said ""yes"", then left",\n"1","line two","en"\n',
    );
    expect(metadata.ContentLength).toBeGreaterThan(0);
    expect(execution.Statistics?.DataScannedInBytes).toBeGreaterThan(0);
  });

  it('reads results back from the result file: NULL stays NULL, and a deleted file has no results', async () => {
    lake = await startLocalAthena();
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [
      utterance('bot-a', 0, 'Ana', 'a "quoted", line\nand a second'),
      { ...utterance('bot-a', 1, 'Ben', ''), language: 'en' },
    ]);
    const id = await start(lake.athena, { QueryString: 'SELECT seq, text, language FROM utterances ORDER BY seq' });
    await ended(lake.athena, id);

    const page = await lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id }));
    await lake.s3.send(new DeleteObjectCommand({ Bucket: RESULTS_BUCKET, Key: `lake-results/${id}.csv` }));
    const afterDelete = await refusal(lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id })));

    expect(page.ResultSet?.Rows?.map((row) => row.Data?.map((datum) => datum.VarCharValue ?? null))).toEqual([
      ['seq', 'text', 'language'],
      ['0', 'a "quoted", line\nand a second', null],
      ['1', '', 'en'],
    ]);
    expect(afterDelete).toMatchObject({ message: 'Could not find results', athenaErrorCode: 'RESULT_NOT_FOUND' });
  });

  it('fails an unqualified table without a database context, as a table of the default database', async () => {
    lake = await startLocalAthena();
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [utterance('bot-a', 0, 'Ana', 'hello')]);

    const unqualified = await ended(
      lake.athena,
      await start(lake.athena, { QueryString: 'SELECT * FROM utterances', QueryExecutionContext: undefined }),
    );
    const qualified = await ended(
      lake.athena,
      await start(lake.athena, {
        QueryString: `SELECT text FROM "${LAKE_DATABASE}".utterances`,
        QueryExecutionContext: undefined,
      }),
    );
    const otherDatabase = await ended(
      lake.athena,
      await start(lake.athena, { QueryString: 'SELECT count(*)\nFROM  sales.orders' }),
    );

    expect(unqualified.Status?.State).toBe('FAILED');
    expect(unqualified.Status?.StateChangeReason).toBe(
      "TABLE_NOT_FOUND: line 1:15: Table 'awsdatacatalog.default.utterances' does not exist",
    );
    expect(unqualified.Status?.AthenaError).toMatchObject({ ErrorCategory: 2, ErrorType: 1301, Retryable: false });
    expect(qualified.Status?.State).toBe('SUCCEEDED');
    expect(otherDatabase.Status?.StateChangeReason).toBe(
      "TABLE_NOT_FOUND: line 2:7: Table 'awsdatacatalog.sales.orders' does not exist",
    );
  });

  it('refuses SQL the Trino grammar cannot read, or more than one statement, before any query exists', async () => {
    lake = await startLocalAthena();

    // DuckDB would run this cast; Athena cannot parse it.
    const duckdbOnly = await refusal(start(lake.athena, { QueryString: 'SELECT text::varchar FROM utterances' }));
    const twoStatements = await refusal(start(lake.athena, { QueryString: 'SELECT 1; DROP TABLE utterances' }));

    expect(duckdbOnly).toMatchObject({
      name: 'InvalidRequestException',
      athenaErrorCode: 'MALFORMED_QUERY',
      status: 400,
    });
    expect(duckdbOnly.message).toMatch(/^line 1:12: /);
    expect(twoStatements).toMatchObject({
      message: 'Only one sql statement is allowed. Got: SELECT 1; DROP TABLE utterances',
      athenaErrorCode: 'MALFORMED_QUERY',
    });
  });

  it('fails a query whose ExecutionParameters do not match its ? count, and ignores them without any ?', async () => {
    lake = await startLocalAthena();

    const tooFew = await ended(
      lake.athena,
      await start(lake.athena, { QueryString: "SELECT ? AS a, '?' AS b -- ?\n, ? AS c", ExecutionParameters: ["'x'"] }),
    );
    const none = await ended(lake.athena, await start(lake.athena, { ExecutionParameters: ['1', '2'] }));

    expect(tooFew.Status?.State).toBe('FAILED');
    expect(tooFew.Status?.StateChangeReason).toBe('Incorrect number of parameters: expected 2 but found 1');
    expect(tooFew.Status?.AthenaError).toEqual({
      ErrorCategory: 2,
      ErrorType: 1006,
      Retryable: false,
      ErrorMessage: 'Incorrect number of parameters: expected 2 but found 1',
    });
    expect(none.Status?.State).toBe('SUCCEEDED');
  });

  it('binds each parameter as the literal it is: a quoted string, a number, or bare text as a string', async () => {
    lake = await startLocalAthena();

    const id = await start(lake.athena, {
      QueryString: 'SELECT ? AS quoted, ? AS number, ? AS bare',
      ExecutionParameters: ["'it''s'", '42', 'plain words'],
    });
    await ended(lake.athena, id);
    const page = await lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id }));

    expect(page.ResultSet?.Rows?.[1]?.Data?.map((datum) => datum.VarCharValue)).toEqual(["it's", '42', 'plain words']);
    expect(page.ResultSet?.ResultSetMetadata?.ColumnInfo?.map((column) => column.Type)).toEqual([
      'varchar',
      'bigint',
      'varchar',
    ]);
  });

  it('cancels a query that scans more than the cutoff, reporting the cutoff as what it scanned', async () => {
    lake = await startLocalAthena({
      workGroups: {
        lake: {
          ResultConfiguration: { OutputLocation: RESULTS_LOCATION },
          EnforceWorkGroupConfiguration: true,
          BytesScannedCutoffPerQuery: 100,
        },
      },
    });
    lake.writeRecent('utterances', '2026-11-02', 'bot-a', [utterance('bot-a', 0, 'Ana', 'more than a hundred bytes')]);

    const id = await start(lake.athena, { QueryString: 'SELECT count(*) FROM utterances' });
    const execution = await ended(lake.athena, id);

    expect(execution.Status?.State).toBe('CANCELLED');
    expect(execution.Status?.StateChangeReason).toBe('Bytes scanned limit was exceeded');
    expect(execution.Status?.AthenaError).toBeUndefined();
    expect(execution.Statistics?.DataScannedInBytes).toBe(100);
    expect(await refusal(lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id })))).toMatchObject({
      message: 'Could not find results',
      athenaErrorCode: 'RESULT_NOT_FOUND',
    });
  });

  it('keeps a query RUNNING while the engine works, refuses its results until then, and stops it', async () => {
    let held: HeldEngine | undefined;
    lake = await startLocalAthena({
      engine: (duckdb) => {
        held = new HeldEngine(duckdb);
        return held;
      },
    });
    const id = await start(lake.athena, {});
    for (;;) {
      const { QueryExecution: e } = await lake.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
      if (e?.Status?.State === 'RUNNING') break;
    }

    const early = await refusal(lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id })));
    await lake.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id }));
    const stopped = await ended(lake.athena, id);
    // Stopping a query that has ended changes nothing and is not an error.
    await lake.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id }));
    held?.release();

    expect(early).toEqual({
      name: 'InvalidRequestException',
      message: 'Query has not yet finished. Current state: RUNNING',
      athenaErrorCode: 'INVALID_QUERY_EXECUTION_STATE',
      status: 400,
    });
    expect(stopped.Status?.State).toBe('CANCELLED');
    expect(stopped.Status?.StateChangeReason).toBe('Query cancelled by user');
    expect(held?.signals[0]?.aborted).toBe(true);
    expect((await ended(lake.athena, id)).Status?.State).toBe('CANCELLED');
  });

  it('refuses the results of a failed query and any unknown query id', async () => {
    lake = await startLocalAthena();
    const failed = await start(lake.athena, { QueryString: 'SELECT no_such_column FROM utterances' });
    await ended(lake.athena, failed);
    const unknown = '00000000-0000-0000-0000-000000000000';

    expect(await refusal(lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: failed })))).toMatchObject({
      message: 'Query did not finish successfully. Final query state: FAILED',
      athenaErrorCode: 'INVALID_QUERY_EXECUTION_STATE',
    });
    for (const call of [
      lake.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: unknown })),
      lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: unknown })),
      lake.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: unknown })),
    ]) {
      expect(await refusal(call)).toEqual({
        name: 'InvalidRequestException',
        message: `QueryExecution ${unknown} was not found`,
        athenaErrorCode: 'QUERY_EXECUTION_NOT_FOUND',
        status: 400,
      });
    }
  });

  it('returns the same query for a repeated ClientRequestToken, and refuses the token for another query', async () => {
    lake = await startLocalAthena();
    const token = 'a-client-request-token-of-32-chars-or-more';

    const first = await start(lake.athena, { ClientRequestToken: token });
    const again = await start(lake.athena, { ClientRequestToken: token });
    const other = await refusal(start(lake.athena, { ClientRequestToken: token, QueryString: 'SELECT 2' }));

    expect(again).toBe(first);
    expect(other).toMatchObject({
      message: 'Idempotent parameters do not match',
      athenaErrorCode: 'IDEMPOTENT_PARAMETER_MISMATCH',
    });
  });
});

describe('the Athena emulator: result pages', () => {
  it('pages at most 1000 rows, the header first on the first page only, and refuses MaxResults over 1000', async () => {
    lake = await startLocalAthena();
    lake.writeRecent(
      'utterances',
      '2026-11-02',
      'bot-a',
      Array.from({ length: 1999 }, (_, seq) => utterance('bot-a', seq, 'Ana', `line ${seq}`)),
    );
    const id = await start(lake.athena, { QueryString: 'SELECT seq FROM utterances ORDER BY seq' });
    await ended(lake.athena, id);
    const page = (NextToken?: string) =>
      lake?.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, ...(NextToken ? { NextToken } : {}) }));

    const first = await page();
    const second = await page(first?.NextToken);
    // 1 header + 1999 rows fill two pages exactly: a full page always names a next one, which is empty.
    const third = await page(second?.NextToken);
    const tooLarge = await refusal(
      lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, MaxResults: 1001 })),
    );
    const forged = await refusal(
      lake.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: 'x' })),
    );

    const values = (rows: typeof first) => rows?.ResultSet?.Rows?.map((row) => row.Data?.[0]?.VarCharValue);
    expect(values(first)?.slice(0, 2)).toEqual(['seq', '0']);
    expect(values(first)).toHaveLength(1000);
    expect(values(second)?.[0]).toBe('999');
    expect(values(second)).toHaveLength(1000);
    expect(values(third)).toEqual([]);
    expect(third?.NextToken).toBeUndefined();
    expect(tooLarge).toMatchObject({
      name: 'InvalidRequestException',
      message: 'MaxResults is more than maximum allowed length 1000',
      athenaErrorCode: 'INVALID_INPUT',
    });
    expect(forged.message).toBe('Malformed nextPageToken x');
  });
});
