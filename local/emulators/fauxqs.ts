/**
 * The SQS + S3 emulator (fauxqs), listening on 127.0.0.1 only. (Its startFauxqs
 * helper listens on every interface, so the app is built and bound here.)
 * Queues and buckets are created through the AWS SDK like any other client would.
 */

import { onlyLoopbackHosts } from '../loopback-host';
import { quietSqliteWarning } from './quiet-sqlite-warning';

export interface SqsS3Emulator {
  endpoint: string;
  /** Environment that points the AWS SDK's SQS and S3 clients at the emulator. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';

export async function startSqsS3Emulator(options: { port?: number } = {}): Promise<SqsS3Emulator> {
  // Without a host option, queue URLs follow the request's Host header: http://127.0.0.1:<port>/...
  // Loaded here, not imported above: Node announces node:sqlite as fauxqs's graph links, before any code of ours runs.
  quietSqliteWarning();
  const { buildApp } = await import('fauxqs');
  const app = buildApp({ logger: false, defaultRegion: LOCAL_REGION });
  // It takes any credentials: a web page rebinding its name to 127.0.0.1 must not read the buckets.
  onlyLoopbackHosts(app.server);
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('fauxqs did not report a TCP address');
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL_SQS: endpoint,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: LOCAL_REGION,
      // The emulator accepts any credentials; these keep the SDK from looking for real ones.
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
    stop: () => app.close(),
  };
}
