/** The DynamoDB emulator (dynalite), on 127.0.0.1, in memory or with its data in a folder. */
import type { Server } from 'node:http';
import dynalite from 'dynalite';

export interface DynamoEmulator {
  endpoint: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startDynamoEmulator(options: { port?: number; path?: string } = {}): Promise<DynamoEmulator> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(options.path && { path: options.path }) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('dynalite did not report a TCP address');
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    env: { AWS_ENDPOINT_URL_DYNAMODB: endpoint },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
