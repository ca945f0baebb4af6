/**
 * A local endpoint for one AWS service over its JSON protocol, for the real SDK clients: POST with
 * `x-amz-target: <prefix>.<Operation>`, a SigV4-shaped Authorization header (signature.ts), a JSON
 * object body; the operation's answer as 200, an AwsJsonError as the service's error, anything
 * else as the service's internal error (500, a bug here). It listens on 127.0.0.1 and answers requests
 * addressed to loopback only (local/loopback-host.ts).
 */
import { createServer, type IncomingMessage } from 'node:http';
import { onlyLoopbackHosts } from '../../loopback-host';
import { AwsJsonError } from './errors';
import { requireSigV4 } from './signature';

export type JsonBody = Record<string, unknown>;
export type JsonOperation = (body: JsonBody) => JsonBody | Promise<JsonBody>;

export interface AwsJsonServerOptions {
  /** The target prefix the SDK sends: `secretsmanager`, `AWSEvents`, `TrentService`, `AWSStepFunctions`… */
  targetPrefix: string;
  /** `1.0` or `1.1`, as the service's protocol is. */
  jsonVersion: '1.0' | '1.1';
  operations: Readonly<Record<string, JsonOperation>>;
  port?: number;
  /** The exception a failure of the endpoint itself is answered with (default InternalFailure, AWS's common one). */
  internalErrorType?: string;
  /** Runs before the server closes (an emulator settling the work it still runs). */
  beforeClose?: () => Promise<void>;
}

export interface AwsJsonServer {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint` or an AWS_ENDPOINT_URL_<SERVICE> variable. */
  endpoint: string;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new AwsJsonError('SerializationException', '');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AwsJsonError(
      'SerializationException',
      Array.isArray(body) ? 'Start of list found where not expected' : '',
    );
  }
  return body as JsonBody;
}

async function answer(options: AwsJsonServerOptions, request: IncomingMessage): Promise<JsonBody> {
  const target = request.headers['x-amz-target'];
  const prefix = `${options.targetPrefix}.`;
  const name =
    request.method === 'POST' && typeof target === 'string' && target.startsWith(prefix)
      ? target.slice(prefix.length)
      : '';
  // Own members only: `constructor` or `toString` is no operation.
  const operation = Object.hasOwn(options.operations, name) ? options.operations[name] : undefined;
  requireSigV4(request);
  if (operation === undefined) throw new AwsJsonError('UnknownOperationException', '');
  return operation(await readBody(request));
}

export async function startAwsJsonServer(options: AwsJsonServerOptions): Promise<AwsJsonServer> {
  const server = createServer((request, response) => {
    answer(options, request)
      .then(
        (body) => ({ status: 200, body }),
        (error: unknown) => {
          const refusal =
            error instanceof AwsJsonError
              ? error
              : new AwsJsonError(
                  options.internalErrorType ?? 'InternalFailure',
                  `local endpoint failure: ${String(error)}`,
                  {
                    status: 500,
                  },
                );
          return { status: refusal.status, body: refusal.body() };
        },
      )
      .then(({ status, body }) => {
        const payload = JSON.stringify(body);
        response.writeHead(status, {
          'content-type': `application/x-amz-json-${options.jsonVersion}`,
          'content-length': Buffer.byteLength(payload),
          'x-amzn-requestid': crypto.randomUUID(),
        });
        response.end(payload);
      })
      .catch(() => response.destroy());
  });
  onlyLoopbackHosts(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the local endpoint has no TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    async close() {
      await options.beforeClose?.();
      await new Promise<void>((resolve, reject) => {
        server.closeIdleConnections();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
