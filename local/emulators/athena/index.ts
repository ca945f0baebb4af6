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
import { createServer, type IncomingMessage } from 'node:http';
import type { WorkGroupConfiguration } from '@aws-sdk/client-athena';
import type { S3Client } from '@aws-sdk/client-s3';
import type { LakeEngine } from '../../../lambdas/core/lake/lake-engine';
import { AthenaError } from './errors';
import { Executions } from './executions';
import { type Body, OPERATIONS, type OperationContext } from './operations';

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

const TARGET_PREFIX = 'AmazonAthena.';

function requireSignature(request: IncomingMessage): void {
  const authorization = request.headers.authorization;
  if (authorization === undefined) {
    throw new AthenaError('MissingAuthenticationTokenException', 'Missing Authentication Token');
  }
  const missing = ['Credential', 'Signature', 'SignedHeaders'].filter(
    (part) => !new RegExp(`(?:^AWS4-HMAC-SHA256 |,\\s*)${part}=[^,\\s]+`).test(authorization),
  );
  if (!authorization.startsWith('AWS4-HMAC-SHA256 ') || missing.length > 0) {
    throw new AthenaError(
      'IncompleteSignatureException',
      missing.map((part) => `Authorization header requires '${part}' parameter.`).join(' ') ||
        `Unsupported authorization type: ${authorization.split(' ')[0]}`,
    );
  }
  if (request.headers['x-amz-date'] === undefined && request.headers.date === undefined) {
    throw new AthenaError(
      'IncompleteSignatureException',
      "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    );
  }
}

async function readBody(request: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new AthenaError('SerializationException', '');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AthenaError(
      'SerializationException',
      Array.isArray(body) ? 'Start of list found where not expected' : '',
    );
  }
  return body as Body;
}

async function answer(context: OperationContext, request: IncomingMessage): Promise<Body> {
  const target = request.headers['x-amz-target'];
  const operation =
    request.method === 'POST' && typeof target === 'string' && target.startsWith(TARGET_PREFIX)
      ? OPERATIONS[target.slice(TARGET_PREFIX.length)]
      : undefined;
  requireSignature(request);
  if (operation === undefined) throw new AthenaError('UnknownOperationException', '');
  return operation(context, await readBody(request));
}

export async function startAthenaEmulator(options: AthenaEmulatorOptions): Promise<AthenaEmulator> {
  const executions = new Executions({
    engine: options.engine,
    s3: options.s3,
    database: options.database ?? 'meetings_lake',
  });
  const context: OperationContext = { executions, workGroups: options.workGroups };
  const server = createServer((request, response) => {
    answer(context, request)
      .then(
        (body) => ({ status: 200, body }),
        (error: unknown) => {
          // Anything but an AthenaError is a bug here: answered as Athena's InternalServerException.
          const refusal =
            error instanceof AthenaError
              ? error
              : new AthenaError('InternalServerException', `emulator failure: ${String(error)}`, undefined, 500);
          return { status: refusal.status, body: refusal.body() };
        },
      )
      .then(({ status, body }) => {
        const payload = JSON.stringify(body);
        response.writeHead(status, {
          'content-type': 'application/x-amz-json-1.1',
          'content-length': Buffer.byteLength(payload),
          'x-amzn-requestid': crypto.randomUUID(),
        });
        response.end(payload);
      })
      .catch(() => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the Athena emulator did not report a TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    async close() {
      await executions.settle();
      await new Promise<void>((resolve, reject) => {
        server.closeIdleConnections();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
