/**
 * A local Amazon Athena on 127.0.0.1, strict like the service, over a LakeEngine (in local mode
 * DuckDB over the lake's files): the AWS SDK's AthenaClient, given its endpoint, runs against it
 * unchanged. It speaks Athena's JSON 1.1 protocol (POST, `x-amz-target: AmazonAthena.<Operation>`),
 * insists on a SigV4 Authorization header as AWS does (its signature is not checked, its shape
 * is), knows only the workgroups it is started with and one database, and writes each result to
 * the workgroup's output location through the S3 client it is given.
 *
 * Implemented: StartQueryExecution, GetQueryExecution, GetQueryResults, StopQueryExecution,
 * GetWorkGroup; any other operation is UnknownOperationException. See operations.ts and
 * executions.ts for what each refuses, and docs/development.md for where it differs from Athena.
 */
import type { WorkGroupConfiguration } from '@aws-sdk/client-athena';
import type { S3Client } from '@aws-sdk/client-s3';
import type { LakeEngine } from '../../../lambdas/core/lake/lake-engine';
import { startAwsJsonServer } from '../aws-json/server';
import { Executions } from './executions';
import { OPERATIONS, type OperationContext } from './operations';

export interface AthenaEmulatorOptions {
  /** Runs each query's SQL (`?` parameters bound from ExecutionParameters). */
  engine: LakeEngine;
  /** Where results are written: the bucket of each workgroup's output location. */
  s3: S3Client;
  /** Workgroups by name, with the configuration Athena would hold for them. */
  workGroups: Record<string, WorkGroupConfiguration>;
  /** The Glue database the engine's tables belong to (default `meetings_lake`). */
  database?: string;
  port?: number;
}

export interface AthenaEmulator {
  endpoint: string;
  /** Stops the queries still running, then the server. */
  close(): Promise<void>;
}

export async function startAthenaEmulator(options: AthenaEmulatorOptions): Promise<AthenaEmulator> {
  const executions = new Executions({
    engine: options.engine,
    s3: options.s3,
    database: options.database ?? 'meetings_lake',
  });
  const context: OperationContext = { executions, workGroups: options.workGroups };
  const server = await startAwsJsonServer({
    targetPrefix: 'AmazonAthena',
    jsonVersion: '1.1',
    operations: Object.fromEntries(
      Object.entries(OPERATIONS).map(([name, operation]) => [name, (body) => operation(context, body)]),
    ),
    // Anything but an AthenaError is a bug here: answered as Athena's InternalServerException.
    internalErrorType: 'InternalServerException',
    beforeClose: () => executions.settle(),
    ...(options.port !== undefined && { port: options.port }),
  });
  return { endpoint: server.endpoint, close: () => server.close() };
}
