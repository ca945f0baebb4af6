/** The DynamoDB emulator (dynalite), on 127.0.0.1, in memory or with its data in a folder. */
import { spawn } from 'node:child_process';
import type { Server as HttpServer } from 'node:http';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import dynalite from 'dynalite';
import { onlyLoopbackHosts } from '../loopback-host';

export interface DynamoEmulator {
  endpoint: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startDynamoEmulator(options: { port?: number; path?: string } = {}): Promise<DynamoEmulator> {
  const server: HttpServer = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path && { path: options.path }),
  });
  // It takes any credentials: a web page rebinding its name to 127.0.0.1 must not read the table.
  onlyLoopbackHosts(server);
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

async function freePort(): Promise<number> {
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/**
 * dynalite in a process of its own, as a database is in production: its work does
 * not compete with the caller's for one core (benchmarks use this).
 */
export async function startDynamoEmulatorProcess(options: { path?: string } = {}): Promise<DynamoEmulator> {
  const port = await freePort();
  const cli = createRequire(import.meta.url).resolve('dynalite/cli.js');
  const args = [
    cli,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--createTableMs',
    '0',
    ...(options.path ? ['--path', options.path] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await fetch(endpoint, { method: 'POST' });
      break;
    } catch {
      if (attempt > 100 || child.exitCode !== null) throw new Error('dynalite did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    endpoint,
    env: { AWS_ENDPOINT_URL_DYNAMODB: endpoint },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
