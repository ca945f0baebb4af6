/** The SQS + S3 emulator (fauxqs), bound to loopback only. */
import { startFauxqs, type FauxqsServer } from 'fauxqs';

export interface SqsS3Emulator {
  server: FauxqsServer;
  endpoint: string;
  /** Environment that points the AWS SDK's SQS and S3 clients at the emulator. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';

export async function startSqsS3Emulator(options: { port?: number } = {}): Promise<SqsS3Emulator> {
  const server = await startFauxqs({ host: '127.0.0.1', port: options.port ?? 0, logger: false, defaultRegion: LOCAL_REGION });
  const endpoint = `http://127.0.0.1:${server.port}`;
  return {
    server,
    endpoint,
    env: {
      AWS_ENDPOINT_URL_SQS: endpoint,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: LOCAL_REGION,
      // The emulator accepts any credentials; these keep the SDK from looking for real ones.
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
    stop: () => server.stop(),
  };
}
